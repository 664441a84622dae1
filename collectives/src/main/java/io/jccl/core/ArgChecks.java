package io.jccl.core;

import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;

import java.lang.foreign.MemorySegment;

/** Argument checks shared by the operations; each failure names the parameter and the value. */
final class ArgChecks {
    private ArgChecks() {
    }

    static JcclException invalid(String message) {
        return new JcclException(ErrorCode.INVALID_ARGUMENT, message);
    }

    static void type(DataType type) {
        if (type == null) {
            throw invalid("type must not be null");
        }
    }

    static void op(ReduceOp op, DataType type) {
        if (op == null) {
            throw invalid("op must not be null");
        }
        String reason = op.unsupportedReason(type);
        if (reason != null) {
            throw invalid("op " + op + " is not supported for " + type + ": " + reason);
        }
    }

    static void count(String name, long count) {
        if (count < 0) {
            throw invalid(name + " must not be negative, got " + count);
        }
    }

    static void rank(String name, int value, int size) {
        if (value < 0 || value >= size) {
            throw invalid(name + " " + value + " is out of range: the communicator has ranks 0 to " + (size - 1));
        }
    }

    /**
     * @param parameter  the count's parameter name, for the message
     * @param count      elements (per rank or block)
     * @param multiplier how many such blocks (the number of ranks, or 1)
     * @param type       element type
     * @return {@code count * multiplier * type.sizeBytes()}, or an error naming the parameter and its value
     */
    static long bytes(String parameter, long count, long multiplier, DataType type) {
        try {
            return Math.multiplyExact(Math.multiplyExact(count, multiplier), (long) type.sizeBytes());
        } catch (ArithmeticException e) {
            throw invalid(parameter + " " + count + (multiplier == 1 ? "" : " x " + multiplier + " ranks") + " x "
                    + type.sizeBytes() + "-byte " + type + " elements overflows a 64-bit byte count");
        }
    }

    /**
     * Checks a buffer the operation reads or writes ({@code bytes} may be 0, then null is fine).
     *
     * @param executor the thread that will work on it; null when the communicator is stepped by its caller, which
     *                 is then the calling thread
     */
    static void buffer(String name, MemorySegment seg, long bytes, boolean written, Thread executor) {
        if (seg == null) {
            if (bytes > 0) {
                throw invalid(name + " must not be null");
            }
            return;
        }
        if (!seg.scope().isAlive()) {
            throw invalid(name + " belongs to an arena that is already closed");
        }
        if (!seg.isAccessibleBy(executor != null ? executor : Thread.currentThread())) {
            throw invalid(name + " is confined to another thread (Arena.ofConfined); JCCL works on it from its own "
                    + "threads: use Arena.ofShared(), Arena.ofAuto(), Arena.global() or a heap segment");
        }
        if (seg.byteSize() < bytes) {
            throw invalid(name + " holds " + seg.byteSize() + " bytes but the operation needs " + bytes);
        }
        if (written && seg.isReadOnly() && bytes > 0) {
            throw invalid(name + " is read-only but the operation writes into it");
        }
    }

    /** Returned by {@link #distance} for segments that are not views of the same memory. */
    private static final long UNRELATED = Long.MIN_VALUE;

    /**
     * How far {@code b} starts after {@code a} when both view the same memory (native memory, or the same heap
     * array), else {@link #UNRELATED}. Heap views of one array that do not overlap count as unrelated, which
     * is all the callers need. {@link MemorySegment#heapBase()} is not used: it hides the array of read-only
     * views, so a read-only view of the receive buffer would escape the overlap checks.
     */
    private static long distance(MemorySegment a, MemorySegment b) {
        if (a.isNative() != b.isNative()) {
            return UNRELATED;
        }
        if (a.isNative()) {
            return b.address() - a.address();
        }
        if (a.asOverlappingSlice(b).isEmpty()) {
            return UNRELATED;
        }
        return b.address() - a.address();   // views of one array: addresses are offsets into it
    }

    /** True when both ranges are in the same memory and overlap. */
    static boolean overlaps(MemorySegment a, long aOffset, long aBytes, MemorySegment b, long bOffset, long bBytes) {
        if (a == null || b == null || aBytes == 0 || bBytes == 0) {
            return false;
        }
        long d = distance(a, b);
        if (d == UNRELATED) {
            return false;
        }
        long b0 = d + bOffset;   // in a's coordinates
        return aOffset < b0 + bBytes && b0 < aOffset + aBytes;
    }

    /** True when {@code a + aOffset} is the same memory location as {@code b + bOffset}. */
    static boolean sameStart(MemorySegment a, long aOffset, MemorySegment b, long bOffset) {
        if (a == null || b == null) {
            return false;
        }
        long d = distance(a, b);
        return d != UNRELATED && aOffset == d + bOffset;
    }

    /**
     * NCCL's in-place rule: the {@code inner} range lies at {@code outer + position}. Returns true for in place,
     * false for disjoint buffers, and throws for any other overlap.
     *
     * @param what       the operation, for the message
     * @param innerName  the parameter that must sit inside the other for in place ({@code send}, or {@code recv}
     *                   for reduce-scatter and scatter)
     * @param inner      that buffer
     * @param innerBytes bytes of it the operation uses
     * @param outerName  the other parameter
     * @param outer      the other buffer
     * @param outerBytes bytes of it the operation uses
     * @param position   byte offset of the in-place position in {@code outer}
     */
    static boolean inPlace(String what, String innerName, MemorySegment inner, long innerBytes, String outerName,
                           MemorySegment outer, long outerBytes, long position) {
        if (innerBytes == 0) {
            return false;
        }
        if (sameStart(inner, 0, outer, position)) {
            return true;
        }
        if (overlaps(inner, 0, innerBytes, outer, 0, outerBytes)) {
            throw invalid(what + ": " + innerName + " and " + outerName + " overlap but " + innerName
                    + " is not at the in-place position (" + outerName + " + " + position
                    + " bytes); use separate buffers or the exact in-place layout");
        }
        return false;
    }

    static void noOverlap(String what, MemorySegment send, long sendBytes, MemorySegment recv, long recvBytes) {
        if (overlaps(send, 0, sendBytes, recv, 0, recvBytes)) {
            throw invalid(what + " cannot run in place: send and recv overlap");
        }
    }
}
