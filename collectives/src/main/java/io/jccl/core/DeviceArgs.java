package io.jccl.core;

import io.jccl.DeviceBuffer;
import io.jccl.ErrorCode;
import io.jccl.HostStaging;
import io.jccl.JcclException;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The {@link DeviceBuffer}s of one operation and their staging through host memory.
 *
 * <p>At issue time the communicator checks device buffers with the same code as segments: each buffer stands in
 * as a segment, its host view when host code can address it, otherwise a <em>shadow</em> — a segment at the
 * buffer's device address and size, which the checks use for sizes, overlap and the in-place layout and which
 * nothing ever reads or writes. Buffers with host views then run as plain segment operations; only the others are
 * staged, and their shadows never reach the queue ({@link #attach} clears them from the request).
 *
 * <p>When the operation starts, the executor calls {@link #stageIn}: host memory is taken from each staged
 * buffer's {@link HostStaging}, the input is copied into it, and the request's segments point at it. An in-place
 * call stages the outer buffer once and uses a slice of it for the inner one, so the host operation is in place
 * too. After the operation {@link #stageOut} copies the output back, and {@link #release} returns the host memory
 * whatever happened. All of that runs on the executor thread: the copies see earlier operations' results (issue
 * order), the caller never waits for a device, and staging is only held by the operation that runs.
 */
final class DeviceArgs {
    /** The operation's argument rules, which say how many bytes of each buffer it uses. */
    private final OpRule rule;
    private final DeviceBuffer sendBuffer;
    private final DeviceBuffer recvBuffer;
    private final MemorySegment sendSegment;
    private final MemorySegment recvSegment;

    // Set by attach (issuing thread, before the request is queued); the rest by the executor thread only.
    private boolean stageSend;
    private boolean stageRecv;
    private long sendBytes;
    private long recvBytes;
    private OpRequest op;
    private HostStaging sendStaging;
    private MemorySegment sendLease;
    private HostStaging recvStaging;
    private MemorySegment recvLease;

    private DeviceArgs(OpRule rule, DeviceBuffer sendBuffer, DeviceBuffer recvBuffer) {
        this.rule = rule;
        this.sendBuffer = sendBuffer;
        this.recvBuffer = recvBuffer;
        this.sendSegment = standIn("send", sendBuffer);
        this.recvSegment = standIn("recv", recvBuffer);
    }

    /**
     * @param rule the operation's argument rules
     * @param send the operation's send buffer, or null
     * @param recv its receive buffer, or null
     * @return the arguments, with segments standing in for the buffers
     * @throws JcclException INVALID_ARGUMENT for a buffer that is freed or reports an inconsistent size or address
     */
    static DeviceArgs of(OpRule rule, DeviceBuffer send, DeviceBuffer recv) {
        return new DeviceArgs(rule, send, recv);
    }

    private static MemorySegment standIn(String name, DeviceBuffer b) {
        if (b == null) {
            return null;
        }
        if (!b.isAlive()) {
            throw ArgChecks.invalid(name + " is a " + b.domainName() + " buffer that was already freed (or its "
                    + "domain closed)");
        }
        long size = b.byteSize();
        if (size < 0) {
            throw ArgChecks.invalid(name + " reports a negative size " + size);
        }
        Optional<MemorySegment> host = b.hostSegment();
        if (host.isPresent()) {
            MemorySegment h = host.get();
            if (h.byteSize() != size) {
                throw ArgChecks.invalid(name + ": the " + b.domainName() + " buffer's host view has " + h.byteSize()
                        + " bytes but the buffer " + size);
            }
            return h;
        }
        long address = b.address();
        if (size > 0 && (address == 0 || address + size < address || address + size < 0)) {
            throw ArgChecks.invalid(name + ": the " + b.domainName() + " buffer reports address 0x"
                    + Long.toHexString(address) + " and " + size + " bytes, not a range of the address space");
        }
        // Restricted method (the JVM flags grant native access): a shadow that is never dereferenced.
        return MemorySegment.ofAddress(address).reinterpret(size);
    }

    /** @return what stands in for the send buffer in the argument checks (null when there is none) */
    MemorySegment sendSegment() {
        return sendSegment;
    }

    /** @return what stands in for the receive buffer */
    MemorySegment recvSegment() {
        return recvSegment;
    }

    /** @return whether some buffer needs staging (otherwise the host views serve as plain segments) */
    boolean staged() {
        return isStaged(sendBuffer) || isStaged(recvBuffer);
    }

    private static boolean isStaged(DeviceBuffer b) {
        return b != null && b.hostSegment().isEmpty();
    }

    /**
     * Binds these arguments to the checked request: the buffers the operation uses (the request has segments for
     * them) and that need staging lose their shadows, which the executor replaces with host memory.
     *
     * @param request the request built from {@link #sendSegment()} and {@link #recvSegment()}
     * @param size    the communicator's ranks
     */
    void attach(OpRequest request, int size) {
        this.op = request;
        stageSend = request.send != null && isStaged(sendBuffer);
        stageRecv = request.recv != null && isStaged(recvBuffer);
        sendBytes = stageSend ? rule.sendBytes(request, size) : 0;
        recvBytes = stageRecv ? rule.recvBytes(request, size) : 0;
        if (stageSend) {
            request.send = null;
        }
        if (stageRecv) {
            request.recv = null;
        }
        request.device = stageSend || stageRecv ? this : null;
    }

    /**
     * Takes host memory for the staged buffers and copies the input into it; the request's segments then point at
     * that memory. Executor thread, when the operation starts.
     *
     * @param rank this rank, for messages
     * @throws JcclException naming the operation, the buffer, the domain and the failed call
     */
    void stageIn(int rank) {
        boolean inPlace = op.inPlace && stageSend && stageRecv;
        if (inPlace) {
            // One host copy of the outer buffer; the inner one is the slice at the in-place position.
            long sendAtInRecv = sendBuffer.address() - recvBuffer.address();
            if (sendAtInRecv >= 0 && sendAtInRecv + sendBytes <= recvBytes) {
                MemorySegment outer = lease(false, recvBuffer, recvBytes, rank);
                op.recv = outer;
                op.send = outer.asSlice(sendAtInRecv, sendBytes);
            } else {
                MemorySegment outer = lease(true, sendBuffer, sendBytes, rank);
                op.send = outer;
                op.recv = outer.asSlice(-sendAtInRecv, recvBytes);
            }
        } else {
            if (stageSend && sendBytes > 0) {
                op.send = lease(true, sendBuffer, sendBytes, rank);
            }
            if (stageRecv && recvBytes > 0) {
                op.recv = lease(false, recvBuffer, recvBytes, rank);
            }
        }
        if (stageSend && sendBytes > 0) {
            try {
                sendBuffer.copyToHost(0, op.send, 0, sendBytes);
            } catch (RuntimeException e) {
                throw failed(rank, "copying send (" + sendBytes + " bytes) from " + sendBuffer.domainName()
                        + " memory into host staging", e);
            }
        }
    }

    /** Host memory of {@code bytes} for one buffer, recorded for {@link #release()}. */
    private MemorySegment lease(boolean forSend, DeviceBuffer buffer, long bytes, int rank) {
        HostStaging staging = buffer.hostStaging();
        MemorySegment lease;
        try {
            if (staging == null) {
                throw new JcclException(ErrorCode.INTERNAL_ERROR, "the buffer has no host staging");
            }
            lease = staging.acquire(bytes);
            if (lease == null) {
                throw new JcclException(ErrorCode.INTERNAL_ERROR, "host staging returned null");
            }
            if (lease.byteSize() < bytes || !lease.isNative()) {
                staging.release(lease);
                throw new JcclException(ErrorCode.INTERNAL_ERROR, "host staging returned " + lease
                        + " for a request of " + bytes + " bytes");
            }
        } catch (RuntimeException e) {
            throw failed(rank, "taking " + bytes + " bytes of host staging for " + (forSend ? "send" : "recv")
                    + " (" + buffer.domainName() + ")", e);
        }
        if (forSend) {
            sendStaging = staging;
            sendLease = lease;
        } else {
            recvStaging = staging;
            recvLease = lease;
        }
        return lease.asSlice(0, bytes);
    }

    /**
     * Copies the operation's output from host staging back into the receive buffer; executor thread, after the
     * operation succeeded and before its future completes. All-to-allv copies only the blocks it received.
     *
     * @param rank this rank, for messages
     */
    void stageOut(int rank) {
        if (!stageRecv || recvBytes == 0) {
            return;
        }
        try {
            if (op.kind == OpKind.ALL_TO_ALLV) {
                int es = op.dataType.sizeBytes();
                for (int i = 0; i < op.recvCounts.length; i++) {
                    if (op.recvCounts[i] > 0) {
                        long at = op.recvDispls[i] * es;
                        recvBuffer.copyFromHost(op.recv, at, at, op.recvCounts[i] * es);
                    }
                }
            } else {
                recvBuffer.copyFromHost(op.recv, 0, 0, recvBytes);
            }
        } catch (RuntimeException e) {
            throw failed(rank, "copying recv (" + recvBytes + " bytes) from host staging into "
                    + recvBuffer.domainName() + " memory", e);
        }
    }

    /** Returns the host memory and clears the request's staged segments; executor thread, always, once. */
    void release() {
        if (stageSend) {
            op.send = null;
        }
        if (stageRecv) {
            op.recv = null;
        }
        RuntimeException first = null;
        if (sendLease != null) {
            try {
                sendStaging.release(sendLease);
            } catch (RuntimeException e) {
                first = e;
            }
            sendLease = null;
        }
        if (recvLease != null) {
            try {
                recvStaging.release(recvLease);
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
            recvLease = null;
        }
        if (first != null) {
            throw first;
        }
    }

    private JcclException failed(int rank, String what, RuntimeException e) {
        ErrorCode code = e instanceof JcclException je ? je.code() : ErrorCode.SYSTEM_ERROR;
        String why = e instanceof JcclException je ? je.detail() : String.valueOf(e);
        return new JcclException(code, op.describe() + " on rank " + rank + ": " + what + " failed: " + why, e);
    }
}
