/**
 * The {@code tcp} transport: JCCL's transport SPI over TCP sockets, for ranks on different hosts (or any two
 * ranks when nothing faster connects them).
 *
 * <h2>Connections</h2>
 * A rank listens on one non-blocking server socket bound to {@link io.jccl.net.TransportContext#bindAddress()}.
 * Its handle ({@link io.jccl.net.tcp.TcpHandle}) carries the address, the port and a random 16-byte token. A
 * connecting side opens a non-blocking socket, and once connected writes a 32-byte hello frame with the token;
 * the connection is then usable for sending. The listener checks each accepted socket's hello (magic, version,
 * reserved fields, token) when its owner polls {@code accept()}, and drops with a warning any socket whose hello
 * is wrong or incomplete after the connect timeout; such sockets never surface. No acknowledgement is sent back,
 * so connect and accept complete in either order.
 *
 * <h2>Messages</h2>
 * Each message is a 24-byte header (magic, flags, 64-bit tag, 64-bit length) followed by the payload; see
 * {@link io.jccl.net.tcp.Wire} for the layouts. Integers are big-endian. Lengths above 1 TiB, unknown flags or
 * a bad magic are protocol errors that break the connection.
 *
 * <h2>Progress</h2>
 * Caller-driven: the transport starts no threads. Sockets are non-blocking and all I/O happens inside
 * {@link io.jccl.net.NetRequest#test()} (plus one eager write attempt when a send is posted to an idle
 * connection), so {@link io.jccl.net.NetProperties#signalsCompletion()} is false. Testing a request progresses
 * its whole connection, but only that connection: the executor must poll every outstanding request, sends
 * included.
 *
 * <h2>Data path</h2>
 * Each connection has a pool of 64 request objects and a 256 KiB direct staging buffer. Short messages, headers
 * and heap payloads pass through the staging buffer (many short messages per system call); the rest of a large
 * native payload is written from, or read into, the caller's segment directly through a cached
 * {@link java.nio.ByteBuffer} view. In steady state nothing is allocated and no lock is taken.
 *
 * <h2>Options</h2>
 * {@code JCCL_SOCKET_BUFFER_BYTES}: the {@code SO_SNDBUF}/{@code SO_RCVBUF} size, default 4 MiB, or 0 to keep
 * the kernel's autotuning. {@code TCP_NODELAY} is always on.
 */
package io.jccl.net.tcp;
