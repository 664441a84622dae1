package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.bootstrap.Bootstrap;
import io.jccl.net.Listener;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The creation's last all-gather, during which transports that move only when polled are polled. */
class PollingGatherTest {
    private static final byte[][] GATHERED = {{1}, {2}};
    /** Hang detection only: the gather below returns as soon as it has seen the polls it waits for. */
    private static final long HANG_NS = TimeUnit.SECONDS.toNanos(60);

    /**
     * A peer still setting up needs this rank's transport polled while this rank waits in the bootstrap: the gather
     * here returns only after the transport was polled 3 times during it (a blocking gather that polled nothing
     * would wait for ever, here until the hang bound fails the test).
     */
    @Test
    void aTransportThatMovesOnlyWhenPolledIsPolledWhileTheGatherWaits() {
        PolledTransport transport = new PolledTransport(true);
        Bootstrap bootstrap = new FakeBootstrap(() -> gatheredAfterPolls(transport, 3));
        assertThat(PollingGather.allGather(bootstrap, new byte[] {1}, List.of(transport), "gather-test"))
                .isSameAs(GATHERED);
    }

    @Test
    void withoutSuchATransportTheGatherRunsOnTheCallingThread() {
        PolledTransport transport = new PolledTransport(false);
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> gatheredOn = new AtomicReference<>();
        Bootstrap bootstrap = new FakeBootstrap(() -> {
            gatheredOn.set(Thread.currentThread());
            return GATHERED;
        });
        assertThat(PollingGather.allGather(bootstrap, new byte[] {1}, List.of(transport), "gather-test"))
                .isSameAs(GATHERED);
        assertThat(gatheredOn.get()).isSameAs(caller);
        assertThat(transport.polls.get()).as("asked once whether polling moves it").isEqualTo(1);
    }

    @Test
    void theGathersFailureReachesTheCaller() {
        PolledTransport transport = new PolledTransport(true);
        JcclException timeout = new JcclException(ErrorCode.TIMEOUT, "rank 1 did not arrive");
        Bootstrap bootstrap = new FakeBootstrap(() -> {
            throw timeout;
        });
        assertThatThrownBy(() -> PollingGather.allGather(bootstrap, new byte[] {1}, List.of(transport), "gather-test"))
                .isSameAs(timeout);
    }

    /** A transport that breaks while polled is polled no more; the gather still ends with what it gathered. */
    @Test
    void aTransportThatFailsWhenPolledIsLeftAlone() {
        PolledTransport broken = new PolledTransport(true);
        PolledTransport healthy = new PolledTransport(true);
        broken.failFromPoll = 2;   // its first answer says it moves, its second poll throws
        Bootstrap bootstrap = new FakeBootstrap(() -> gatheredAfterPolls(healthy, 5));
        assertThat(PollingGather.allGather(bootstrap, new byte[] {1}, List.of(broken, healthy), "gather-test"))
                .isSameAs(GATHERED);
        assertThat(broken.polls.get()).isEqualTo(2);
    }

    /**
     * The fake gather: returns only once {@code transport} was polled {@code polls} more times during it (a gather
     * that polled nothing meanwhile fails on the hang bound).
     */
    private static byte[][] gatheredAfterPolls(PolledTransport transport, int polls) {
        int before = transport.polls.get();
        long start = System.nanoTime();
        while (transport.polls.get() < before + polls) {
            if (System.nanoTime() - start > HANG_NS) {
                throw new AssertionError("the transport was not polled during the gather");
            }
            Thread.onSpinWait();
        }
        return GATHERED;
    }

    /** Counts its polls; {@code moves}: whether it says polling moves it. */
    private static final class PolledTransport implements NetTransport {
        final AtomicInteger polls = new AtomicInteger();
        private final boolean moves;

        PolledTransport(boolean moves) {
            this.moves = moves;
        }

        /** The poll (counted from 1) from which progress throws; 0: never. */
        int failFromPoll;

        @Override
        public boolean progress() {
            int n = polls.incrementAndGet();
            if (failFromPoll > 0 && n >= failFromPoll) {
                throw new IllegalStateException("broken");
            }
            return moves;
        }

        @Override
        public NetProperties properties() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Listener listen(ProgressSignal signal) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    /** A bootstrap whose all-gather runs {@code gather}. */
    private static final class FakeBootstrap implements Bootstrap {
        private final java.util.function.Supplier<byte[][]> gather;

        FakeBootstrap(java.util.function.Supplier<byte[][]> gather) {
            this.gather = gather;
        }

        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int size() {
            return 2;
        }

        @Override
        public byte[][] allGather(byte[] mine) {
            return gather.get();
        }

        @Override
        public byte[] communicatorSecret() {
            return new byte[32];
        }

        @Override
        public void close() {
        }
    }
}
