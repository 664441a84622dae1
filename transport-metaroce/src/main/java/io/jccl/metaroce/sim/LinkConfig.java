package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;

/**
 * One store-and-forward queue with its outgoing wire: a packet waits behind the bytes already queued, is
 * serialized at {@code rateBitsPerSecond}, then travels {@code delayNs}. The queue holds at most
 * {@code bufferBytes} (a packet that would not fit is tail-dropped) and marks a packet with ECN CE when more than
 * {@code ecnThresholdBytes} are queued as it arrives (DCTCP-style step marking). Bytes here are wire bytes: the
 * datagram plus {@link FabricConfig#wireOverheadBytes()}.
 *
 * @param rateBitsPerSecond line rate; 0 means infinitely fast (no serialization, no queue)
 * @param delayNs           propagation delay (plus any fixed switching latency) after serialization
 * @param bufferBytes       queue capacity; {@link Long#MAX_VALUE} never drops (a NIC's own send queue)
 * @param ecnThresholdBytes queued bytes above which arrivals are marked; {@link Long#MAX_VALUE} never marks
 */
public record LinkConfig(long rateBitsPerSecond, long delayNs, long bufferBytes, long ecnThresholdBytes) {
    /** No marking. */
    public static final long NO_ECN = Long.MAX_VALUE;
    /** No tail drop. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** Checks every value. */
    public LinkConfig {
        Arguments.atLeast("rateBitsPerSecond", rateBitsPerSecond, 0);
        if (rateBitsPerSecond > 0 && Math.round(8e15 / rateBitsPerSecond) < 1) {
            throw new IllegalArgumentException("rateBitsPerSecond=" + rateBitsPerSecond + " is above 8e15");
        }
        Arguments.atLeast("delayNs", delayNs, 0);
        Arguments.positive("bufferBytes", bufferBytes);
        Arguments.atLeast("ecnThresholdBytes", ecnThresholdBytes, 0);
    }

    /**
     * @param gbps    line rate in Gbit/s
     * @param delayNs propagation delay
     * @return a link that neither drops nor marks (a host's NIC port)
     */
    public static LinkConfig lossless(double gbps, long delayNs) {
        return new LinkConfig(Math.round(gbps * 1e9), delayNs, UNLIMITED, NO_ECN);
    }

    /**
     * @param gbps              line rate in Gbit/s
     * @param delayNs           propagation delay
     * @param bufferBytes       switch buffer for this port
     * @param ecnThresholdBytes ECN marking threshold
     * @return a switch port
     */
    public static LinkConfig switchPort(double gbps, long delayNs, long bufferBytes, long ecnThresholdBytes) {
        return new LinkConfig(Math.round(gbps * 1e9), delayNs, bufferBytes, ecnThresholdBytes);
    }

    /** @return femtoseconds to serialize one byte (0 when infinitely fast) */
    public long femtosPerByte() {
        return rateBitsPerSecond == 0 ? 0 : Math.round(8e15 / rateBitsPerSecond);
    }

    /**
     * @param wireBytes bytes on the wire
     * @return nanoseconds to serialize them (rounded up)
     */
    public long serializationNs(long wireBytes) {
        long fs = wireBytes * femtosPerByte();
        return (fs + 999_999) / 1_000_000;
    }

    /** @return a copy with another rate */
    public LinkConfig withRateBitsPerSecond(long bitsPerSecond) {
        return new LinkConfig(bitsPerSecond, delayNs, bufferBytes, ecnThresholdBytes);
    }

    /** @return a copy with another delay */
    public LinkConfig withDelayNs(long ns) {
        return new LinkConfig(rateBitsPerSecond, ns, bufferBytes, ecnThresholdBytes);
    }

    /** @return a copy with another buffer */
    public LinkConfig withBufferBytes(long bytes) {
        return new LinkConfig(rateBitsPerSecond, delayNs, bytes, ecnThresholdBytes);
    }

    /** @return a copy with another ECN threshold */
    public LinkConfig withEcnThresholdBytes(long bytes) {
        return new LinkConfig(rateBitsPerSecond, delayNs, bufferBytes, bytes);
    }
}
