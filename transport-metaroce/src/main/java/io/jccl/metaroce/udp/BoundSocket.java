package io.jccl.metaroce.udp;

import java.net.InetSocketAddress;

/**
 * What a bound UDP socket turned out to be: both I/O methods learn it once per (re)bind, each in its own
 * way, and report it the same way.
 *
 * @param method                    how the socket is driven
 * @param localAddress              the address the socket is bound to
 * @param grantedReceiveBufferBytes the receive buffer the kernel granted (Linux reports twice what it books)
 * @param grantedSendBufferBytes    the send buffer the kernel granted
 */
record BoundSocket(IoMethod method, InetSocketAddress localAddress, int grantedReceiveBufferBytes,
                   int grantedSendBufferBytes) {
}
