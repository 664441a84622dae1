package io.jccl.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The executor's two kinds of wake-up: progress signals (transports, in-JVM peers) end {@link ExecutorSignal#park}
 * but not {@link ExecutorSignal#parkWatching} — the executor thread staying out of the way of callers that drive
 * their own operations — while the communicator's own {@link ExecutorSignal#wake()} ends both; none is lost when it
 * comes before the park.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)   // detects a lost wake-up (a hang), never slowness
class ExecutorSignalTest {
    private static final long HOUR_NS = Duration.ofHours(1).toNanos();

    @Test
    void aWakeBeforeEitherParkIsNotLost() {
        ExecutorSignal signal = new ExecutorSignal();
        signal.owner(Thread.currentThread());
        signal.wake();
        signal.parkWatching(HOUR_NS);   // returns at once: the wake came first
        signal.wake();
        signal.park(HOUR_NS);
        signal.signal();
        signal.park(HOUR_NS);
    }

    @Test
    void progressSignalsDoNotEndAWatchingParkButAWakeDoes() throws Exception {
        ExecutorSignal signal = new ExecutorSignal();
        AtomicInteger returns = new AtomicInteger();
        Thread executor = Thread.ofPlatform().unstarted(() -> {
            signal.parkWatching(HOUR_NS);
            returns.incrementAndGet();
        });
        signal.owner(executor);
        executor.start();
        awaitParked(executor);
        for (int i = 0; i < 1000; i++) {
            signal.signal();   // a completion per message, as a transport signals
        }
        Thread.sleep(50);
        assertThat(returns.get()).as("watching park ended by progress signals").isZero();
        assertThat(executor.getState()).isEqualTo(Thread.State.TIMED_WAITING);
        signal.wake();
        executor.join();
        assertThat(returns.get()).isEqualTo(1);
    }

    @Test
    void aProgressSignalEndsAnOrdinaryPark() throws Exception {
        ExecutorSignal signal = new ExecutorSignal();
        Thread executor = Thread.ofPlatform().unstarted(() -> signal.park(HOUR_NS));
        signal.owner(executor);
        executor.start();
        awaitParked(executor);
        signal.signal();
        executor.join();
    }

    private static void awaitParked(Thread t) throws InterruptedException {
        while (t.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
    }
}
