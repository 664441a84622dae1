/**
 * The data path shared by the transports built on Aeron publications: {@code aeron-ipc} (IPC, {@link io.jccl.net.aeronipc})
 * and {@code aeron-udp} (UDP, {@link io.jccl.net.aeronudp}).
 *
 * <p>A connection is one publication with one subscriber. {@link io.jccl.net.aeron.AeronSendConnection} writes each
 * message as {@link io.jccl.net.aeron.Frames} claimed in the log, copying the payload once from the caller's segment;
 * {@link io.jccl.net.aeron.AeronRecvConnection} polls the image with a controlled fragment handler that copies each
 * payload once into the oldest posted receive and leaves a message nobody posted a receive for in the log
 * ({@code ABORT}), so the publication's window is the only buffer. Requests come from a preallocated pool of 64 per
 * connection; progress happens inside {@link io.jccl.net.NetRequest#test()}. What differs per transport — how a dead
 * peer is noticed, what a failed publication means, what to release on close — the subclasses say.
 */
package io.jccl.net.aeron;
