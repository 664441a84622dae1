package io.jccl.core;

import io.jccl.net.NetRequest;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Sends that were posted but have not completed. Steps move on right after posting; this table polls them,
 * releases staging when they finish, and answers whether a memory range is still being read (so nothing is
 * written there until the send is done). Arrays grow only when a plan needs more than ever before.
 */
final class SendTracker {
    private NetRequest[] requests = new NetRequest[16];
    private int[] slots = new int[16];
    private int[] peers = new int[16];
    private MemorySegment[] buffers = new MemorySegment[16];
    private long[] offsets = new long[16];
    private long[] lengths = new long[16];
    private int size;

    void add(NetRequest request, int slot, int peer, MemorySegment buffer, long offset, long length) {
        if (size == requests.length) {
            int n = size * 2;
            requests = Arrays.copyOf(requests, n);
            slots = Arrays.copyOf(slots, n);
            peers = Arrays.copyOf(peers, n);
            buffers = Arrays.copyOf(buffers, n);
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
        }
        requests[size] = request;
        slots[size] = slot;
        peers[size] = peer;
        buffers[size] = buffer;
        offsets[size] = offset;
        lengths[size] = length;
        size++;
    }

    /**
     * Tests every pending send.
     *
     * @param staging where finished sends return their staging references
     * @return true when at least one completed
     * @throws io.jccl.net.NetException from the transport; {@link #failedPeer()} says which peer
     */
    boolean poll(StagingPool staging) {
        boolean progressed = false;
        for (int i = 0; i < size; ) {
            failedPeer = peers[i];
            if (requests[i].test() != NetRequest.NOT_DONE) {
                if (slots[i] >= 0) {
                    staging.release(slots[i]);
                }
                removeAt(i);
                progressed = true;
            } else {
                i++;
            }
        }
        failedPeer = -1;
        return progressed;
    }

    private int failedPeer = -1;

    /** @return the peer whose send threw during the last {@link #poll}, or -1 */
    int failedPeer() {
        return failedPeer;
    }

    private void removeAt(int i) {
        int last = size - 1;
        requests[i] = requests[last];
        slots[i] = slots[last];
        peers[i] = peers[last];
        buffers[i] = buffers[last];
        offsets[i] = offsets[last];
        lengths[i] = lengths[last];
        requests[last] = null;
        buffers[last] = null;
        size = last;
    }

    /** @return true when a pending send reads memory overlapping the range */
    boolean reads(MemorySegment buffer, long offset, long length) {
        for (int i = 0; i < size; i++) {
            if (ArgChecks.overlaps(buffers[i], offsets[i], lengths[i], buffer, offset, length)) {
                return true;
            }
        }
        return false;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the peers of pending sends, for a timeout message */
    String pendingPeers() {
        java.util.TreeSet<Integer> set = new java.util.TreeSet<>();
        for (int i = 0; i < size; i++) {
            set.add(peers[i]);
        }
        return set.toString();
    }

    /** Drops everything (after a failure; the connections are being closed). */
    void clear() {
        Arrays.fill(requests, 0, size, null);
        Arrays.fill(buffers, 0, size, null);
        size = 0;
    }
}
