/**
 * The MetaRoCE wire format, version 1 ({@code docs/metaroce-wire.md}): allocation-free flyweights over Agrona
 * buffers for every packet type, {@link io.jccl.metaroce.protocol.wire.PacketValidator} (structural checks that
 * drop, never throw), {@link io.jccl.metaroce.protocol.wire.Crc32c} and
 * {@link io.jccl.metaroce.protocol.wire.HandshakeCrypto}.
 *
 * <p>Writing a packet: wrap the flyweight of its type at the packet's start, write the common header with
 * {@code putHeader}, the type's fields, then the CRC trailer with {@link io.jccl.metaroce.protocol.wire.Crc32c#finish}
 * (handshakes: sign with {@link io.jccl.metaroce.protocol.wire.HandshakeCrypto} first, since the CRC covers the MAC).
 * Reading one: {@link io.jccl.metaroce.protocol.wire.PacketValidator#check} first; only when it returns
 * {@code null} are the flyweight's getters meaningful (they never read outside the datagram then).
 *
 * <p>Flyweights and the CRC and validator objects are not thread-safe: each thread that drives a core owns its
 * own, and reuses them for every packet.
 */
package io.jccl.metaroce.protocol.wire;
