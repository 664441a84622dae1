package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;

import static io.jccl.core.ArgChecks.buffer;
import static io.jccl.core.ArgChecks.bytes;

/**
 * The argument rules of every data operation, one row each: what the count is called, how large each buffer must
 * be, which rank argument it takes, which buffers only the root uses, and how its buffers may overlap. The
 * {@link CommImpl} checks every call with its row ({@link #check}), host and device buffers alike, before anything
 * is queued; each failure names the parameter and the value (INVALID_ARGUMENT).
 */
enum OpRule {
    // Each row: kind, API name, count parameter, send size, recv size, rank parameter, reduces, overlap rule.
    ALL_REDUCE(OpKind.ALL_REDUCE, "allReduce", "count", Size.COUNT, Size.COUNT, null, true, Overlap.SEND_AT_RECV),
    BROADCAST(OpKind.BROADCAST, "broadcast", "count", Size.COUNT_AT_ROOT, Size.COUNT, "root", false,
            Overlap.SEND_AT_RECV),
    REDUCE(OpKind.REDUCE, "reduce", "count", Size.COUNT, Size.COUNT_AT_ROOT, "root", true, Overlap.SEND_AT_RECV),
    ALL_GATHER(OpKind.ALL_GATHER, "allGather", "sendCount", Size.COUNT, Size.RANKS, null, false,
            Overlap.SEND_AT_RECV_BLOCK),
    REDUCE_SCATTER(OpKind.REDUCE_SCATTER, "reduceScatter", "recvCount", Size.RANKS, Size.COUNT, null, true,
            Overlap.RECV_AT_SEND_BLOCK),
    ALL_TO_ALL(OpKind.ALL_TO_ALL, "allToAll", "count", Size.RANKS, Size.RANKS, null, false, Overlap.NONE),
    /** Sizes from the per-peer counts and displacements ({@link #extent}). */
    ALL_TO_ALLV(OpKind.ALL_TO_ALLV, "allToAllv", null, Size.COUNTS, Size.COUNTS, null, false, Overlap.NONE),
    GATHER(OpKind.GATHER, "gather", "sendCount", Size.COUNT, Size.RANKS_AT_ROOT, "root", false,
            Overlap.SEND_AT_RECV_BLOCK),
    SCATTER(OpKind.SCATTER, "scatter", "recvCount", Size.RANKS_AT_ROOT, Size.COUNT, "root", false,
            Overlap.RECV_AT_SEND_BLOCK),
    /** Its one buffer, {@code buffer}, is read. */
    SEND(OpKind.P2P, "send", "count", Size.COUNT, Size.NONE, "peer", false, Overlap.UNCHECKED),
    /** Its one buffer, {@code buffer}, is written. */
    RECV(OpKind.P2P, "recv", "count", Size.NONE, Size.COUNT, "peer", false, Overlap.UNCHECKED);

    /** How many bytes a buffer must hold, and on which ranks. */
    enum Size {
        /** The operation has no such buffer. */
        NONE,
        /** count elements. */
        COUNT,
        /** count elements, on the root only (null is fine elsewhere; it is not used). */
        COUNT_AT_ROOT,
        /** count elements per rank. */
        RANKS,
        /** count elements per rank, on the root only. */
        RANKS_AT_ROOT,
        /** As far as the last non-empty block reaches (all-to-allv). */
        COUNTS
    }

    /** NCCL's in-place rules: where the send buffer may sit in the receive buffer, or the other way round. */
    enum Overlap {
        /** In place when {@code send == recv}. */
        SEND_AT_RECV,
        /** In place when send is block {@code rank} of recv (its size each). */
        SEND_AT_RECV_BLOCK,
        /** In place when recv is block {@code rank} of send (its size each). */
        RECV_AT_SEND_BLOCK,
        /** No in-place form: send and recv must not overlap. */
        NONE,
        /** One buffer only. */
        UNCHECKED
    }

    final OpKind kind;
    final String apiName;
    /** The count parameter's name, for messages. */
    final String countName;
    final Size send;
    final Size recv;
    /** The rank parameter ({@code root}, {@code peer}), or null for none. */
    final String rankName;
    final boolean reduces;
    final Overlap overlap;
    final String sendName;
    final String recvName;

    OpRule(OpKind kind, String apiName, String countName, Size send, Size recv, String rankName, boolean reduces,
           Overlap overlap) {
        this.kind = kind;
        this.apiName = apiName;
        this.countName = countName;
        this.send = send;
        this.recv = recv;
        this.rankName = rankName;
        this.reduces = reduces;
        this.overlap = overlap;
        this.sendName = recv == Size.NONE ? "buffer" : "send";
        this.recvName = send == Size.NONE ? "buffer" : "recv";
    }

    /** @return whether a rank uses the send buffer (a non-root of broadcast and scatter does not) */
    boolean usesSend(int rank, int root) {
        return uses(send, rank, root);
    }

    /** @return whether a rank uses the receive buffer (a non-root of reduce and gather does not) */
    boolean usesRecv(int rank, int root) {
        return uses(recv, rank, root);
    }

    private static boolean uses(Size size, int rank, int root) {
        return switch (size) {
            case NONE -> false;
            case COUNT_AT_ROOT, RANKS_AT_ROOT -> rank == root;
            default -> true;
        };
    }

    /**
     * Device and host memory are not mixed in one call: staging copies whole buffers of one domain.
     *
     * @throws io.jccl.JcclException INVALID_ARGUMENT naming both buffers when one is a {@link DeviceBuffer} and the
     *                               other host memory
     */
    void checkSameMemory(Buffer sendBuffer, Buffer recvBuffer) {
        if (sendBuffer != null && recvBuffer != null
                && (sendBuffer instanceof DeviceBuffer) != (recvBuffer instanceof DeviceBuffer)) {
            throw ArgChecks.invalid(apiName + ": " + sendName + " is " + describe(sendBuffer) + " but " + recvName
                    + " is " + describe(recvBuffer) + "; pass both as DeviceBuffers or both as host memory");
        }
    }

    private static String describe(Buffer b) {
        return b instanceof DeviceBuffer d ? "a " + d.domainName() + " device buffer"
                : "host memory (" + ((HostBuffer) b).source() + ")";
    }

    /**
     * @param b    a send or receive buffer that is not a {@link DeviceBuffer}, or null
     * @param name its parameter name
     * @return its memory, after checking that an array's element size fits {@code type}
     */
    static MemorySegment host(Buffer b, String name, DataType type) {
        if (b == null) {
            return null;
        }
        HostBuffer h = (HostBuffer) b;
        int elementBytes = h.elementBytes();
        if (elementBytes != 0 && elementBytes != type.sizeBytes()) {
            throw ArgChecks.invalid(name + " is a " + h.source() + " (" + elementBytes + "-byte elements) but type "
                    + type + " has " + type.sizeBytes() + "-byte elements; use a matching array, a byte[] or a "
                    + "MemorySegment");
        }
        return h.segment();
    }

    /**
     * Checks a count-based call (every row but {@link #ALL_TO_ALLV}); {@code type} was checked already.
     *
     * @param executor the thread that will work on the buffers (null: the caller steps the communicator)
     * @return whether the call runs in place
     */
    boolean check(int rank, int size, Thread executor, MemorySegment sendSegment, MemorySegment recvSegment,
                  long count, DataType type, ReduceOp op, int root) {
        ArgChecks.count(countName, count);
        if (reduces) {
            ArgChecks.op(op, type);
        }
        if (rankName != null) {
            ArgChecks.rank(rankName, root, size);
        }
        long sendBytes = bufferBytes(send, count, size, type);
        long recvBytes = bufferBytes(recv, count, size, type);
        return checkBuffers(rank, root, executor, sendSegment, sendBytes, recvSegment, recvBytes);
    }

    /**
     * @param request a request this rule checked
     * @param size    the communicator's ranks
     * @return the bytes of the send buffer the request uses (0 when the operation has none)
     */
    long sendBytes(OpRequest request, int size) {
        return send == Size.COUNTS ? extent("send", null, request.sendCounts, request.sendDispls, request.dataType)
                : bufferBytes(send, request.count, size, request.dataType);
    }

    /**
     * @param request a request this rule checked
     * @param size    the communicator's ranks
     * @return the bytes of the receive buffer the request uses (0 when the operation has none)
     */
    long recvBytes(OpRequest request, int size) {
        return recv == Size.COUNTS ? extent("recv", null, request.recvCounts, request.recvDispls, request.dataType)
                : bufferBytes(recv, request.count, size, request.dataType);
    }

    /** @return the bytes a buffer of a count-based size holds ({@link Size#COUNTS} has {@link #extent} instead) */
    private long bufferBytes(Size buffer, long count, int ranks, DataType type) {
        if (buffer == Size.NONE) {
            return 0;
        }
        int blocks = buffer == Size.RANKS || buffer == Size.RANKS_AT_ROOT ? ranks : 1;
        return bytes(countName, count, blocks, type);
    }

    /**
     * Checks the buffers a rank uses against the bytes the call needs, then the overlap rule.
     *
     * @return whether the call runs in place
     */
    boolean checkBuffers(int rank, int root, Thread executor, MemorySegment sendSegment, long sendBytes,
                         MemorySegment recvSegment, long recvBytes) {
        boolean usesSend = usesSend(rank, root);
        boolean usesRecv = usesRecv(rank, root);
        if (usesSend) {
            buffer(sendName, sendSegment, sendBytes, false, executor);
        }
        if (usesRecv) {
            buffer(recvName, recvSegment, recvBytes, true, executor);
        }
        if (!usesSend || !usesRecv) {
            return false;
        }
        return switch (overlap) {
            case SEND_AT_RECV -> ArgChecks.inPlace(apiName, "send", sendSegment, sendBytes, "recv", recvSegment,
                    recvBytes, 0);
            case SEND_AT_RECV_BLOCK -> ArgChecks.inPlace(apiName, "send", sendSegment, sendBytes, "recv",
                    recvSegment, recvBytes, rank * sendBytes);
            case RECV_AT_SEND_BLOCK -> ArgChecks.inPlace(apiName, "recv", recvSegment, recvBytes, "send",
                    sendSegment, sendBytes, rank * recvBytes);
            case NONE -> {
                ArgChecks.noOverlap(apiName, sendSegment, sendBytes, recvSegment, recvBytes);
                yield false;
            }
            case UNCHECKED -> false;
        };
    }

    /**
     * All-to-allv's per-peer counts or displacements: one entry per rank, none negative.
     *
     * @return a copy (the caller may change its array once the call returns)
     */
    static long[] countsArray(String name, long[] values, int size) {
        if (values == null) {
            throw ArgChecks.invalid(name + " must not be null");
        }
        if (values.length != size) {
            throw ArgChecks.invalid(name + " has " + values.length + " entries but the communicator has " + size
                    + " ranks");
        }
        for (int i = 0; i < size; i++) {
            if (values[i] < 0) {
                throw ArgChecks.invalid(name + "[" + i + "] must not be negative, got " + values[i]);
            }
        }
        return values.clone();
    }

    /**
     * All-to-allv's {@link Size#COUNTS}: the bytes of {@code buffer} the blocks reach (empty blocks reach nothing,
     * whatever their displacement); fails naming the block that does not fit when the buffer is too small.
     */
    static long extent(String name, MemorySegment buffer, long[] counts, long[] displs, DataType type) {
        long end = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] == 0) {
                continue;
            }
            String block = name + "Displs[" + i + "] " + displs[i] + " + " + name + "Counts[" + i + "] " + counts[i];
            long last;
            try {
                last = Math.addExact(displs[i], counts[i]);
            } catch (ArithmeticException e) {
                throw ArgChecks.invalid(block + " overflows");
            }
            long blockEnd = bytes(block, last, 1, type);
            if (buffer != null && buffer.byteSize() < blockEnd) {
                throw ArgChecks.invalid(name + " holds " + buffer.byteSize() + " bytes but block " + i + " ("
                        + block + " elements of " + type + ") ends at byte " + blockEnd);
            }
            end = Math.max(end, blockEnd);
        }
        return end;
    }
}
