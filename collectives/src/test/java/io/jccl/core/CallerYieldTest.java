package io.jccl.core;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A caller waiting in {@code await()} with no spin time but a yield time ({@code JCCL_YIELD_US}, the default with
 * fewer cores than ranks) goes on driving its operation, yielding between passes, instead of handing over and
 * blocking at once; with neither it hands over after the progress possible at once.
 */
class CallerYieldTest {
    /** Idle steps after which the fake peer's data "arrives": far more than the passes made before a hand-over. */
    private static final int ARRIVES_AFTER_STEPS = 20_000;

    @Test
    void withAYieldTimeTheWaitingCallerDrivesItsOperationToCompletion() throws Exception {
        // 60 s: the caller never runs out of it here, however loaded the machine.
        FakeProgress progress = new FakeProgress();
        OpFuture f = new OpFuture(null, progress, new AwaitSpin(0, 60_000_000_000L), false);
        progress.future = f;
        Thread executor = executorStandIn(progress, f);

        f.await();
        executor.interrupt();
        executor.join();

        assertThat(progress.completedBy.get()).as("completed on the waiting thread, with no hand-over")
                .isSameAs(Thread.currentThread());
        assertThat(progress.steps.get()).isEqualTo(ARRIVES_AFTER_STEPS);
        assertThat(progress.waiting.get()).as("callerWaiting(true) then (false)").isZero();
    }

    @Test
    void withNeitherSpinNorYieldTheCallerHandsOverAndBlocks() throws Exception {
        FakeProgress progress = new FakeProgress();
        OpFuture f = new OpFuture(null, progress, new AwaitSpin(0, 0), false);
        progress.future = f;
        Thread executor = executorStandIn(progress, f);

        f.await();
        executor.join();

        assertThat(progress.completedBy.get()).isSameAs(executor);
        assertThat(progress.steps.get()).as("only the progress possible at once").isLessThan(ARRIVES_AFTER_STEPS);
    }

    /** The executor thread: completes what the caller hands over (interrupted: nothing was handed over). */
    private static Thread executorStandIn(FakeProgress progress, OpFuture f) {
        return Thread.ofPlatform().start(() -> {
            try {
                if (progress.handedOver.await(60, TimeUnit.SECONDS)) {
                    progress.completedBy.compareAndSet(null, Thread.currentThread());
                    f.complete();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** A communicator whose operation completes at its {@link #ARRIVES_AFTER_STEPS}th step, none before progressing. */
    private static final class FakeProgress implements Progress {
        final AtomicInteger steps = new AtomicInteger();
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicReference<Thread> completedBy = new AtomicReference<>();
        final CountDownLatch handedOver = new CountDownLatch(1);
        volatile OpFuture future;
        private final AtomicReference<Thread> driver = new AtomicReference<>();

        @Override
        public boolean tryDrive() {
            return driver.compareAndSet(null, Thread.currentThread());
        }

        @Override
        public int step() {
            if (steps.incrementAndGet() == ARRIVES_AFTER_STEPS) {
                completedBy.compareAndSet(null, Thread.currentThread());
                future.complete();
                return 1;
            }
            return 0;
        }

        @Override
        public void stopDriving() {
            driver.set(null);
        }

        @Override
        public boolean isDrivenByCurrentThread() {
            return driver.get() == Thread.currentThread();
        }

        @Override
        public void callerWaiting(boolean waitingNow) {
            if (waitingNow) {
                waiting.incrementAndGet();
            } else if (waiting.decrementAndGet() == 0 && !future.isDone()) {
                handedOver.countDown();
            }
        }
    }
}
