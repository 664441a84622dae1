/**
 * The {@code aeron-ipc} transport: JCCL's transport SPI over Aeron IPC, for ranks in different JVMs on one host; only
 * used when named ({@code JCCL_NET=aeron-ipc}). The default same-host transport is {@link io.jccl.net.shm}.
 *
 * <h2>Driver</h2>
 * Messages travel through Aeron IPC logs (memory-mapped files) managed by one embedded media driver per host and
 * user, in {@code JCCL_AERON_IPC_DIR} (default {@code /dev/shm/jccl-aeron-<user>}). The first JVM to take the OS lock
 * on {@code <dir>.lock} hosts it; the others join as clients. See {@link io.jccl.net.aeronipc.AeronIpcDriver}.
 *
 * <h2>Connections</h2>
 * A listener subscribes to a hello stream named in its handle (with the driver directory, its pid and a random
 * token). A connecting side publishes one hello frame there naming a data stream of its own, and the listener
 * subscribes to that stream: every connection is one IPC publication with exactly one subscriber. Stream ids
 * carry the owning process's pid, so no two live processes collide.
 *
 * <h2>Messages</h2>
 * Each message is written as frames of at most the publication's maximum payload (64 KiB less headers): a first
 * frame with tag and length, continuation frames, and a close frame when the sender closes; see
 * {@link io.jccl.net.aeronipc.Wire}. The payload is copied once into the log and once out of it, straight into the
 * posted receive; a message nobody has posted a receive for stays in the log, so the log's window is the only
 * buffering.
 *
 * <h2>Progress and failure</h2>
 * Caller-driven, like TCP: everything happens inside {@link io.jccl.net.NetRequest#test()}. A test that makes no
 * progress looks the peer process up (at most every 50 ms) and fails the connection with
 * {@link io.jccl.net.NetException.Reason#PEER_CLOSED} once it is gone; a stalled sender also watches the driver's
 * host process.
 */
package io.jccl.net.aeronipc;
