package io.jccl.net.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.util.concurrent.ThreadFactory;
import org.agrona.concurrent.IdleStrategy;

/** What the Aeron transports' embedded media drivers have in common. */
public final class EmbeddedDrivers {
    private EmbeddedDrivers() {
    }

    /**
     * @param namePrefix the name of the threads (a counter is appended)
     * @return a factory of daemon threads, so a driver never keeps a JVM alive
     */
    public static ThreadFactory daemons(String namePrefix) {
        return Thread.ofPlatform().daemon().name(namePrefix + "-", 0).factory();
    }

    /**
     * A driver context that owns {@code directory} (deleting what a crashed predecessor left, and the directory
     * again at shutdown), runs everything on one shared thread idling with {@code idle}, and creates sparse term
     * files; transports add their own timeouts and buffers.
     *
     * @param directory the Aeron directory
     * @param idle      the shared thread's idle strategy
     * @param threads   the factory of the driver's threads
     * @return the context, to be completed and launched
     */
    public static MediaDriver.Context sharedContext(String directory, IdleStrategy idle, ThreadFactory threads) {
        return new MediaDriver.Context()
                .aeronDirectoryName(directory)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .warnIfDirectoryExists(false)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(idle)
                .sharedThreadFactory(threads)
                .conductorThreadFactory(threads)
                .senderThreadFactory(threads)
                .receiverThreadFactory(threads)
                .sharedNetworkThreadFactory(threads)
                .asyncExecutorThreadFactory(threads)
                .termBufferSparseFile(true);
    }
}
