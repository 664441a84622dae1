package io.jccl.metaroce.net;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The dedicated driver thread's idle strategy, with its clock and parking injected. */
class WaitingIdleStrategyTest {
    private long nowNs = 1_000_000_000L;
    private long lastPollNs = Long.MIN_VALUE / 2;
    private long timerNs = Long.MAX_VALUE;
    private final List<Long> parks = new ArrayList<>();

    private WaitingIdleStrategy strategy() {
        // No socket waiter: these cases never sleep on the sockets (a timer already due, or a caller polling).
        return new WaitingIdleStrategy(null, () -> timerNs, () -> true,
                () -> nowNs - lastPollNs < WaitingIdleStrategy.CALLER_ACTIVE_NS, () -> nowNs, parks::add);
    }

    /**
     * While a caller polls, the driver stands aside for 1 ms, then for twice as long at each look that finds the
     * caller still polling, up to 4 ms; a look that finds no caller starts over at 1 ms.
     */
    @Test
    void whileACallerPollsTheDriverStandsAsideLongerAndLonger() {
        WaitingIdleStrategy idle = strategy();
        lastPollNs = nowNs - 500_000;
        for (int i = 0; i < 5; i++) {
            idle.idle(0);
        }
        long ms = 1_000_000;
        assertThat(WaitingIdleStrategy.CALLER_ACTIVE_PARK_NS).isEqualTo(ms);
        assertThat(WaitingIdleStrategy.MAX_CALLER_ACTIVE_PARK_NS).isEqualTo(4 * ms);
        assertThat(parks).containsExactly(ms, 2 * ms, 4 * ms, 4 * ms, 4 * ms);
        parks.clear();
        timerNs = Long.MIN_VALUE;   // (no socket wait when the caller has gone: a due timer parks briefly)
        lastPollNs = nowNs - 2 * WaitingIdleStrategy.CALLER_ACTIVE_NS;
        idle.idle(0);               // the caller stopped polling: spins, no park
        lastPollNs = nowNs;
        idle.idle(0);
        idle.idle(0);
        assertThat(parks).containsExactly(ms, 2 * ms);
    }

    /**
     * A timer already due that the driver could not run (a caller holds the duty cycle, perhaps descheduled in the
     * middle of one): once past its spins and yields the driver parks, it does not return at once. It returned at
     * once before, and spun on a core the caller needed: 223,663 idle calls without a pause in one run of 5,000
     * all-reduces of 1 MiB.
     */
    @Test
    void aTimerAlreadyDueMakesTheDriverParkNotSpin() {
        WaitingIdleStrategy idle = strategy();
        lastPollNs = nowNs - 5_000_000;   // no caller for 5 ms
        timerNs = nowNs - 2_000_000;      // due 2 ms ago
        for (int i = 0; i < 100; i++) {
            idle.idle(0);
        }
        assertThat(parks).as("the first 70 idles spin and yield; every later one parks").hasSize(30)
                .containsOnly(WaitingIdleStrategy.DUE_TIMER_PARK_NS);
        idle.idle(1);   // work done: spinning starts over
        parks.clear();
        idle.idle(0);
        assertThat(parks).isEmpty();
    }

    /**
     * "Due at once" ({@link Long#MIN_VALUE}: also what the transport answers while a caller holds the duty cycle)
     * parks briefly like any due timer. It was subtracted from the clock before, which wraps to a long positive
     * wait: the driver slept on its sockets instead (here: on the absent waiter, a NullPointerException).
     */
    @Test
    void dueAtOnceParksInsteadOfSleepingOnTheSockets() {
        WaitingIdleStrategy idle = strategy();
        lastPollNs = nowNs - 5_000_000;
        timerNs = Long.MIN_VALUE;
        for (int i = 0; i < 100; i++) {
            idle.idle(0);
        }
        assertThat(parks).hasSize(30).containsOnly(WaitingIdleStrategy.DUE_TIMER_PARK_NS);
    }
}
