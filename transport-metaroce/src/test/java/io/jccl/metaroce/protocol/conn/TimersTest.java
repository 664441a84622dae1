package io.jccl.metaroce.protocol.conn;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimersTest {
    /** @return timers of one slot per value, slot {@code i} set to {@code dueNs[i]} ({@link Timers#NONE}: unset) */
    private static Timers timersDueAt(long... dueNs) {
        Timers timers = new Timers(dueNs.length);
        for (int i = 0; i < dueNs.length; i++) {
            timers.set(i, dueNs[i]);
        }
        return timers;
    }

    @Test
    void nothingIsPendingAtFirst() {
        Timers timers = new Timers(4);
        assertThat(timers.earliestNs()).isEqualTo(Timers.NONE);
        assertThat(timers.anyDue(0, 4, Long.MAX_VALUE - 1)).isFalse();
    }

    @Test
    void theEarliestFollowsASlotThatMovesLaterOrClears() {
        Timers timers = timersDueAt(500, 300, 400);
        assertThat(timers.earliestNs()).isEqualTo(300);
        timers.set(1, 900);   // the earliest moved later: the next is slot 2's
        assertThat(timers.earliestNs()).isEqualTo(400);
        timers.set(2, Timers.NONE);
        assertThat(timers.earliestNs()).isEqualTo(500);
        timers.set(0, Timers.NONE);
        timers.set(1, Timers.NONE);
        assertThat(timers.earliestNs()).isEqualTo(Timers.NONE);
    }

    @Test
    void aSlotDueAtOnceIsDueWhateverTheClock() {
        Timers timers = timersDueAt(Timers.NONE, Long.MIN_VALUE);
        assertThat(timers.earliestNs()).isEqualTo(Long.MIN_VALUE);
        assertThat(timers.anyDue(1, 1, Long.MIN_VALUE + 5)).isTrue();
        assertThat(timers.anyDue(0, 1, 0)).isFalse();
    }

    @Test
    void anyDueLooksOnlyAtTheSlotsAsked() {
        Timers timers = timersDueAt(Timers.NONE, Timers.NONE, Timers.NONE, Timers.NONE, 100, Timers.NONE);
        assertThat(timers.anyDue(0, 4, 1_000)).isFalse();
        assertThat(timers.anyDue(4, 2, 99)).isFalse();
        assertThat(timers.anyDue(4, 2, 100)).isTrue();
    }

    @Test
    void noSlotsIsRefused() {
        assertThatThrownBy(() -> new Timers(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slots");
    }

    /** Any sequence of settings: the earliest is always the minimum of the slots, as a scan finds it. */
    @Property(tries = 300)
    void theEarliestIsAlwaysTheMinimumOfTheSlots(@ForAll("settings") List<Tuple.Tuple2<Integer, Long>> settings) {
        Timers timers = new Timers(8);
        long[] model = new long[8];
        Arrays.fill(model, Timers.NONE);
        for (Tuple.Tuple2<Integer, Long> s : settings) {
            timers.set(s.get1(), s.get2());
            model[s.get1()] = s.get2();
            assertThat(timers.earliestNs()).isEqualTo(Arrays.stream(model).min().orElseThrow());
            assertThat(timers.get(s.get1())).isEqualTo(s.get2());
        }
    }

    @Provide
    Arbitrary<List<Tuple.Tuple2<Integer, Long>>> settings() {
        Arbitrary<Long> deadline = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.longs().between(-1_000, 1_000)),
                Tuple.of(2, Arbitraries.just(Timers.NONE)),
                Tuple.of(1, Arbitraries.just(Long.MIN_VALUE)));
        return Arbitraries.integers().between(0, 7).flatMap(slot -> deadline.map(d -> Tuple.of(slot, d)))
                .list().ofMaxSize(60);
    }
}
