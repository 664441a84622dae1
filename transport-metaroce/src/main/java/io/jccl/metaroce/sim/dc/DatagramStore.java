package io.jccl.metaroce.sim.dc;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bytes of the datagrams in flight on a {@link ClosFabric}, for transports that send real frames (the MetaRoCE
 * engine). A datagram is a handle: its own bytes (a gathered DATA packet's header and trailer, or a whole frame) in a
 * pooled native slot, and for a gathered one the address and length of its payload, left where the sender keeps it.
 * The payload is read again when the datagram is delivered ({@link #assemble}), as a NIC reads host memory at DMA
 * time: a packet in a queue costs its headers, not its payload, so thousands of hosts fit in memory. Nothing is
 * allocated per datagram once the pools have grown.
 */
public final class DatagramStore {
    /** Bytes of a small slot: any control frame, or a gathered DATA packet's header and trailer. */
    static final int SMALL_SLOT = 128;
    private static final int SLOTS_PER_CHUNK = 4096;

    private final Arena arena = Arena.ofAuto();
    private final List<UnsafeBuffer> chunks = new ArrayList<>();
    private final List<MemorySegment> chunkSegments = new ArrayList<>();
    private final int bigSlotBytes;
    private final List<byte[]> big = new ArrayList<>();
    private int[] freeBig = new int[16];
    private int freeBigCount;

    // Per handle: slot (small: index; big: -1 - index), own bytes, payload address and length, trailer length.
    private int[] slot = new int[1024];
    private int[] ownBytes = new int[1024];
    private int[] trailerBytes = new int[1024];
    private long[] payloadAddress = new long[1024];
    private int[] payloadBytes = new int[1024];
    private int[] freeHandles = new int[1024];
    private int freeHandleCount;
    private int handles;
    private int[] freeSmall = new int[0];
    private int freeSmallCount;
    private int smallSlots;

    private final UnsafeBuffer payloadView = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer scratch;

    /** @param maxDatagramBytes the longest frame any transport here sends */
    DatagramStore(int maxDatagramBytes) {
        this.bigSlotBytes = maxDatagramBytes;
        MemorySegment s = arena.allocate(maxDatagramBytes, 64);   // the arena (a field) keeps it alive
        this.scratch = new UnsafeBuffer(s.address(), (int) s.byteSize());
    }

    /** @return a handle with a small slot for up to {@link #SMALL_SLOT} bytes of its own, written by the caller */
    int claimSmall() {
        int h = newHandle();
        if (freeSmallCount == 0) {
            MemorySegment chunk = arena.allocate((long) SMALL_SLOT * SLOTS_PER_CHUNK, 64);
            chunkSegments.add(chunk);
            chunks.add(new UnsafeBuffer(chunk.address(), (int) chunk.byteSize()));
            if (freeSmall.length < smallSlots + SLOTS_PER_CHUNK) {
                freeSmall = Arrays.copyOf(freeSmall, smallSlots + SLOTS_PER_CHUNK);
            }
            for (int i = SLOTS_PER_CHUNK - 1; i >= 0; i--) {
                freeSmall[freeSmallCount++] = smallSlots + i;
            }
            smallSlots += SLOTS_PER_CHUNK;
        }
        slot[h] = freeSmall[--freeSmallCount];
        ownBytes[h] = 0;
        trailerBytes[h] = 0;
        payloadAddress[h] = 0;
        payloadBytes[h] = 0;
        return h;
    }

    /** @return the buffer a small handle's slot is in */
    MutableDirectBuffer smallBuffer(int h) {
        return chunks.get(slot[h] / SLOTS_PER_CHUNK);
    }

    /** @return the same memory as a segment */
    MemorySegment smallSegment(int h) {
        return chunkSegments.get(slot[h] / SLOTS_PER_CHUNK);
    }

    /** @return where a small handle's slot starts in {@link #smallBuffer} */
    int smallOffset(int h) {
        return (slot[h] % SLOTS_PER_CHUNK) * SMALL_SLOT;
    }

    /** A small handle holds a whole frame of {@code length} bytes. */
    void commitWhole(int h, int length) {
        ownBytes[h] = length;
    }

    /** A small handle holds a header and a trailer; the payload between them stays at {@code address}. */
    void commitGathered(int h, int headerLength, long address, int payloadLength, int trailerLength) {
        ownBytes[h] = headerLength + trailerLength;
        trailerBytes[h] = trailerLength;
        payloadAddress[h] = address;
        payloadBytes[h] = payloadLength;
    }

    /** @return a handle holding a copy of {@code length} bytes of {@code buffer} */
    int copyOf(DirectBuffer buffer, int offset, int length) {
        if (length <= SMALL_SLOT) {
            int h = claimSmall();
            smallBuffer(h).putBytes(smallOffset(h), buffer, offset, length);
            ownBytes[h] = length;
            return h;
        }
        if (length > bigSlotBytes) {
            throw new IllegalArgumentException("a datagram of " + length + " bytes, longer than " + bigSlotBytes);
        }
        int h = newHandle();
        int b;
        if (freeBigCount > 0) {
            b = freeBig[--freeBigCount];
        } else {
            b = big.size();
            big.add(new byte[bigSlotBytes]);
        }
        buffer.getBytes(offset, big.get(b), 0, length);
        slot[h] = -1 - b;
        ownBytes[h] = length;
        trailerBytes[h] = 0;
        payloadAddress[h] = 0;
        payloadBytes[h] = 0;
        return h;
    }

    /** @return the frame's length on the wire (UDP payload) */
    int length(int h) {
        return ownBytes[h] + payloadBytes[h];
    }

    /** @return the frame's first byte (its type is at {@code HeaderFlyweight.TYPE_FIELD_OFFSET}) */
    int byteAt(int h, int index) {
        return slot[h] >= 0 ? smallBuffer(h).getByte(smallOffset(h) + index) : big.get(-1 - slot[h])[index];
    }

    /** @return the whole frame, contiguous, in a scratch buffer valid until the next call */
    UnsafeBuffer assemble(int h) {
        int own = ownBytes[h];
        if (slot[h] < 0) {
            scratch.putBytes(0, big.get(-1 - slot[h]), 0, own);
            return scratch;
        }
        MutableDirectBuffer from = smallBuffer(h);
        int at = smallOffset(h);
        int payload = payloadBytes[h];
        if (payload == 0) {
            scratch.putBytes(0, from, at, own);
            return scratch;
        }
        int header = own - trailerBytes[h];
        scratch.putBytes(0, from, at, header);
        payloadView.wrap(payloadAddress[h], payload);
        scratch.putBytes(header, payloadView, 0, payload);
        scratch.putBytes(header + payload, from, at + header, trailerBytes[h]);
        return scratch;
    }

    /** Frees a handle and its slot. */
    void free(int h) {
        int s = slot[h];
        if (s >= 0) {
            freeSmall[freeSmallCount++] = s;
        } else {
            if (freeBigCount == freeBig.length) {
                freeBig = Arrays.copyOf(freeBig, freeBigCount * 2);
            }
            freeBig[freeBigCount++] = -1 - s;
        }
        if (freeHandleCount == freeHandles.length) {
            freeHandles = Arrays.copyOf(freeHandles, freeHandleCount * 2);
        }
        freeHandles[freeHandleCount++] = h;
    }

    private int newHandle() {
        if (freeHandleCount > 0) {
            return freeHandles[--freeHandleCount];
        }
        if (handles == slot.length) {
            int n = handles * 2;
            slot = Arrays.copyOf(slot, n);
            ownBytes = Arrays.copyOf(ownBytes, n);
            trailerBytes = Arrays.copyOf(trailerBytes, n);
            payloadAddress = Arrays.copyOf(payloadAddress, n);
            payloadBytes = Arrays.copyOf(payloadBytes, n);
        }
        return handles++;
    }
}
