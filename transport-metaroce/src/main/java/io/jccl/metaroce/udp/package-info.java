/**
 * The UDP driver: puts a MetaRoCE {@link io.jccl.metaroce.protocol.Endpoint} on real sockets, one UDP socket (and
 * source port) per logical path. This first cut uses {@link java.nio.channels.DatagramChannel} and the invoker
 * threading mode (the caller steps {@link io.jccl.metaroce.udp.UdpDriver#doWork()}); batched FFM I/O, ECN and the
 * dedicated and shared modes come next (issue 4).
 */
package io.jccl.metaroce.udp;
