/**
 * The transport SPI: NCCL's net-plugin contract, in Java.
 *
 * <p>A {@link io.jccl.net.NetTransportProvider} is found with {@link java.util.ServiceLoader} and creates one
 * {@link io.jccl.net.NetTransport} per communicator rank. Connections are one-directional, as in NCCL: a rank
 * {@linkplain io.jccl.net.NetTransport#listen listens} and hands its listener's handle to its peers through the
 * rendezvous; a peer {@linkplain io.jccl.net.NetTransport#connect connects} to that handle and gets a
 * {@link io.jccl.net.SendConnection}, while the listener {@linkplain io.jccl.net.Listener#accept accepts} a
 * {@link io.jccl.net.RecvConnection}. Connect and accept never block; callers poll them.
 *
 * <p>Messages on one connection are matched in order: the n-th receive posted matches the n-th send. Every
 * message carries a 64-bit tag; a receive names the tag it expects, and a transport that sees another tag
 * fails that receive with {@link io.jccl.net.NetException.Reason#TAG_MISMATCH} without writing the payload.
 * The collectives use the tag to detect ranks whose calls do not match.
 *
 * <p>A connection is driven by one thread at a time (its communicator's executor). Transports may complete
 * requests from their own threads; if they do, they say so in {@link io.jccl.net.NetProperties} and call the
 * {@link io.jccl.net.ProgressSignal} they were given, so the executor can sleep instead of polling. Transports that
 * progress inside {@link io.jccl.net.NetRequest#test()} may instead let the driving thread sleep until a peer signals
 * ({@link io.jccl.net.NetTransport#awaitProgress}, ended early by {@link io.jccl.net.NetTransport#wakeUp}).
 *
 * <p>A transport may also hand out memory its peers reach directly ({@link io.jccl.net.NetTransport#allocateMemory},
 * behind {@code Communicator.allocate}), which its sends then move with fewer copies.
 */
package io.jccl.net;
