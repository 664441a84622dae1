/**
 * The {@code aeron-udp} transport: JCCL's transport SPI over Aeron UDP publications and subscriptions, between
 * ranks in different JVMs on any hosts. A baseline and fallback, chosen only by name ({@code JCCL_NET=aeron-udp}).
 *
 * <p>Every JVM embeds its own media driver ({@link io.jccl.net.aeronudp.AeronUdpDriver}); a listener binds one UDP
 * endpoint (the rank's bind address, an ephemeral port); every connection is one UDP publication on a random stream,
 * and the listener subscribes to exactly that stream and session. The data path — frames, single copies, flow
 * control by leaving unmatched messages in the log — is {@link io.jccl.net.aeron}'s, shared with {@code shm}. Loss
 * is repaired by Aeron's NAKs and retransmission; a silent peer is noticed by Aeron's image liveness and
 * publication connection timeouts ({@code JCCL_AERON_UDP_PEER_TIMEOUT_MS}).
 */
package io.jccl.net.aeronudp;
