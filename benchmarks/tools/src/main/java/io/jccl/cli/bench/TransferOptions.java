package io.jccl.cli.bench;

import io.jccl.cli.SelftestCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --paths}, {@code --bytes} and {@code --message-bytes} of the commands that time one transfer between two
 * endpoints under loss ({@code bench transport}, {@code bench loss}): what one transfer is, the same on each
 * ({@code @Mixin}; the commands read the fields). The largest {@code --bytes} depends on the command and is checked
 * there.
 */
public final class TransferOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--paths", defaultValue = "8", description = "paths per MetaRoCE connection, 1-64 "
            + "(default ${DEFAULT-VALUE}; the other protocols and transports ignore it)")
    int paths;

    @Option(names = "--bytes", defaultValue = "64M", converter = SelftestCommand.BytesConverter.class,
            description = "bytes per transfer, e.g. 1M, 64M (default ${DEFAULT-VALUE})")
    long bytes;

    @Option(names = "--message-bytes", defaultValue = "4M", converter = SelftestCommand.BytesConverter.class,
            description = "bytes per message (a MetaRoCE WRITE); the last one of a transfer may be shorter "
                    + "(default ${DEFAULT-VALUE})")
    long messageBytes;

    /** Created by picocli. */
    public TransferOptions() {
    }

    /** @return bytes per message as sent: a transfer smaller than {@code --message-bytes} is one message */
    public long messageBytesUsed() {
        return Math.min(messageBytes, bytes);
    }

    /** @return messages per transfer, the last one possibly shorter */
    public long messages() {
        return (bytes + messageBytes - 1) / messageBytes;
    }

    /**
     * Checks {@code --bytes} against the command's limit, as a usage error naming the option, the range and the value.
     *
     * @param maxBytes the largest transfer the command takes
     * @param maxText  how the error states it, e.g. {@code "1G"}
     */
    public void checkBytes(long maxBytes, String maxText) {
        if (bytes < 1 || bytes > maxBytes) {
            throw new CommandLine.ParameterException(mixee.commandLine(),
                    "--bytes must be between 1 and " + maxText + ", got " + bytes);
        }
    }

    /**
     * Checks the limits every transfer has: 1-64 paths and messages of at least one byte, as usage errors naming the
     * option ({@code --bytes}' range is the command's).
     */
    public void checkPathsAndMessage() {
        OptionChecks.within(mixee, "--paths", paths, 1, 64);
        OptionChecks.atLeast(mixee, "--message-bytes", messageBytes, 1);
    }
}
