package io.jccl.metaroce.protocol.path;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The receiver's cumulative PSN and SACK bitmap against a plain model, for any arrival order. */
class ReceiverPathTest {
    private static final int WINDOW = SenderPath.WINDOW;

    @Test
    void aLateCumulativePacketDoesNotPassAMissingOne() {
        ReceiverPath rx = new ReceiverPath();
        rx.accept(3);
        rx.accept(2);
        rx.accept(0);   // 1 is still missing: the receiver must keep waiting for it
        assertThat(rx.cumulative()).isEqualTo(1);
        assertThat(rx.word(0)).isEqualTo(0b11L);   // PSNs 2 and 3
        rx.accept(1);
        assertThat(rx.cumulative()).isEqualTo(4);
        assertThat(rx.word(0)).isZero();
        assertThat(rx.hasHole()).isFalse();
    }

    @Test
    void givingUpAHoleKeepsWhatArrivedAboveIt() {
        ReceiverPath rx = new ReceiverPath();
        rx.accept(1);
        rx.accept(2);
        rx.accept(WINDOW + 1);   // PSN 0 is given up; 1 and 2 had arrived, 3 had not
        assertThat(rx.cumulative()).isEqualTo(3);
        assertThat(rx.accept(0)).isEqualTo(ReceiverPath.Arrival.DUPLICATE);
    }

    @Property(tries = 2000)
    void matchesTheModel(@ForAll @Size(max = 400) List<@IntRange(min = 0, max = 700) Integer> arrivals) {
        ReceiverPath rx = new ReceiverPath();
        Set<Integer> received = new HashSet<>();
        int cumulative = 0;
        for (int psn : arrivals) {
            boolean duplicate = psn < cumulative || received.contains(psn);
            if (psn - cumulative > WINDOW) {
                cumulative = psn - WINDOW;   // the oldest holes are given up so that psn fits the bitmap
            }
            received.add(psn);
            while (received.contains(cumulative)) {
                cumulative++;
            }
            assertThat(rx.accept(psn)).as("arrival of %d", psn)
                    .isEqualTo(duplicate ? ReceiverPath.Arrival.DUPLICATE : ReceiverPath.Arrival.NEW);
            assertThat(rx.cumulative()).as("cumulative after %d", psn).isEqualTo(cumulative);
            for (int i = 0; i < WINDOW; i++) {
                boolean bit = (rx.word(i >>> 6) >>> (i & 63) & 1) != 0;
                assertThat(bit).as("bit %d (PSN %d) after %d", i, cumulative + 1 + i, psn)
                        .isEqualTo(received.contains(cumulative + 1 + i));
            }
        }
    }
}
