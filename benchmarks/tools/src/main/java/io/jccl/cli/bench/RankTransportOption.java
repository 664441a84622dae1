package io.jccl.cli.bench;

import io.jccl.cli.run.RunCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.Locale;

/**
 * {@code --transport NAME} of the commands that start rank JVMs themselves ({@code perf}, {@code soak}): the
 * transport every rank uses, passed on as {@code JCCL_NET} ({@code @Mixin}).
 */
public final class RankTransportOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--transport", defaultValue = "auto", paramLabel = "NAME",
            description = "auto, metaroce, shm, tcp, aeron-ipc or aeron-udp (JCCL_NET for the ranks; default ${DEFAULT-VALUE})")
    String name;

    /** Created by picocli. */
    public RankTransportOption() {
    }

    /**
     * @return the name given, trimmed and in lower case
     * @throws CommandLine.ParameterException naming the value when it is none of {@link RunCommand#TRANSPORTS}
     */
    public String checked() {
        String t = name.trim().toLowerCase(Locale.ROOT);
        if (!RunCommand.TRANSPORTS.contains(t)) {
            throw new CommandLine.ParameterException(mixee.commandLine(), "--transport '" + name + "' is not one of "
                    + String.join(", ", RunCommand.TRANSPORTS));
        }
        return t;
    }
}
