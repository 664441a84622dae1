package io.jccl.testing;

import io.jccl.net.Listener;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.testing.JvmProcesses.Jvm;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a test of peer death holds: the peer JVMs it starts, to kill, and the transports and connections it opens in
 * this JVM, to close. {@link #cleanUp()} after each test kills the peers first, then closes the rest newest first,
 * ignoring a {@link RuntimeException} from a close (a transport may be broken on purpose).
 */
public final class PeerProcesses {
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<Jvm> children = new ArrayList<>();

    /** Starts a peer JVM running {@code mainClass} with {@code args}; its output goes to a file named after it. */
    public Jvm start(Class<?> mainClass, String name, String... args) throws IOException {
        Jvm jvm = JvmProcesses.start(mainClass, List.of(args), Map.of(), name);
        children.add(jvm);
        return jvm;
    }

    /** @return {@code resource}, closed by {@link #cleanUp()} */
    public <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Kills every peer JVM, then closes what {@link #track} took, newest first. */
    public void cleanUp() throws Exception {
        for (Jvm child : children) {
            child.process().destroyForcibly();
            child.process().waitFor();
        }
        children.clear();
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (RuntimeException ignored) {
                // broken on purpose
            }
        }
        resources.clear();
    }

    /**
     * Accepts, on {@code listener}, the connection a peer JVM makes to it.
     *
     * @return the connection, taken by {@link #track}
     * @throws AssertionError when none comes within {@code timeoutNs}
     */
    public RecvConnection acceptFrom(Jvm peer, Listener listener, long timeoutNs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNs;
        RecvConnection recv = listener.accept();
        while (recv == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the child did not connect; output:\n" + peer.outputText());
            }
            Thread.sleep(1);
            recv = listener.accept();
        }
        return track(recv);
    }

    /**
     * Connects to a listener (a peer's, say), polling the connect every millisecond.
     *
     * @param handle    the listener's handle
     * @param timeoutNs how long the connect may take
     * @return the connection, not tracked
     * @throws AssertionError when {@code timeoutNs} passes first
     */
    public static SendConnection connect(NetTransport from, byte[] handle, long timeoutNs)
            throws InterruptedException {
        PendingConnect pending = from.connect(handle, ProgressSignal.NONE);
        long deadline = System.nanoTime() + timeoutNs;
        while (true) {
            SendConnection s = pending.poll();
            if (s != null) {
                return s;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("connect did not complete");
            }
            Thread.sleep(1);
        }
    }

    /**
     * Waits for a peer to print a line starting with {@code prefix}.
     *
     * @return the line, stripped
     * @throws AssertionError when the peer exits first or {@code timeoutNs} passes
     */
    public static String awaitLine(Jvm jvm, String prefix, long timeoutNs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNs;
        while (System.nanoTime() - deadline < 0) {
            for (String line : jvm.outputText().split("\n")) {
                if (line.startsWith(prefix)) {
                    return line.strip();
                }
            }
            if (!jvm.process().isAlive()) {
                throw new AssertionError("the child exited before printing " + prefix + "; output:\n"
                        + jvm.outputText());
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the child did not print " + prefix + "; output:\n" + jvm.outputText());
    }
}
