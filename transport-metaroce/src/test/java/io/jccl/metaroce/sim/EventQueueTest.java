package io.jccl.metaroce.sim;

import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventQueueTest {
    @Test
    void popsInTimeOrderThenInsertionOrder() {
        EventQueue q = new EventQueue(1);
        q.push(30, 1);
        q.push(10, 2);
        q.push(20, 3);
        q.push(10, 4);
        q.push(10, 5);
        q.push(0, 6);
        long[] expected = {6, 2, 4, 5, 3, 1};
        for (long e : expected) {
            assertThat(q.peekPayload()).isEqualTo(e);
            q.pop();
        }
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.pushed()).isEqualTo(6);
    }

    @Test
    void agreesWithAReferenceQueueOnRandomOperations() {
        SplittableRandom r = new SplittableRandom(7);
        EventQueue q = new EventQueue(4);
        PriorityQueue<long[]> ref = new PriorityQueue<>(Comparator.<long[]>comparingLong(a -> a[0])
                .thenComparingLong(a -> a[1]));
        long seq = 0;
        for (int i = 0; i < 200_000; i++) {
            if (ref.isEmpty() || r.nextInt(100) < 55) {
                long t = r.nextInt(1000); // many ties
                q.push(t, seq * 3 + 1);
                ref.add(new long[] {t, seq, seq * 3 + 1});
                seq++;
            } else {
                long[] e = ref.poll();
                assertThat(q.peekTimeNs()).isEqualTo(e[0]);
                assertThat(q.peekSequence()).isEqualTo(e[1]);
                assertThat(q.peekPayload()).isEqualTo(e[2]);
                q.pop();
            }
            assertThat(q.size()).isEqualTo(ref.size());
        }
    }

    @Test
    void popFromEmptyIsAnError() {
        assertThatThrownBy(() -> new EventQueue(2).pop()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("empty");
    }
}
