package io.jccl.metaroce.protocol.cc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The receiver's max-min share-out and its ECN-driven utilization, in virtual time. */
class FairShareTest {
    private static final double CAPACITY = 12e9;
    private static final long INTERVAL_NS = 20_000;

    /** Each sender delivers {@code bytesPerSecond[i]} for one interval; returns the new time. */
    private static long interval(FairShare f, long nowNs, double[] bytesPerSecond, boolean marked) {
        for (int i = 0; i < bytesPerSecond.length; i++) {
            long bytes = (long) (bytesPerSecond[i] * INTERVAL_NS / 1e9);
            if (bytes > 0) {
                f.onBytes(i, bytes, marked, nowNs);
            }
        }
        long next = nowNs + INTERVAL_NS;
        f.update(next);
        return next;
    }

    @Test
    void sixteenSendersGetEqualSharesFromTheirFirstPacket() {
        FairShare f = new FairShare(CAPACITY, INTERVAL_NS);
        f.update(0);
        for (int i = 0; i < 16; i++) {
            f.onBytes(i, 4096, false, 0);
        }
        for (int i = 0; i < 16; i++) {
            assertThat(f.hint(i)).isCloseTo(CAPACITY / 16, within(1.0));
        }
    }

    @Test
    void aSenderUsingLessKeepsWhatItUsesAndTheOthersSplitTheRest() {
        FairShare f = new FairShare(CAPACITY, INTERVAL_NS);
        f.update(0);
        double[] rates = {1e9, 6e9, 6e9};
        long now = 0;
        for (int k = 0; k < 10; k++) {
            now = interval(f, now, rates, false);
        }
        assertThat(f.hint(0)).isCloseTo(1e9 * 1.25, within(1e6));   // what it uses plus room to grow
        assertThat(f.hint(1)).isCloseTo((CAPACITY - 1.25e9) / 2, within(1e6));
        assertThat(f.hint(1) + f.hint(0) + f.hint(2)).isCloseTo(CAPACITY, within(1e3));
    }

    @Test
    void anIdleSenderIsForgottenAndItsShareGoesToTheOthers() {
        FairShare f = new FairShare(CAPACITY, INTERVAL_NS);
        f.update(0);
        long now = interval(f, 0, new double[] {6e9, 6e9}, false);
        for (int k = 0; k < 4; k++) {
            now = interval(f, now, new double[] {12e9, 0}, false);
        }
        assertThat(f.activeSenders()).isEqualTo(1);
        assertThat(f.hint(0)).isCloseTo(CAPACITY, within(1.0));
        f.onBytes(1, 4096, false, now);   // back: an equal share at once
        assertThat(f.hint(1)).isCloseTo(CAPACITY / 2, within(1.0));
    }

    @Test
    void marksShrinkWhatIsSharedOutAndTheirAbsenceRestoresIt() {
        FairShare f = new FairShare(CAPACITY, INTERVAL_NS);
        f.update(0);
        double[] rates = {6e9, 6e9};
        long now = 0;
        for (int k = 0; k < 5; k++) {
            now = interval(f, now, rates, true);
        }
        assertThat(f.utilization()).isEqualTo(0.5);   // 0.75 per fully marked interval, down to the floor
        double lowered = f.hint(0) + f.hint(1);
        assertThat(lowered).isCloseTo(CAPACITY * f.utilization(), within(1e3));
        for (int k = 0; k < 20; k++) {
            now = interval(f, now, rates, false);
        }
        assertThat(f.utilization()).isEqualTo(1.0);
        assertThat(f.hint(0) + f.hint(1)).isCloseTo(CAPACITY, within(1e3));
    }

    @Test
    void aSenderMeasuredSlowIsNotHeldToItsOldRateWhenNobodyElseNeedsTheCapacity() {
        FairShare f = new FairShare(CAPACITY, INTERVAL_NS);
        f.update(0);
        long now = 0;
        for (int k = 0; k < 3; k++) {
            now = interval(f, now, new double[] {1e6, 1e6}, false);   // both barely sending (recovering, say)
        }
        assertThat(f.hint(0) + f.hint(1)).isCloseTo(CAPACITY, within(1e3));
        assertThat(f.hint(0)).isCloseTo(CAPACITY / 2, within(1e3));
    }
}
