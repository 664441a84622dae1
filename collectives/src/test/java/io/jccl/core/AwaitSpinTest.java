package io.jccl.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting caller's spin: raised by short blocks, not by long ones, decaying while calls need no block; a larger
 * operation's at least its floor.
 */
class AwaitSpinTest {
    private static final long US = 1_000;

    @Test
    void aShortBlockRaisesTheSpinToTwiceItsLength() {
        AwaitSpin spin = new AwaitSpin(20 * US);
        assertThat(spin.spinNs()).isEqualTo(20 * US);
        spin.blocked(100 * US);
        assertThat(spin.spinNs()).isEqualTo(200 * US);
        spin.blocked(5 * US);
        assertThat(spin.spinNs()).as("never below the configured spin").isEqualTo(20 * US);
        spin.blocked(AwaitSpin.MAX_NS);
        assertThat(spin.spinNs()).as("at most MAX_NS").isEqualTo(AwaitSpin.MAX_NS);
    }

    @Test
    void aLongBlockLeavesTheSpinAsItWas() {
        AwaitSpin spin = new AwaitSpin(20 * US);
        spin.blocked(100 * US);
        spin.blocked(AwaitSpin.MAX_NS + 1);
        spin.blocked(5_000_000_000L);
        assertThat(spin.spinNs()).as("a peer busy elsewhere: spinning would not have caught it").isEqualTo(200 * US);
    }

    @Test
    void callsThatNeedNoBlockBringTheSpinBackToTheConfiguredOne() {
        AwaitSpin spin = new AwaitSpin(20 * US);
        spin.blocked(500 * US);
        long before = spin.spinNs();
        spin.completedWithoutBlocking();
        assertThat(spin.spinNs()).isLessThan(before).isGreaterThan(20 * US);
        for (int i = 0; i < 1_000; i++) {
            spin.completedWithoutBlocking();
        }
        assertThat(spin.spinNs()).isEqualTo(20 * US);
    }

    @Test
    void noConfiguredSpinIsNeverRaised() {
        AwaitSpin spin = new AwaitSpin(0);
        spin.blocked(100 * US);
        assertThat(spin.spinNs()).as("fewer cores than busy threads: the waiter leaves the cores").isZero();
        assertThat(spin.spinNs(1 << 20)).as("not by a large operation either").isZero();
    }

    @Test
    void aLargerOperationSpinsLongerUpToTheFloorsCap() {
        AwaitSpin spin = new AwaitSpin(20 * US);
        assertThat(spin.spinNs(8)).as("a small one: the configured spin").isEqualTo(20 * US);
        assertThat(spin.spinNs(256 * 1024)).isEqualTo(256 * 1024 * AwaitSpin.FLOOR_NS_PER_BYTE);
        assertThat(spin.spinNs(8L << 20)).isEqualTo(AwaitSpin.FLOOR_MAX_NS);
        assertThat(spin.spinNs(Long.MAX_VALUE)).as("no overflow").isEqualTo(AwaitSpin.FLOOR_MAX_NS);
        spin.blocked(400 * US);
        assertThat(spin.spinNs(64 * 1024)).as("a short block raises it beyond the floor").isEqualTo(800 * US);
        assertThat(spin.spinNs(1L << 20)).as("the floor beyond what blocks raise it to").isEqualTo(AwaitSpin.FLOOR_MAX_NS);
    }
}
