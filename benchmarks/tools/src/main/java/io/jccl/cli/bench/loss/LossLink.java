package io.jccl.cli.bench.loss;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An impairing link between the two sides of a loss-benchmark transfer (side 0 receives, side 1 sends): how each
 * side's JVM is started (a command prefix and environment variables), which address it binds, and what the link
 * counted. One link serves one transfer at one loss rate; {@link #close()} tears it down.
 */
public interface LossLink extends AutoCloseable {
    /** The side that listens and receives. */
    int RECEIVER = 0;
    /** The side that connects and sends. */
    int SENDER = 1;

    /** @return the link's kind */
    LinkKind kind();

    /**
     * @param side {@link #RECEIVER} or {@link #SENDER}
     * @return the words to put before {@code java} when starting that side's JVM (empty for none)
     */
    List<String> commandPrefix(int side);

    /**
     * @param side {@link #RECEIVER} or {@link #SENDER}
     * @return environment variables for that side's JVM, added to this JVM's (e.g. where a transport sends through
     *         the link)
     */
    Map<String, String> environment(int side);

    /**
     * @param side {@link #RECEIVER} or {@link #SENDER}
     * @return the address that side's transport binds (its {@code TransportContext.bindAddress()})
     */
    InetAddress address(int side);

    /** @return what the link has counted so far */
    LinkCounters counters();

    /** @return why the link stopped carrying packets, if it did (a run through it then times out) */
    default Optional<String> failure() {
        return Optional.empty();
    }

    /** Tears the link down; the JVMs using it must have exited. */
    @Override
    void close();
}
