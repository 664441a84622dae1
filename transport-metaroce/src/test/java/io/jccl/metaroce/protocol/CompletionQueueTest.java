package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CompletionQueueTest {
    private record Seen(int connection, long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    @Test
    void keepsOrderAcrossWrapAroundAndGrowth() {
        CompletionQueue q = new CompletionQueue();
        List<Seen> seen = new ArrayList<>();
        CompletionHandler h = (c, w, k, s, b) -> seen.add(new Seen(c, w, k, s, b));
        WorkKind[] kinds = WorkKind.values();
        CompletionStatus[] statuses = CompletionStatus.values();
        long next = 0;
        for (int i = 0; i < 50; i++) {   // move the head, so that growth finds the ring wrapped
            q.add(1, next, kinds[0], statuses[0], next++);
        }
        assertThat(q.poll(h)).isEqualTo(50);
        seen.clear();
        long first = next;
        for (int i = 0; i < 300; i++) {   // 64, 128, 256, 512: three doublings with completions waiting
            q.add(i, next, kinds[i % kinds.length], statuses[i % statuses.length], 3 * next++);
        }
        q.pollOne(h);
        assertThat(q.poll(h)).isEqualTo(299);
        assertThat(q.isEmpty()).isTrue();
        assertThat(seen).hasSize(300);
        for (int i = 0; i < 300; i++) {
            long w = first + i;
            assertThat(seen.get(i)).isEqualTo(new Seen(i, w, kinds[i % kinds.length], statuses[i % statuses.length],
                    3 * w));
        }
        assertThatThrownBy(() -> q.pollOne(h)).isInstanceOf(IllegalStateException.class);
    }
}
