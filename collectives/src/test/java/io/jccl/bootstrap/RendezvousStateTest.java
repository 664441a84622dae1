package io.jccl.bootstrap;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rendezvous rules without sockets. */
class RendezvousStateTest {
    private final AtomicInteger ends = new AtomicInteger();
    private final RendezvousState state = new RendezvousState("test", ends::incrementAndGet);

    /** Records what the state sends. */
    static final class FakePeer implements RendezvousState.Peer {
        final List<Outbound> sent = new ArrayList<>();
        boolean finished;
        final String name;
        /** Its membership, once it joined. */
        RendezvousState.Member member;

        FakePeer(String name) {
            this.name = name;
        }

        @Override
        public String remote() {
            return name;
        }

        @Override
        public boolean send(Outbound item) {
            sent.add(item);
            return true;
        }

        @Override
        public void finish() {
            finished = true;
        }

        byte lastType() {
            return ((Outbound.Single) sent.getLast()).type();
        }

        String lastReason() {
            return new String(((Outbound.Single) sent.getLast()).parts()[0]);
        }
    }

    /** A fresh peer named {@code name} that joined as {@code rank} of {@code size}. */
    private FakePeer joined(String name, int rank, int size) throws Exception {
        FakePeer peer = new FakePeer(name);
        peer.member = state.join(peer, rank, size);
        return peer;
    }

    @Test
    void aRoundCompletesWhenEveryRankHasContributedAndEveryoneGetsTheSameTable() throws Exception {
        FakePeer p1 = joined("b", 1, 2);
        FakePeer p0 = joined("a", 0, 2);

        state.contribute(p1.member, 0, new byte[] {1});
        assertThat(p0.sent).hasSize(1); // WELCOME only
        state.contribute(p0.member, 0, new byte[] {0});

        Outbound.Table table = (Outbound.Table) p0.sent.getLast();
        assertThat(table.round()).isZero();
        assertThat(table.entries()).isDeepEqualTo(new byte[][] {{0}, {1}});
        assertThat(p1.sent.getLast()).isSameAs(table);

        state.bye(p0.member);
        assertThat(ends).hasValue(0);
        state.bye(p1.member);
        assertThat(ends).hasValue(1);
        assertThat(p0.finished && p1.finished).isTrue();
        assertThat(state.ended()).isTrue();
    }

    @Test
    void queryListsTheMissingRanks() throws Exception {
        FakePeer p0 = joined("a", 0, 100);
        state.contribute(p0.member, 0, new byte[0]);

        state.query(p0.member, 0);

        ByteBuffer status = ByteBuffer.wrap(((Outbound.Single) p0.sent.getLast()).parts()[0]);
        assertThat(status.getInt()).isZero();
        assertThat(status.getInt()).isEqualTo(99);
        List<Integer> listed = new ArrayList<>();
        while (status.hasRemaining()) {
            listed.add(status.getInt());
        }
        assertThat(listed).hasSize(RendezvousProtocol.MAX_LISTED_RANKS).startsWith(1, 2, 3).doesNotContain(0);
    }

    @Test
    void refusalsDoNotDisturbTheMembers() throws Exception {
        FakePeer p0 = joined("first", 0, 2);

        assertThatThrownBy(() -> state.join(new FakePeer("x"), 0, 2)).hasMessageContaining("already joined from first");
        assertThatThrownBy(() -> state.join(new FakePeer("x"), 1, 3)).hasMessageContaining("size 3 differs");
        assertThatThrownBy(() -> state.join(new FakePeer("x"), 2, 2)).hasMessageContaining("out of range");

        assertThat(p0.sent).hasSize(1);
        assertThat(state.ended()).isFalse();
    }

    @Test
    void aDisconnectFailsTheOthersOnceAndRefusesLaterJoins() throws Exception {
        FakePeer p0 = joined("a", 0, 3);
        FakePeer p1 = joined("b", 1, 3);

        state.disconnected(p1.member, "gone");
        state.disconnected(p0.member, "also gone");

        assertThat(p0.lastType()).isEqualTo(RendezvousProtocol.ERROR);
        assertThat(p0.lastReason()).isEqualTo("rank 1 left the rendezvous: gone");
        assertThat(p1.sent).hasSize(1); // it left: no error sent to it
        assertThat(ends).hasValue(1);
        assertThatThrownBy(() -> state.join(new FakePeer("c"), 2, 3))
                .hasMessageContaining("the rendezvous has failed: rank 1 left the rendezvous: gone");
    }

    @Test
    void aGoodbyeDuringAnOpenRoundFailsTheRendezvous() throws Exception {
        FakePeer p0 = joined("a", 0, 2);
        FakePeer p1 = joined("b", 1, 2);
        state.contribute(p0.member, 0, new byte[0]);

        state.bye(p1.member);

        assertThat(p0.lastReason()).contains("rank 1 left the rendezvous after 0 all-gather rounds while round 0"
                + " was under way (ranks [0] had contributed)");
    }

    @Test
    void aJoinAfterCompletionIsRefused() throws Exception {
        FakePeer p0 = joined("a", 0, 1);
        state.bye(p0.member);

        assertThatThrownBy(() -> state.join(new FakePeer("b"), 0, 1)).hasMessageContaining("the rendezvous is over");
    }
}
