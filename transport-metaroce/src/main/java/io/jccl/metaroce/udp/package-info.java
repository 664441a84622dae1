/**
 * The UDP driver: puts a MetaRoCE {@link io.jccl.metaroce.protocol.Endpoint} on real sockets, one UDP socket (and
 * source port) per logical path, in the invoker threading mode (the caller steps
 * {@link io.jccl.metaroce.udp.UdpDriver#doWork()}). Each path socket moves datagrams with native Linux I/O through
 * the Foreign Function &amp; Memory API ({@code recvmmsg}/{@code sendmmsg} batches, UDP GSO and GRO, ECN) or, as the
 * fallback on other systems and for IPv6, with {@link java.nio.channels.DatagramChannel}: see
 * {@link io.jccl.metaroce.udp.IoMethod}. {@link io.jccl.metaroce.udp.RawUdpBlast} is the same I/O without the
 * protocol, the reference of the benchmark. The dedicated and shared threading modes come next.
 */
package io.jccl.metaroce.udp;
