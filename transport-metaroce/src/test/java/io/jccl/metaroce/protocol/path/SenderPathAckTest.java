package io.jccl.metaroce.protocol.path;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** What one ACK establishes on the sending side, against a plain model of the rules. */
class SenderPathAckTest {
    @Property(tries = 3000)
    void acknowledgesExactlyWhatTheAckCoversAndLosesWhatLiesFarBelow(@ForAll @IntRange(min = 1, max = 256) int sent,
                                                                     @ForAll @IntRange(min = 0, max = 300) int cumulative,
                                                                     @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        SenderPath path = new SenderPath(0, SenderPath.WINDOW);
        int skipped = random.nextInt(40);   // PSNs already acknowledged in an earlier round
        for (int psn = 0; psn < skipped; psn++) {
            path.send(0, 0, psn, 0, 100);
        }
        path.onAck(1, Long.MIN_VALUE, skipped, 0, 0, 0, 0, new Recorder());
        TreeSet<Integer> outstanding = new TreeSet<>();
        for (int i = 0; i < sent; i++) {
            int psn = skipped + i;
            path.send(2, 0, psn, 0, 100);   // chunk index = PSN, to tell them apart
            outstanding.add(psn);
        }
        long[] words = new long[4];
        for (int w = 0; w < 4; w++) {
            words[w] = random.nextInt(4) == 0 ? 0 : random.nextLong();
        }
        cumulative += skipped;
        List<Integer> acked = new ArrayList<>();
        for (int psn : outstanding) {
            int rel = psn - cumulative - 1;
            if (psn < cumulative || rel >= 0 && rel < 256 && (words[rel >>> 6] >>> (rel & 63) & 1) != 0) {
                acked.add(psn);
            }
        }
        List<Integer> lost = new ArrayList<>();
        if (!acked.isEmpty()) {
            int highest = acked.getLast();
            for (int psn : outstanding) {
                if (!acked.contains(psn) && highest - psn >= SenderPath.REORDER_THRESHOLD) {
                    lost.add(psn);
                }
            }
        }
        Recorder r = new Recorder();
        int n = path.onAck(3, Long.MIN_VALUE, cumulative, words[0], words[1], words[2], words[3], r);
        assertThat(r.acked).isEqualTo(acked);
        assertThat(r.lost).isEqualTo(lost);
        assertThat(n).isEqualTo(acked.size());
        assertThat(path.outstanding()).isEqualTo(sent - acked.size() - lost.size());
        assertThat(path.bytesInFlight()).isEqualTo(100L * path.outstanding());
    }

    private static final class Recorder implements SenderPath.AckVisitor {
        final List<Integer> acked = new ArrayList<>();
        final List<Integer> lost = new ArrayList<>();

        @Override
        public void acknowledged(int messageRef, int chunkIndex, int messageEpoch) {
            acked.add(chunkIndex);
        }

        @Override
        public void lost(int messageRef, int chunkIndex, int messageEpoch) {
            lost.add(chunkIndex);
        }
    }
}
