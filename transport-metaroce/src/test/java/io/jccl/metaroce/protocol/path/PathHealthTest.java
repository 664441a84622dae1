package io.jccl.metaroce.protocol.path;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Path health on its own: timeouts alone never fail a path; silence after a sibling was answered does. */
class PathHealthTest {
    private static final EndpointConfig CONFIG = EndpointConfig.defaults(new byte[32]);
    private static final long RTT_NS = 100_000;

    /** Counts what the verdicts give up, as a connection queues its retransmissions. */
    private static final class Owner implements PathHealth.Owner {
        int lost;

        @Override
        public void acknowledged(int messageRef, int chunkIndex, int messageEpoch) {
        }

        @Override
        public void lost(int messageRef, int chunkIndex, int messageEpoch) {
            lost++;
        }

        @Override
        public int retransmissionsQueued() {
            return lost;
        }
    }

    private final Counters counters = new Counters();
    private final Owner owner = new Owner();
    private final SenderPath[] paths = {new SenderPath(0, 4), new SenderPath(1, 4)};
    private final PathHealth health = new PathHealth(CONFIG, counters, paths);

    /** Both paths have a round trip of 100 us and one packet out, sent at 0: their timeouts fall due at 300 us. */
    private long bothOut() {
        for (SenderPath p : paths) {
            p.onRttSample(RTT_NS, CONFIG.rtoMaxNs());
            p.send(0, p.index, 0, 0, 100);
        }
        health.awaitAnswer(0);
        return paths[0].rtoDeadlineNs(CONFIG);
    }

    @Test
    void everyPathTimingOutTogetherIsAStalledPeerAndFailsNone() {
        long firstNs = bothOut();
        assertThat(health.judgePaths(firstNs - 1, owner)).as("nothing due yet").isZero();
        assertThat(health.judgePaths(firstNs, owner)).as("both packets go again").isEqualTo(2);
        assertThat(paths).allSatisfy(p -> assertThat(p.state()).isEqualTo(PathState.SUSPECT));
        for (SenderPath p : paths) {
            p.send(firstNs, p.index, 0, 1, 100);
        }
        long secondNs = paths[0].rtoDeadlineNs(CONFIG);
        health.judgePaths(secondNs, owner);
        assertThat(counters.get(Counter.RTO_FIRINGS)).isEqualTo(4);
        assertThat(counters.get(Counter.PATH_FAILURES_WITHHELD)).as("no evidence against either").isEqualTo(2);
        assertThat(paths).allSatisfy(p -> assertThat(p.state()).isEqualTo(PathState.SUSPECT));
        assertThat(health.takeRerouteDue(0)).isFalse();
    }

    @Test
    void aPathSilentWhileItsSiblingIsAnsweredFailsAtItsSilenceDeadline() {
        long timeoutNs = bothOut();
        health.judgePaths(timeoutNs, owner);
        for (SenderPath p : paths) {
            p.send(timeoutNs, p.index, 0, 1, 100);   // the test packets, PSN 1 of each path
        }
        long answerNs = timeoutNs + RTT_NS;
        assertThat(paths[1].onAck(answerNs, timeoutNs, 2, 0, 0, 0, 0, owner)).isEqualTo(1);
        paths[1].onRttSample(answerNs - timeoutNs, CONFIG.rtoMaxNs());
        health.answered(answerNs, timeoutNs, owner);
        assertThat(paths[1].state()).isEqualTo(PathState.ACTIVE);
        assertThat(paths[0].evidenceNs()).as("path 0's packet went out with the one answered").isEqualTo(answerNs);
        long deadlineNs = health.silenceDeadlineNs(paths[0], health.bestActiveRttNs());
        // Two round trips plus the delayed-ACK time after it was sent, at least one plus that after the evidence.
        assertThat(deadlineNs).isEqualTo(Math.max(timeoutNs + 2 * RTT_NS, answerNs + RTT_NS) + CONFIG.delayedAckNs());
        health.judgePaths(deadlineNs - 1, owner);
        assertThat(paths[0].state()).isEqualTo(PathState.SUSPECT);
        health.judgePaths(deadlineNs, owner);
        assertThat(paths[0].state()).isEqualTo(PathState.FAILED);
        assertThat(counters.get(Counter.PATHS_FAILED)).isEqualTo(1);
        assertThat(health.takeRerouteDue(0)).as("the driver is told to move it").isTrue();
        assertThat(health.takeRerouteDue(0)).as("once").isFalse();
    }

    @Test
    void thePeersSilenceFailsTheConnectionOnlyAfterTheLimitAndAnythingHeardRestartsIt() {
        health.awaitAnswer(1_000);
        long limitNs = 1_000 + CONFIG.connectionDeadNs();
        assertThat(health.silenceLimitPassed(limitNs - 1)).isFalse();
        assertThat(health.silenceLimitPassed(limitNs)).isTrue();
        health.heard();
        assertThat(health.silenceLimitPassed(limitNs)).isFalse();
        assertThat(health.deadlineNs()).isEqualTo(Long.MAX_VALUE);
    }
}
