package io.jccl.bootstrap;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The rules of one rendezvous, without sockets: who joined, the all-gather rounds, goodbyes and failure. Every
 * method takes the lock, so the frames it queues for the members are ordered consistently.
 */
final class RendezvousState {
    /** A connection as the rules see it. */
    interface Peer {
        /** @return where the connection comes from, for messages */
        String remote();

        /** Queues a frame; @return false when this peer has too much queued already (it is not reading) */
        boolean send(Outbound item);

        /** Sends what is queued, then closes the connection; idempotent. */
        void finish();
    }

    /** A rank that has joined. */
    static final class Member {
        final int rank;
        final Peer peer;
        boolean left;

        Member(int rank, Peer peer) {
            this.rank = rank;
            this.peer = peer;
        }
    }

    private enum Phase { OPEN, COMPLETE, FAILED }

    private static final Logger LOG = JcclLog.logger(Subsystem.BOOTSTRAP, RendezvousState.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final String where;
    private final Runnable onEnd;
    private Phase phase = Phase.OPEN;
    private String failure;
    private int size = -1;
    private Member first;
    private final Map<Integer, Member> members = new HashMap<>();
    private int round;
    private final Map<Integer, byte[]> contributions = new HashMap<>();
    private Member firstToLeave;
    private int roundsWhenFirstLeft;
    private int goodbyes;

    /**
     * @param where printable address of the rendezvous, for messages
     * @param onEnd called once, under the lock, when the rendezvous completes or fails
     */
    RendezvousState(String where, Runnable onEnd) {
        this.where = where;
        this.onEnd = onEnd;
    }

    /**
     * Admits a rank, or says why not; on success WELCOME is queued to the peer.
     *
     * @throws RefusedException with the reason to send the client
     */
    Member join(Peer peer, int rank, int size) throws RefusedException {
        lock.lock();
        try {
            if (phase == Phase.COMPLETE) {
                throw new RefusedException("the rendezvous is over: all " + this.size + " ranks have finished"
                        + " (a unique id serves one communicator initialisation)");
            }
            if (phase == Phase.FAILED) {
                throw new RefusedException("the rendezvous has failed: " + failure);
            }
            if (size < 1) {
                throw new RefusedException("size " + size + " is not valid (it must be at least 1)");
            }
            if (this.size >= 0 && size != this.size) {
                throw new RefusedException("size " + size + " differs from size " + this.size + " that rank "
                        + first.rank + " (from " + first.peer.remote() + ") joined with");
            }
            if (rank < 0 || rank >= size) {
                throw new RefusedException("rank " + rank + " is out of range for size " + size + " (ranks are 0.."
                        + (size - 1) + ")");
            }
            Member existing = members.get(rank);
            if (existing != null) {
                throw new RefusedException("rank " + rank + " already joined from " + existing.peer.remote());
            }
            Member member = new Member(rank, peer);
            if (this.size < 0) {
                this.size = size;
                first = member;
            }
            members.put(rank, member);
            peer.send(new Outbound.Single(RendezvousProtocol.WELCOME));
            LOG.debug("rendezvous {}: rank {} of {} joined from {} ({} joined)", where, rank, size, peer.remote(),
                    members.size());
            if (members.size() == size) {
                LOG.debug("rendezvous {}: all {} ranks joined", where, size);
            }
            return member;
        } finally {
            lock.unlock();
        }
    }

    /** A member's contribution to an all-gather round. */
    void contribute(Member member, int contributedRound, byte[] data) {
        lock.lock();
        try {
            if (phase != Phase.OPEN) {
                return;
            }
            if (member.left) {
                misbehavedLocked(member, "it contributed after saying goodbye");
                return;
            }
            if (contributedRound != round) {
                misbehavedLocked(member, "it contributed to round " + contributedRound
                        + " while the rendezvous is at round " + round);
                return;
            }
            if (contributions.containsKey(member.rank)) {
                misbehavedLocked(member, "it contributed twice to round " + round);
                return;
            }
            if (firstToLeave != null) {
                failLocked(leftMessage(firstToLeave) + " after " + roundsWhenFirstLeft + " all-gather rounds, but rank "
                        + member.rank + " started round " + round);
                return;
            }
            contributions.put(member.rank, data);
            if (contributions.size() < size) {
                return;
            }
            byte[][] table = new byte[size][];
            for (int r = 0; r < size; r++) {
                table[r] = contributions.get(r);
            }
            Outbound.Table item = new Outbound.Table(round, table);
            LOG.debug("rendezvous {}: round {} complete", where, round);
            round++;
            contributions.clear();
            List<Member> stuck = new ArrayList<>();
            for (Member m : members.values()) {
                if (!m.peer.send(item)) {
                    stuck.add(m);
                }
            }
            if (!stuck.isEmpty()) {
                misbehavedLocked(stuck.getFirst(), "it is not reading what the rendezvous sends");
            }
        } finally {
            lock.unlock();
        }
    }

    /** A member asks which ranks the round it waits for still lacks. */
    void query(Member member, int queriedRound) {
        lock.lock();
        try {
            if (phase != Phase.OPEN) {
                return;
            }
            if (queriedRound > round || queriedRound < 0) {
                misbehavedLocked(member, "it asked about round " + queriedRound + " while the rendezvous is at round "
                        + round);
                return;
            }
            int missing = queriedRound < round ? 0 : size - contributions.size();
            List<Integer> listed = new ArrayList<>();
            for (int r = 0; r < size && listed.size() < Math.min(missing, RendezvousProtocol.MAX_LISTED_RANKS); r++) {
                if (!contributions.containsKey(r)) {
                    listed.add(r);
                }
            }
            int[] body = new int[2 + listed.size()];
            body[0] = queriedRound;
            body[1] = missing;
            for (int i = 0; i < listed.size(); i++) {
                body[2 + i] = listed.get(i);
            }
            if (!member.peer.send(new Outbound.Single(RendezvousProtocol.STATUS, RendezvousProtocol.ints(body)))) {
                misbehavedLocked(member, "it is not reading what the rendezvous sends");
            }
        } finally {
            lock.unlock();
        }
    }

    /** A member leaves in good order. */
    void bye(Member member) {
        lock.lock();
        try {
            if (phase != Phase.OPEN || member.left) {
                return;
            }
            member.left = true;
            member.peer.finish();
            goodbyes++;
            if (firstToLeave == null) {
                firstToLeave = member;
                roundsWhenFirstLeft = round;
            }
            if (!contributions.isEmpty()) {
                failLocked(leftMessage(member) + " after " + round + " all-gather rounds while round " + round
                        + " was under way (ranks " + contributions.keySet().stream().sorted().toList()
                        + " had contributed)");
                return;
            }
            if (goodbyes == size) {
                phase = Phase.COMPLETE;
                LOG.debug("rendezvous {} complete: {} ranks, {} all-gather rounds", where, size, round);
                onEnd.run();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A member's connection ended; unless it had said goodbye, the rendezvous fails. */
    void disconnected(Member member, String why) {
        lock.lock();
        try {
            if (phase != Phase.OPEN || member.left) {
                return;
            }
            member.left = true;
            failLocked(leftMessage(member) + ": " + why);
        } finally {
            lock.unlock();
        }
    }

    /** A member broke the protocol; the rendezvous fails. */
    void misbehaved(Member member, String why) {
        lock.lock();
        try {
            misbehavedLocked(member, why);
        } finally {
            lock.unlock();
        }
    }

    /** Fails the rendezvous from outside, e.g. when its owner closes it. */
    void abort(String why) {
        lock.lock();
        try {
            if (phase == Phase.OPEN) {
                LOG.info("rendezvous {}: {}", where, why);
            }
            failLocked(why, false);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether the rendezvous has completed or failed */
    boolean ended() {
        lock.lock();
        try {
            return phase != Phase.OPEN;
        } finally {
            lock.unlock();
        }
    }

    private void misbehavedLocked(Member member, String why) {
        if (phase != Phase.OPEN) {
            return;
        }
        failLocked("rank " + member.rank + " was dropped from the rendezvous: " + why);
    }

    private static String leftMessage(Member member) {
        return "rank " + member.rank + " left the rendezvous";
    }

    private void failLocked(String reason) {
        failLocked(reason, true);
    }

    private void failLocked(String reason, boolean warn) {
        if (phase != Phase.OPEN) {
            return;
        }
        phase = Phase.FAILED;
        failure = reason;
        if (warn) {
            LOG.warn("rendezvous {} failed: {}", where, reason);
        }
        byte[] body = RendezvousProtocol.reason(reason);
        for (Member m : members.values()) {
            if (!m.left) {
                m.peer.send(new Outbound.Single(RendezvousProtocol.ERROR, body));
            }
            m.peer.finish();
        }
        onEnd.run();
    }
}
