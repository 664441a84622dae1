package io.jccl.metaroce.udp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A path socket on {@link DatagramChannel}: one system call per datagram, any OS, IPv4 or IPv6. It asks for ECT(0)
 * through {@code IP_TOS} (where the JDK cannot set it, datagrams go out not ECN-capable), and cannot read the ECN
 * bits of what arrives: every datagram is reported {@link #NOT_ECT}. Sends are not batched.
 */
final class ChannelDatagramIo implements DatagramIo {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, ChannelDatagramIo.class);
    private static final int MAX_DATAGRAM_BYTES = 65536;

    private final UdpDriverConfig config;
    private final AddressKeys keys;
    private final IoCounters counters;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM_BYTES);
    private final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);
    private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM_BYTES);
    private DatagramChannel channel;
    private BoundSocket bound;
    /** The JDK hands back the same address object while the sender stays the same: its key, computed once. */
    private SocketAddress lastSource;
    private long lastSourceKey = AddressKeys.NONE;

    ChannelDatagramIo(UdpDriverConfig config, AddressKeys keys, IoCounters counters) throws IOException {
        this.config = config;
        this.keys = keys;
        this.counters = counters;
        this.channel = open();
    }

    private DatagramChannel open() throws IOException {
        DatagramChannel ch = UdpSockets.open(config.bindAddress(), config.socketBufferBytes(), config.firstPort(),
                config.lastPort());
        try {
            try {
                ch.setOption(StandardSocketOptions.IP_TOS, ECT_0);
            } catch (IOException | UnsupportedOperationException e) {
                LOG.debug("cannot set IP_TOS on a DatagramChannel: {}", e.getMessage());
            }
            bound = new BoundSocket(IoMethod.CHANNEL, (InetSocketAddress) ch.getLocalAddress(),
                    ch.getOption(StandardSocketOptions.SO_RCVBUF), ch.getOption(StandardSocketOptions.SO_SNDBUF));
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public BoundSocket bound() {
        return bound;
    }

    @Override
    public int receive(int maxDatagrams, Receiver receiver) {
        int n = 0;
        while (n < maxDatagrams) {
            SocketAddress from;
            receiveBuffer.clear();
            try {
                from = channel.receive(receiveBuffer);
            } catch (IOException e) {
                counters.ioErrors++;   // e.g. an ICMP error queued on the socket; the next datagram is unaffected
                break;
            }
            if (from == null) {
                break;
            }
            if (from != lastSource) {
                lastSourceKey = keys.keyOf((InetSocketAddress) from);
                lastSource = from;
            }
            n++;
            counters.receiveCalls++;
            receiver.onDatagram(lastSourceKey, receiveView, 0, receiveBuffer.position(), NOT_ECT);
        }
        return n;
    }

    @Override
    public void send(long destination, DirectBuffer buffer, int offset, int length) {
        InetSocketAddress to = keys.addressOf(destination);
        if (to == null) {
            counters.ioErrors++;
            return;
        }
        sendBuffer.clear();
        buffer.getBytes(offset, sendBuffer, length);
        sendBuffer.flip();
        try {
            if (channel.send(sendBuffer, to) == 0) {
                counters.sendsRefused++;   // the socket's send buffer is full: a loss the protocol repairs
            } else {
                counters.datagramsSent++;
                counters.sendCalls++;
            }
        } catch (IOException e) {
            counters.ioErrors++;
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void rebind() throws IOException {
        DatagramChannel fresh = open();
        DatagramChannel old = channel;
        channel = fresh;
        lastSource = null;
        old.close();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            counters.ioErrors++;
        }
    }
}
