package io.jccl.metaroce.udp;

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;

/**
 * One path socket of a {@link UdpDriver}: how datagrams get to and from the kernel. Peers are {@link AddressKeys}
 * keys, not objects. One thread uses it; nothing on its data path ({@link #receive}, {@link #send},
 * {@link #flush}) allocates or blocks.
 */
interface DatagramIo extends AutoCloseable {
    /** ECN codepoint of a datagram whose IP header said nothing (not ECN-capable), or whose header was not read. */
    int NOT_ECT = 0;
    /** ECN codepoint "congestion experienced". */
    int ECN_CE = 3;
    /** What every datagram is sent with: ECN-capable transport, ECT(0). */
    int ECT_0 = 2;

    /** Takes each datagram read: valid only during the call. */
    @FunctionalInterface
    interface Receiver {
        /**
         * @param source where it came from ({@link AddressKeys} key)
         * @param buffer holds it
         * @param offset where it starts
         * @param length its length in bytes
         * @param ecn    the ECN bits of its IP header ({@link #NOT_ECT} when the method cannot read them)
         */
        void onDatagram(long source, DirectBuffer buffer, int offset, int length, int ecn);
    }

    /** @return what the socket, as bound now, is */
    BoundSocket bound();

    /** @return {@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL} */
    default IoMethod method() {
        return bound().method();
    }

    /** @return the address the socket is bound to */
    default InetSocketAddress localAddress() {
        return bound().localAddress();
    }

    /** @return the receive buffer the kernel granted (Linux reports twice what it books) */
    default int grantedReceiveBufferBytes() {
        return bound().grantedReceiveBufferBytes();
    }

    /** @return the send buffer the kernel granted */
    default int grantedSendBufferBytes() {
        return bound().grantedSendBufferBytes();
    }

    /** @return whether sends go out as UDP GSO messages (native, asked for, and the kernel took it); else false */
    default boolean gsoActive() {
        return false;
    }

    /** @return the socket's file descriptor where a native waiter can poll it, or -1 (channel I/O) */
    default int descriptor() {
        return -1;
    }

    /** @return whether the kernel coalesces receives for this socket (UDP GRO); false where it cannot (channel I/O) */
    default boolean groActive() {
        return false;
    }

    /**
     * Reads what arrived, without waiting.
     *
     * @return datagrams handed to {@code receiver}: about {@code maxDatagrams} at most (a coalesced read is not cut)
     */
    int receive(int maxDatagrams, Receiver receiver);

    /**
     * Sends a datagram, or copies it into the send batch; a full batch is flushed. A datagram the kernel refuses
     * (its buffer is full) counts as refused: a loss the protocol repairs.
     *
     * @param destination an {@link AddressKeys} key
     */
    void send(long destination, DirectBuffer buffer, int offset, int length);

    /** Hands the send batch to the kernel (nothing to do where sends are not batched). */
    void flush();

    /**
     * Room in the send batch for one datagram of at most {@code maxLength} bytes to {@code destination}, to be written
     * in place and queued by {@link #commit} (no copy, unlike {@link #send}); a full batch is flushed first.
     *
     * @return the offset in {@link #sendBuffer()} where it goes, or -1 where sends are not batched (use send)
     */
    default int claim(long destination, int maxLength) {
        return -1;
    }

    /** @return the send batch's memory, for {@link #claim} */
    default org.agrona.MutableDirectBuffer sendBuffer() {
        throw new IllegalStateException("no send batch");
    }

    /** @return the send batch's memory as a segment */
    default java.lang.foreign.MemorySegment sendSegment() {
        throw new IllegalStateException("no send batch");
    }

    /** Queues the datagram written at the last claim's offset ({@code length} bytes, at most the claim's). */
    default void commit(int length) {
        throw new IllegalStateException("no send batch");
    }

    /** @return whether {@link #commitGather} is supported (datagrams sent in pieces, iovec by iovec) */
    default boolean gathers() {
        return false;
    }

    /**
     * Queues a datagram of three pieces: header and trailer written one after the other at the last claim's offset
     * ({@code headerLength + trailerLength} bytes, at most the claim's), and {@code payloadLength} bytes at
     * {@code payloadAddress} between them, read when the batch is sent.
     */
    default void commitGather(int headerLength, long payloadAddress, int payloadLength, int trailerLength) {
        throw new IllegalStateException("no gather sends");
    }

    /**
     * Replaces the socket by a new one on a new ephemeral port, with the same settings; the batch is flushed from
     * the old one first. If the new socket cannot be opened, the old one stays.
     *
     * @throws IOException when the new socket cannot be opened
     */
    void rebind() throws IOException;

    /** Closes the socket and frees its buffers; queued datagrams are dropped. */
    @Override
    void close();

    /**
     * @return null when {@code config} can run natively here; otherwise why not
     */
    static String nativeUnavailableReason(UdpDriverConfig config) {
        if (!(config.bindAddress() instanceof Inet4Address)) {
            return "the bind address " + config.bindAddress().getHostAddress() + " is not IPv4 (the native path is "
                    + "IPv4 only)";
        }
        return NativeDatagramIo.unavailableReason();
    }

    /**
     * Opens a path socket.
     *
     * @param method   {@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL}, already resolved
     * @param config   the socket settings
     * @param keys     the driver's address keys
     * @param counters the driver's I/O counters
     * @throws IOException when it cannot be opened, sized or bound
     */
    static DatagramIo open(IoMethod method, UdpDriverConfig config, AddressKeys keys, IoCounters counters)
            throws IOException {
        return switch (method) {
            case NATIVE -> new NativeDatagramIo(config, counters);
            case CHANNEL -> new ChannelDatagramIo(config, keys, counters);
            case AUTO -> throw new IllegalArgumentException("resolve AUTO first");
        };
    }
}
