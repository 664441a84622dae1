package io.jccl.metaroce.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IncastAnalysisTest {
    /** Feeds bins of 1000 ns: sender s gets {@code bytes[s][b]} in bin b, starting at bin 2. */
    private static RateMonitor monitor(long[][] bytes) {
        long[] senders = new long[bytes.length];
        for (int s = 0; s < senders.length; s++) {
            senders[s] = 10 + s;
        }
        RateMonitor m = new RateMonitor(1, senders, 1000);
        for (int s = 0; s < bytes.length; s++) {
            for (int b = 0; b < bytes[s].length; b++) {
                if (bytes[s][b] > 0) {
                    m.delivered((b + 2) * 1000L + 5, 10 + s, 1, 0, (int) bytes[s][b]);
                }
            }
        }
        m.delivered(0, 10, 99, 0, 12345); // other destination: ignored
        m.delivered(0, 77, 1, 0, 12345); // other source: ignored
        return m;
    }

    @Test
    void convergedAfterTheUnfairStart() {
        // Sender 0 hogs the first 4 bins, then all four share equally.
        long[][] bytes = new long[4][20];
        for (int b = 0; b < 20; b++) {
            for (int s = 0; s < 4; s++) {
                bytes[s][b] = b < 4 ? (s == 0 ? 4000 : 0) : 1000;
            }
        }
        RateMonitor m = monitor(bytes);
        assertThat(m.firstDeliveryNs(1)).isEqualTo(6005);
        assertThat(m.bytes(0, 2)).isEqualTo(4000);
        IncastAnalysis.Stats st = IncastAnalysis.analyze(m, 2, 22_000, 0.1, 3);
        // The first window [k, k+2) entirely in the fair part starts at bin 6 = 4 bins after the start (bin 2).
        assertThat(st.convergenceRtts()).isEqualTo(4);
        assertThat(st.jainIndex()).isEqualTo(1.0);
        assertThat(st.aggregateBytesPerSecond()).isEqualTo(4000 * 1e9 / 1000);
        assertThat(st.steadyFromNs()).isEqualTo(6000);
    }

    @Test
    void neverConvergesWhenOneSenderKeepsTwiceItsShare() {
        long[][] bytes = new long[2][30];
        for (int b = 0; b < 30; b++) {
            bytes[0][b] = 2000;
            bytes[1][b] = 1000;
        }
        IncastAnalysis.Stats st = IncastAnalysis.analyze(monitor(bytes), 3, 32_000, 0.1, 3);
        assertThat(st.convergenceRtts()).isEqualTo(-1);
        // (3000)^2 / (2 * (2000^2 + 1000^2)) = 0.9
        assertThat(st.jainIndex()).isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void nothingDelivered() {
        RateMonitor m = new RateMonitor(1, new long[] {2, 3}, 100);
        IncastAnalysis.Stats st = IncastAnalysis.analyze(m, 1, 1000, 0.1, 1);
        assertThat(st.convergenceRtts()).isEqualTo(-1);
        assertThat(st.jainIndex()).isZero();
        assertThatThrownBy(() -> IncastAnalysis.analyze(m, 0, 1000, 0.1, 1)).isInstanceOf(
                IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateMonitor(1, new long[0], 100)).hasMessageContaining("no sources");
    }
}
