/**
 * The {@code tcp} transport: JCCL's transport SPI over TCP sockets, for ranks on different hosts (or any two
 * ranks when nothing faster connects them).
 *
 * <h2>Connections</h2>
 * A rank listens on one non-blocking server socket bound to {@link io.jccl.net.TransportContext#bindAddress()}.
 * Its handle ({@link io.jccl.net.tcp.TcpHandle}) carries the address, the port and a random 16-byte token. A
 * connection is one or more sockets ({@code JCCL_SOCKET_NSOCKS}, NCCL's sockets per connection): the connecting
 * side opens them all at once, non-blocking, and once each is connected writes its 40-byte hello frame with the
 * token, the socket's index, the socket count and a random connection id shared by the connection's sockets; the
 * connection is then usable for sending. The listener checks each accepted socket's hello (magic, version,
 * reserved fields, token) when its owner polls {@code accept()}, and drops with a warning any socket whose hello
 * is wrong or incomplete after the connect timeout; such sockets never surface. It joins the sockets of one
 * connection by their id, and surfaces the connection once all have arrived; a set whose hellos contradict each
 * other, or still incomplete after the connect timeout, is dropped whole with a warning. No acknowledgement is
 * sent back, so connect and accept complete in either order.
 *
 * <p>With {@code JCCL_SOCKET_DUPLEX=1} (the default) one socket carries both directions' headers and short messages
 * between two ranks: a connecting rank offers its connection (hello flag OFFER, with its own listener's token),
 * which then has {@code 1 + 2n} sockets ({@link io.jccl.net.tcp.SocketLayout}: a shared one, then n bulk sockets
 * for each direction), and the peer's later connect back takes them (a REVERSE hello on each) instead of opening
 * its own; the offering side reads the REVERSE hellos and surfaces the reverse direction from {@code accept()}
 * ({@code ChannelShare}: closing a send connection half-closes, the last user closes). Each direction's short
 * messages then carry the other's acknowledgements, and each direction's bulk has sockets of its own.
 *
 * <h2>Messages</h2>
 * Each message is a 24-byte header (magic, flags with the stripe count, 64-bit tag, 64-bit length) on socket 0,
 * followed by the payload, or by its first stripe: a message of at least twice {@code JCCL_SOCKET_MIN_STRIPE_BYTES}
 * is cut into up to one contiguous stripe per socket, stripe {@code i} travelling on socket {@code i} behind a
 * 24-byte stripe header. On an offered connection a message of at least {@code JCCL_SOCKET_MIN_STRIPE_BYTES} is
 * BULK instead: its header alone on socket 0, its payload in up to n stripes on the sender's bulk sockets. Each
 * socket carries its stripes in message order, so every socket's stream stays FIFO and matching follows the headers
 * on socket 0. See {@link io.jccl.net.tcp.Wire} for the layouts. Integers are
 * big-endian. Lengths above 1 TiB, unknown flags, more stripes than sockets (than bulk sockets, for BULK), BULK on
 * a connection that was not offered, a bad magic or a stripe header other than the one due are protocol errors
 * that break the connection.
 *
 * <h2>Progress</h2>
 * Caller-driven: the transport starts no threads. Sockets are non-blocking and all I/O happens inside
 * {@link io.jccl.net.NetRequest#test()} (plus one eager write attempt when a send is posted to an idle
 * connection), so {@link io.jccl.net.NetProperties#signalsCompletion()} is false. Testing a request progresses
 * every socket of its connection, but only that connection: the executor must poll every outstanding request,
 * sends included. Each socket keeps its own place in the request FIFO, so a socket whose peer is slow holds back
 * only its own stripes; requests complete in posting order.
 *
 * <h2>Data path</h2>
 * Each connection has a pool of 64 request objects and, per socket, a direct staging buffer (256 KiB on socket 0,
 * 64 KiB on the others). Short messages, headers and heap payloads pass through the staging buffer (many short
 * messages per system call); the rest of a large native payload is written from the caller's segment directly
 * through a cached {@link java.nio.ByteBuffer} view, and a native payload longer than 64 KiB is read straight into
 * it, its header read alone. In steady state nothing is allocated and no lock is taken.
 *
 * <h2>Options</h2>
 * {@code JCCL_SOCKET_BUFFER_BYTES}: the {@code SO_SNDBUF}/{@code SO_RCVBUF} size of every socket, default 4 MiB,
 * or 0 to keep the kernel's autotuning. {@code JCCL_SOCKET_NSOCKS}: sockets per connection, 1 to 16, default 1.
 * {@code JCCL_SOCKET_DUPLEX}: 1 (the default) to offer connections for both directions, 0 for one-way connections
 * only; with it {@code JCCL_SOCKET_NSOCKS} is 1 to 7.
 * {@code JCCL_SOCKET_MIN_STRIPE_BYTES}: the shortest stripe, 4096 to 1 GiB, default 64 KiB. {@code TCP_NODELAY}
 * is always on.
 */
package io.jccl.net.tcp;
