package io.jccl.net.shm;

/**
 * Where everything lies in a rank's segment. All values are in the host's byte order (every process mapping a
 * segment runs on the same host); every field a peer writes is 8-byte aligned and read or written atomically.
 *
 * <pre>
 * segment = header (one page) | slot 0 | slot 1 | ... | slot M-1 | registered heap
 * slot    = control block (one page) | ring (ringBytes)
 * </pre>
 *
 * <h2>Header</h2>
 * Written once by the creator before anyone else can see the segment, except the doorbell line, the slot counter,
 * the listener mask and the box lines.
 * <pre>
 *   0 int64 magic "JCCLSHM1"      8 int32 version       12 int32 slot count M
 *  16 int64 ring bytes            24 int64 slot bytes   32 int64 offset of slot 0
 *  40 int64 heap offset           48 int64 heap bytes   56 int64 creator pid
 *  64 byte[16] token              80 int64 segment bytes
 * 128 int32 doorbell (futex word: bumped to wake the rank)   132 int32 waiters (threads asleep on it)
 * 192 int64 slots claimed so far (fetch-and-add by connecting peers)
 * 200 int64 listener mask (bit i: listener i is open)
 * 1024 byte[448] box lines (written by this rank only, read in place by its peers: {@link io.jccl.net.BoxPeer})
 * </pre>
 *
 * <h2>Slot control block</h2>
 * A slot carries one connection into this rank: the connecting peer (the sender) writes the ring, this rank (the
 * receiver) reads it. Each line has one writer.
 * <pre>
 * line 0, the connecting peer's offer (written before it publishes the state OFFERED):
 *   0 int64 state: FREE, CLAIMED, OFFERED, ACCEPTED, CANCELLED, REFUSED (compare-and-set by both sides)
 *   8 int32 listener id          12 int32 connecting rank
 *  16 int64 connecting pid       24 int64 its segment's descriptor   32 int64 its segment's bytes
 *  40 byte[16] its segment's token
 *  56 int64 address of a probe word in its memory     64 int64 the probe word's value
 *  72 int32 whether it allows cross-memory attach
 * line 2, the receiver's answer (before it publishes ACCEPTED):
 * 128 int32 large-message mode of the connection (MODE_CMA or MODE_RING)   132 int32 errno of a refused probe
 * line 3, the sender's close: 192 int64 records published before it closed, plus one (0 while open)
 * line 4, the receiver's progress: 256 int64 ring bytes consumed (head)   264 int64 descriptors finished (acks)
 * line 5: 320 int64 the receiver closed (1)
 * line 6: 384 int64 the receiver is copying from the sender's memory (1)
 * </pre>
 */
final class Layout {
    static final long PAGE = 4096;
    static final long LINE = 64;

    static final long MAGIC = 0x314D48534C43434AL;   // "JCCLSHM1" read little-endian
    static final int VERSION = 1;
    static final int TOKEN_BYTES = 16;

    static final long H_MAGIC = 0;
    static final long H_VERSION = 8;
    static final long H_SLOTS = 12;
    static final long H_RING_BYTES = 16;
    static final long H_SLOT_BYTES = 24;
    static final long H_SLOTS_OFFSET = 32;
    static final long H_HEAP_OFFSET = 40;
    static final long H_HEAP_BYTES = 48;
    static final long H_PID = 56;
    static final long H_TOKEN = 64;
    static final long H_SEGMENT_BYTES = 80;
    static final long H_DOORBELL = 128;
    static final long H_WAITERS = 132;
    static final long H_NEXT_SLOT = 192;
    static final long H_LISTENERS = 200;
    static final long H_BOX = 1024;
    static final long HEADER_BYTES = PAGE;

    static final long S_STATE = 0;
    static final long S_LISTENER = 8;
    static final long S_RANK = 12;
    static final long S_PID = 16;
    static final long S_SEGMENT_FD = 24;
    static final long S_SEGMENT_BYTES = 32;
    static final long S_SEGMENT_TOKEN = 40;
    static final long S_PROBE_ADDRESS = 56;
    static final long S_PROBE_VALUE = 64;
    static final long S_ALLOWS_CMA = 72;
    static final long S_MODE = 128;
    static final long S_MODE_ERRNO = 132;
    static final long S_SENDER_CLOSED = 192;
    static final long S_HEAD = 256;
    static final long S_ACKS = 264;
    static final long S_RECEIVER_CLOSED = 320;
    static final long S_COPYING = 384;
    static final long CONTROL_BYTES = PAGE;

    static final long STATE_FREE = 0;
    static final long STATE_CLAIMED = 1;
    static final long STATE_OFFERED = 2;
    static final long STATE_ACCEPTED = 3;
    static final long STATE_CANCELLED = 4;
    static final long STATE_REFUSED = 5;

    static final int MODE_RING = 1;
    static final int MODE_CMA = 2;

    /** Listener ids are bits of the header's listener mask; 0 is never used. */
    static final int MAX_LISTENERS = 63;
    /** Most slots a segment has: the connections into one rank. */
    static final int MAX_SLOTS = 4096;

    private Layout() {
    }

    /** @return bytes of one slot: its control block and its ring */
    static long slotBytes(long ringBytes) {
        return CONTROL_BYTES + ringBytes;
    }

    /** @return the segment's size for these parameters */
    static long segmentBytes(int slots, long ringBytes, long heapBytes) {
        return heapOffset(slots, ringBytes) + heapBytes;
    }

    /** @return where the registered heap starts */
    static long heapOffset(int slots, long ringBytes) {
        return HEADER_BYTES + slots * slotBytes(ringBytes);
    }

    /** @return how many slots a rank of a communicator of {@code size} ranks gets: a data and a control connection
     *          from every peer, and spares for attempts that were cancelled */
    static int slotsFor(int size) {
        return (int) Math.min(MAX_SLOTS, 2L * Math.max(1, size) + 16);
    }
}
