package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import org.agrona.DirectBuffer;

import java.lang.foreign.MemorySegment;

/** Passes every call to another endpoint; tests override what they break. */
class ForwardingVerbs implements Verbs {
    final Verbs inner;

    ForwardingVerbs(Verbs inner) {
        this.inner = inner;
    }

    @Override
    public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                 int length, boolean ecnMarked) {
        return inner.onDatagram(nowNs, source, pathIndex, buffer, offset, length, ecnMarked);
    }

    @Override
    public void onTimeout(long nowNs) {
        inner.onTimeout(nowNs);
    }

    @Override
    public long nextTimeoutNs() {
        return inner.nextTimeoutNs();
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        return inner.pollTransmit(nowNs, sink);
    }

    @Override
    public int registerRegion(MemorySegment memory, boolean remoteWritable) {
        return inner.registerRegion(memory, remoteWritable);
    }

    @Override
    public void deregisterRegion(int key) {
        inner.deregisterRegion(key);
    }

    @Override
    public int connect(long nowNs, long peer) {
        return inner.connect(nowNs, peer);
    }

    @Override
    public int connectionTo(long peer) {
        return inner.connectionTo(peer);
    }

    @Override
    public boolean isEstablished(int connectionId) {
        return inner.isEstablished(connectionId);
    }

    @Override
    public long postWrite(int connectionId, int regionKey, long remoteOffset, MemorySegment local, long offset,
                          long length) {
        return inner.postWrite(connectionId, regionKey, remoteOffset, local, offset, length);
    }

    @Override
    public long postSend(int connectionId, int stream, MemorySegment local, long offset, long length) {
        return inner.postSend(connectionId, stream, local, offset, length);
    }

    @Override
    public long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        return inner.postRecv(connectionId, stream, local, offset, capacity);
    }

    @Override
    public int pollCompletions(CompletionHandler handler) {
        return inner.pollCompletions(handler);
    }

    @Override
    public void close(long nowNs, int connectionId) {
        inner.close(nowNs, connectionId);
    }

    @Override
    public Counters counters() {
        return inner.counters();
    }
}
