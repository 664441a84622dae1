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

    /** @return {@code count * elements * sizeBytes}, or an error naming what overflowed */
    static long bytes(String what, long count, long multiplier, DataType type) {
        try {
            return Math.multiplyExact(Math.multiplyExact(count, multiplier), (long) type.sizeBytes());
        } catch (ArithmeticException e) {
            throw invalid(what + " of " + count + (multiplier == 1 ? "" : " x " + multiplier) + " elements of "
                    + type + " overflows a 64-bit byte count");
        }
    }

    /** Checks a buffer the operation reads or writes ({@code bytes} may be 0, then null is fine). */
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
        if (!seg.isAccessibleBy(executor)) {
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

    /** Where a segment's memory starts: the heap array (or null for native) and the address/offset. */
    private static Object base(MemorySegment s) {
        return s.heapBase().orElse(null);
    }

    /** True when both ranges are in the same memory and overlap. */
    static boolean overlaps(MemorySegment a, long aOffset, long aBytes, MemorySegment b, long bOffset, long bBytes) {
        if (a == null || b == null || aBytes == 0 || bBytes == 0 || base(a) != base(b)) {
            return false;
        }
        long a0 = a.address() + aOffset;
        long b0 = b.address() + bOffset;
        return a0 < b0 + bBytes && b0 < a0 + aBytes;
    }

    /** True when {@code a + aOffset} is the same memory location as {@code b + bOffset}. */
    static boolean sameStart(MemorySegment a, long aOffset, MemorySegment b, long bOffset) {
        return a != null && b != null && base(a) == base(b) && a.address() + aOffset == b.address() + bOffset;
    }

    /**
     * NCCL's in-place rule: the send range lies at {@code recv + sendPosition}. Returns true for in place,
     * false for disjoint buffers, and throws for any other overlap.
     */
    static boolean inPlace(String what, MemorySegment send, long sendBytes, MemorySegment recv, long recvBytes,
                           long sendPositionInRecv) {
        if (sendBytes == 0) {
            return false;
        }
        if (sameStart(send, 0, recv, sendPositionInRecv)) {
            return true;
        }
        if (overlaps(send, 0, sendBytes, recv, 0, recvBytes)) {
            throw invalid(what + ": send and recv overlap but send is not at the in-place position (recv + "
                    + sendPositionInRecv + " bytes); use separate buffers or the exact in-place layout");
        }
        return false;
    }

    static void noOverlap(String what, MemorySegment send, long sendBytes, MemorySegment recv, long recvBytes) {
        if (overlaps(send, 0, sendBytes, recv, 0, recvBytes)) {
            throw invalid(what + " cannot run in place: send and recv overlap");
        }
    }
}
