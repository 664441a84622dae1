package io.jccl.metaroce.udp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static io.jccl.metaroce.udp.LinuxSyscalls.CMSG_DATA;
import static io.jccl.metaroce.udp.LinuxSyscalls.CMSG_LEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.CMSG_LEVEL;
import static io.jccl.metaroce.udp.LinuxSyscalls.CMSG_TYPE;
import static io.jccl.metaroce.udp.LinuxSyscalls.IOVEC;
import static io.jccl.metaroce.udp.LinuxSyscalls.IOV_BASE;
import static io.jccl.metaroce.udp.LinuxSyscalls.IOV_LEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.MMSGHDR;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_CONTROL;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_CONTROLLEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_FLAGS;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_IOV;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_IOVLEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_LEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_NAME;
import static io.jccl.metaroce.udp.LinuxSyscalls.MSG_NAMELEN;
import static io.jccl.metaroce.udp.LinuxSyscalls.NET_INT;
import static io.jccl.metaroce.udp.LinuxSyscalls.NET_SHORT;
import static io.jccl.metaroce.udp.LinuxSyscalls.SIN_ADDR;
import static io.jccl.metaroce.udp.LinuxSyscalls.SIN_FAMILY;
import static io.jccl.metaroce.udp.LinuxSyscalls.SIN_PORT;
import static io.jccl.metaroce.udp.LinuxSyscalls.SOCKADDR_IN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A path socket on Linux system calls through FFM ({@link LinuxSyscalls}): a non-blocking IPv4 UDP socket read with
 * {@code recvmmsg} and written with {@code sendmmsg}, in batches.
 *
 * <p><b>Send.</b> {@link #send} copies the datagram into the next free bytes of an off-heap send area and notes its
 * destination and length; the batch goes to the kernel in one {@code sendmmsg} when {@code sendBatch} datagrams are
 * queued (or the area is full) and at every {@link #flush}. With GSO, a run of queued datagrams to one destination
 * that all have the same length (the last may be shorter) lies contiguously in the area, and goes as one message
 * with a {@code UDP_SEGMENT} control message: the kernel cuts it into datagrams. Whether the kernel knows
 * {@code UDP_SEGMENT} is probed at open; if it refuses a GSO message ({@code EINVAL}, {@code EIO},
 * {@code ENOPROTOOPT}, {@code EMSGSIZE}: e.g. a segment above the route's MTU), GSO is turned off for this socket and
 * the rest of the batch is sent datagram by datagram. When the kernel's send buffer is full ({@code EAGAIN},
 * {@code ENOBUFS}), what is left of the batch is counted as refused and dropped: it never waits.
 *
 * <p><b>Receive.</b> Up to 64 preallocated 64 KiB slots per {@code recvmmsg}, each with its {@code sockaddr_in}
 * and control area. {@code IP_RECVTOS} makes the kernel report each datagram's TOS byte: its ECN bits are handed on
 * (CE = 3 is a congestion mark). With GRO the kernel may hand several datagrams of one sender as one read, with a
 * {@code UDP_GRO} control message giving the segment size; the read is cut at that size again.
 *
 * <p><b>ECN.</b> The socket sends with {@code IP_TOS} = ECT(0), so that switches mark rather than drop.
 *
 * <p>All structs are laid out once per socket in one {@link Arena} (shared: the driver may be built on one thread
 * and stepped on another); nothing on the data path allocates.
 */
final class NativeDatagramIo implements DatagramIo {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, NativeDatagramIo.class);
    /** One receive slot: room for the largest datagram, and for a GRO read (the kernel coalesces up to 64 KiB). */
    static final int RECEIVE_SLOT_BYTES = 65536;
    private static final int MAX_RECEIVE_SLOTS = 64;
    /** Room for the IP_TOS and UDP_GRO control messages of one read (24 bytes each). */
    private static final int RECEIVE_CONTROL_BYTES = 64;
    /** The send area: at least one largest datagram, several batches of common ones. */
    private static final int SEND_AREA_BYTES = 1 << 20;
    private static final int MAX_DATAGRAM_BYTES = 65507;
    /** Most segments in one GSO message (the kernel's UDP_MAX_SEGMENTS is 64 on older kernels). */
    private static final int MAX_GSO_SEGMENTS = 64;
    /** Most UDP payload bytes in one GSO message (the IPv4 length field less the headers). */
    private static final int MAX_GSO_BYTES = 65507;
    private static final long SEND_CONTROL_BYTES = LinuxSyscalls.cmsgSpace(Short.BYTES);
    /** A gathered datagram's pieces: header, payload, trailer. */
    private static final int IOVECS_PER_DATAGRAM = 3;

    private final UdpDriverConfig config;
    private final IoCounters counters;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment callState;
    private final MemorySegment scratch;
    private final int bindIpv4;

    private final int receiveSlots;
    private final MemorySegment receiveMessages;
    private final MemorySegment receiveNames;
    private final MemorySegment receiveControl;
    private final MemorySegment receiveData;
    private final UnsafeBuffer receiveView;
    /** Slots the last {@code recvmmsg} filled: their name and control lengths must be set again. */
    private int receiveSlotsUsed;

    private final int sendBatch;
    private final MemorySegment sendMessages;
    private final MemorySegment sendNames;
    private final MemorySegment sendIovecs;
    private final MemorySegment sendControl;
    private final MemorySegment sendArea;
    private final UnsafeBuffer sendView;
    /** The last {@link #claim}: where its datagram goes and how long it may be (-1: none open). */
    private long claimedDestination;
    private int claimedMaxLength = -1;
    private final long[] queuedDestinations;
    private final int[] queuedOffsets;
    /** Each queued datagram's whole length (in pieces or not). */
    private final int[] queuedLengths;
    /** 0: the datagram lies whole in the send area; else the bytes of its header there (a gathered datagram). */
    private final int[] queuedHeaderLengths;
    /** A gathered datagram's payload: where it lies (read when the batch goes) and its length. */
    private final long[] queuedPayloadAddresses;
    private final int[] queuedPayloadLengths;
    private final int[] messageFirstDatagram;
    private final int[] messageSegments;
    private int queued;
    private int sendAreaUsed;

    private int fd = -1;
    private BoundSocket bound;
    private boolean gsoActive;
    private boolean groActive;
    private boolean closed;

    /**
     * @return null when native sockets can be used in this JVM on this machine; otherwise why not (the first call
     *         links the system calls and opens and closes a probe socket)
     */
    static String unavailableReason() {
        return Availability.REASON;
    }

    /** Decided once: the OS, the architecture, whether the calls link, whether a socket opens. */
    private static final class Availability {
        static final String REASON = probe();

        private static String probe() {
            String os = System.getProperty("os.name", "");
            String arch = System.getProperty("os.arch", "");
            if (!os.startsWith("Linux")) {
                return "the OS is " + os + ", not Linux";
            }
            if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
                return "the architecture is " + arch + ", not x86_64 or aarch64";
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(LinuxSyscalls.CALL_STATE);
                int fd = LinuxSyscalls.socket(state, LinuxSyscalls.AF_INET, LinuxSyscalls.SOCK_DGRAM
                        | LinuxSyscalls.SOCK_NONBLOCK | LinuxSyscalls.SOCK_CLOEXEC, 0);
                if (fd < 0) {
                    return "socket(AF_INET, SOCK_DGRAM) failed with errno " + LinuxSyscalls.errno(state);
                }
                LinuxSyscalls.close(state, fd);
                return null;
            } catch (Throwable t) {   // a missing symbol, native access denied, a linker error
                return "the system calls cannot be linked: " + t;
            }
        }
    }

    /**
     * Opens and binds the socket.
     *
     * @throws IOException when a system call fails (the socket is closed again)
     * @throws UnsupportedOperationException when native sockets are not available ({@link #unavailableReason})
     */
    NativeDatagramIo(UdpDriverConfig config, IoCounters counters) throws IOException {
        String unavailable = DatagramIo.nativeUnavailableReason(config);
        if (unavailable != null) {
            throw new UnsupportedOperationException("native UDP I/O is not available: " + unavailable);
        }
        this.config = config;
        this.counters = counters;
        this.bindIpv4 = ipv4(config.bindAddress());
        this.callState = arena.allocate(LinuxSyscalls.CALL_STATE);
        this.scratch = arena.allocate(SOCKADDR_IN.byteSize() + 16, 8);

        receiveSlots = Math.min(config.receiveBatch(), MAX_RECEIVE_SLOTS);
        receiveMessages = arena.allocate(MMSGHDR.byteSize() * receiveSlots, 8);
        receiveNames = arena.allocate(SOCKADDR_IN.byteSize() * receiveSlots, 8);
        MemorySegment receiveIovecs = arena.allocate(IOVEC.byteSize() * receiveSlots, 8);
        receiveControl = arena.allocate((long) RECEIVE_CONTROL_BYTES * receiveSlots, 8);
        receiveData = arena.allocate((long) RECEIVE_SLOT_BYTES * receiveSlots, 64);
        receiveView = new UnsafeBuffer(receiveData.address(), (int) receiveData.byteSize());
        for (int i = 0; i < receiveSlots; i++) {
            long iov = i * IOVEC.byteSize();
            receiveIovecs.set(JAVA_LONG, iov + IOV_BASE, receiveData.address() + (long) i * RECEIVE_SLOT_BYTES);
            receiveIovecs.set(JAVA_LONG, iov + IOV_LEN, RECEIVE_SLOT_BYTES);
            long m = i * MMSGHDR.byteSize();
            receiveMessages.set(JAVA_LONG, m + MSG_NAME, receiveNames.address() + i * SOCKADDR_IN.byteSize());
            receiveMessages.set(JAVA_LONG, m + MSG_IOV, receiveIovecs.address() + iov);
            receiveMessages.set(JAVA_LONG, m + MSG_IOVLEN, 1);
            receiveMessages.set(JAVA_LONG, m + MSG_CONTROL, receiveControl.address() + (long) i * RECEIVE_CONTROL_BYTES);
            receiveMessages.set(JAVA_INT, m + MSG_NAMELEN, (int) SOCKADDR_IN.byteSize());
            receiveMessages.set(JAVA_LONG, m + MSG_CONTROLLEN, RECEIVE_CONTROL_BYTES);
        }

        sendBatch = config.sendBatch();
        sendMessages = arena.allocate(MMSGHDR.byteSize() * sendBatch, 8);
        sendNames = arena.allocate(SOCKADDR_IN.byteSize() * sendBatch, 8);
        sendIovecs = arena.allocate(IOVEC.byteSize() * IOVECS_PER_DATAGRAM * sendBatch, 8);
        sendControl = arena.allocate(SEND_CONTROL_BYTES * sendBatch, 8);
        sendArea = arena.allocate(SEND_AREA_BYTES, 64);
        sendView = new UnsafeBuffer(sendArea.address(), SEND_AREA_BYTES);
        for (int i = 0; i < sendBatch; i++) {
            long m = i * MMSGHDR.byteSize();
            sendMessages.set(JAVA_LONG, m + MSG_NAME, sendNames.address() + i * SOCKADDR_IN.byteSize());
            sendMessages.set(JAVA_INT, m + MSG_NAMELEN, (int) SOCKADDR_IN.byteSize());
            sendNames.set(JAVA_SHORT, i * SOCKADDR_IN.byteSize() + SIN_FAMILY, (short) LinuxSyscalls.AF_INET);
            long c = i * SEND_CONTROL_BYTES;
            sendControl.set(JAVA_LONG, c + CMSG_LEN, CMSG_DATA + Short.BYTES);
            sendControl.set(JAVA_INT, c + CMSG_LEVEL, LinuxSyscalls.SOL_UDP);
            sendControl.set(JAVA_INT, c + CMSG_TYPE, LinuxSyscalls.UDP_SEGMENT);
        }
        queuedDestinations = new long[sendBatch];
        queuedOffsets = new int[sendBatch];
        queuedLengths = new int[sendBatch];
        queuedHeaderLengths = new int[sendBatch];
        queuedPayloadAddresses = new long[sendBatch];
        queuedPayloadLengths = new int[sendBatch];
        messageFirstDatagram = new int[sendBatch];
        messageSegments = new int[sendBatch];
        try {
            fd = openSocket();
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static int ipv4(InetAddress address) {
        byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** Opens, configures and binds a socket; sets the fields that describe it. */
    private int openSocket() throws IOException {
        int s = LinuxSyscalls.socket(callState, LinuxSyscalls.AF_INET, LinuxSyscalls.SOCK_DGRAM
                | LinuxSyscalls.SOCK_NONBLOCK | LinuxSyscalls.SOCK_CLOEXEC, 0);
        if (s < 0) {
            throw failure("socket", LinuxSyscalls.errno(callState));
        }
        try {
            setInt(s, LinuxSyscalls.SOL_SOCKET, LinuxSyscalls.SO_RCVBUF, config.socketBufferBytes(), "SO_RCVBUF");
            setInt(s, LinuxSyscalls.SOL_SOCKET, LinuxSyscalls.SO_SNDBUF, config.socketBufferBytes(), "SO_SNDBUF");
            setInt(s, LinuxSyscalls.IPPROTO_IP, LinuxSyscalls.IP_TOS, ECT_0, "IP_TOS");
            setInt(s, LinuxSyscalls.IPPROTO_IP, LinuxSyscalls.IP_RECVTOS, 1, "IP_RECVTOS");
            // GSO: the option exists (Linux 4.18+); 0 leaves the socket's default segment size unset.
            boolean gso = config.gso() && trySetInt(s, LinuxSyscalls.SOL_UDP, LinuxSyscalls.UDP_SEGMENT, 0);
            boolean gro = config.gro() && trySetInt(s, LinuxSyscalls.SOL_UDP, LinuxSyscalls.UDP_GRO, 1);
            for (int candidate = config.firstPort(); ; candidate++) {
                scratch.set(JAVA_SHORT, SIN_FAMILY, (short) LinuxSyscalls.AF_INET);
                scratch.set(NET_SHORT, SIN_PORT, (short) candidate);
                scratch.set(NET_INT, SIN_ADDR, bindIpv4);
                scratch.asSlice(SIN_ADDR + Integer.BYTES, 8).fill((byte) 0);
                if (LinuxSyscalls.bind(callState, s, scratch.address(), (int) SOCKADDR_IN.byteSize()) == 0) {
                    break;
                }
                int errno = LinuxSyscalls.errno(callState);
                if (errno != LinuxSyscalls.EADDRINUSE || config.ephemeralPorts() || candidate >= config.lastPort()) {
                    throw failure(config.ephemeralPorts() ? "bind to " + config.bindAddress().getHostAddress()
                            : "bind to a free port of " + config.firstPort() + "-" + config.lastPort() + " on "
                            + config.bindAddress().getHostAddress(), errno);
                }
            }
            long lengthAt = SOCKADDR_IN.byteSize();
            scratch.set(JAVA_INT, lengthAt, (int) SOCKADDR_IN.byteSize());
            if (LinuxSyscalls.getsockname(callState, s, scratch.address(), scratch.address() + lengthAt) < 0) {
                throw failure("getsockname", LinuxSyscalls.errno(callState));
            }
            int port = scratch.get(NET_SHORT, SIN_PORT) & 0xFFFF;
            int granted = getInt(s, LinuxSyscalls.SOL_SOCKET, LinuxSyscalls.SO_RCVBUF, "SO_RCVBUF");
            int grantedSend = getInt(s, LinuxSyscalls.SOL_SOCKET, LinuxSyscalls.SO_SNDBUF, "SO_SNDBUF");
            bound = new BoundSocket(IoMethod.NATIVE, new InetSocketAddress(config.bindAddress(), port), granted,
                    grantedSend);
            gsoActive = gso;
            groActive = gro;
            return s;
        } catch (IOException | RuntimeException e) {
            LinuxSyscalls.close(callState, s);
            throw e;
        }
    }

    private void setInt(int s, int level, int option, int value, String name) throws IOException {
        if (!trySetInt(s, level, option, value)) {
            throw failure("setsockopt " + name + "=" + value, LinuxSyscalls.errno(callState));
        }
    }

    private boolean trySetInt(int s, int level, int option, int value) {
        scratch.set(JAVA_INT, 0, value);
        return LinuxSyscalls.setsockopt(callState, s, level, option, scratch.address(), Integer.BYTES) == 0;
    }

    private int getInt(int s, int level, int option, String name) throws IOException {
        scratch.set(JAVA_INT, 0, 0);
        scratch.set(JAVA_INT, 8, Integer.BYTES);
        if (LinuxSyscalls.getsockopt(callState, s, level, option, scratch.address(), scratch.address() + 8) < 0) {
            throw failure("getsockopt " + name, LinuxSyscalls.errno(callState));
        }
        return scratch.get(JAVA_INT, 0);
    }

    private static IOException failure(String call, int errno) {
        return new IOException(call + " failed: errno " + errno);
    }

    @Override
    public BoundSocket bound() {
        return bound;
    }

    @Override
    public int descriptor() {
        return fd;
    }

    @Override
    public boolean gsoActive() {
        return gsoActive;
    }

    @Override
    public boolean groActive() {
        return groActive;
    }

    // ---------------------------------------------------------------------------------------------------- receive

    @Override
    public int receive(int maxDatagrams, Receiver receiver) {
        int delivered = 0;
        while (delivered < maxDatagrams) {
            int want = Math.min(receiveSlots, maxDatagrams - delivered);
            for (int i = 0; i < receiveSlotsUsed; i++) {   // the kernel rewrote these lengths in the slots it filled
                long m = i * MMSGHDR.byteSize();
                receiveMessages.set(JAVA_INT, m + MSG_NAMELEN, (int) SOCKADDR_IN.byteSize());
                receiveMessages.set(JAVA_LONG, m + MSG_CONTROLLEN, RECEIVE_CONTROL_BYTES);
            }
            receiveSlotsUsed = 0;
            int got = LinuxSyscalls.recvmmsg(callState, fd, receiveMessages.address(), want, LinuxSyscalls.MSG_DONTWAIT);
            if (got <= 0) {
                if (got < 0) {
                    int errno = LinuxSyscalls.errno(callState);
                    if (errno != LinuxSyscalls.EAGAIN && errno != LinuxSyscalls.EINTR) {
                        counters.ioErrors++;   // e.g. a queued ICMP error; the next read is unaffected
                    }
                }
                break;
            }
            counters.receiveCalls++;
            receiveSlotsUsed = got;
            for (int i = 0; i < got; i++) {
                delivered += deliver(i, receiver);
            }
            if (got < want) {
                break;   // the socket is drained
            }
        }
        return delivered;
    }

    /** Hands on the datagram (or, after GRO, the datagrams) in receive slot {@code i}. */
    private int deliver(int i, Receiver receiver) {
        long m = i * MMSGHDR.byteSize();
        int length = receiveMessages.get(JAVA_INT, m + MSG_LEN);
        if ((receiveMessages.get(JAVA_INT, m + MSG_FLAGS) & LinuxSyscalls.MSG_TRUNC) != 0) {
            counters.ioErrors++;   // larger than a slot: cannot be a MetaRoCE datagram
            return 0;
        }
        long name = i * SOCKADDR_IN.byteSize();
        long source = AddressKeys.ipv4Key(receiveNames.get(NET_INT, name + SIN_ADDR),
                receiveNames.get(NET_SHORT, name + SIN_PORT) & 0xFFFF);
        long controlBytes = receiveMessages.get(JAVA_LONG, m + MSG_CONTROLLEN);
        long control = (long) i * RECEIVE_CONTROL_BYTES;
        int ecn = NOT_ECT;
        int segmentBytes = 0;
        for (long at = 0; at + CMSG_DATA <= controlBytes; ) {
            long cmsgBytes = receiveControl.get(JAVA_LONG, control + at + CMSG_LEN);
            if (cmsgBytes < CMSG_DATA || at + cmsgBytes > controlBytes) {
                break;
            }
            int level = receiveControl.get(JAVA_INT, control + at + CMSG_LEVEL);
            int type = receiveControl.get(JAVA_INT, control + at + CMSG_TYPE);
            if (level == LinuxSyscalls.IPPROTO_IP && type == LinuxSyscalls.IP_TOS) {
                ecn = receiveControl.get(JAVA_BYTE, control + at + CMSG_DATA) & 0x03;
            } else if (level == LinuxSyscalls.SOL_UDP && type == LinuxSyscalls.UDP_GRO) {
                segmentBytes = receiveControl.get(JAVA_INT, control + at + CMSG_DATA);
            }
            at += LinuxSyscalls.align8(cmsgBytes);
        }
        int offset = i * RECEIVE_SLOT_BYTES;
        if (segmentBytes <= 0 || segmentBytes >= length) {
            receiver.onDatagram(source, receiveView, offset, length, ecn);
            return 1;
        }
        int n = 0;
        for (int at = 0; at < length; at += segmentBytes) {
            receiver.onDatagram(source, receiveView, offset + at, Math.min(segmentBytes, length - at), ecn);
            n++;
        }
        counters.groSegmentsReceived += n;
        return n;
    }

    // ------------------------------------------------------------------------------------------------------- send

    @Override
    public void send(long destination, DirectBuffer buffer, int offset, int length) {
        int at = claim(destination, length);
        if (at < 0) {
            counters.ioErrors++;   // an IPv6 peer, or larger than any UDP datagram
            return;
        }
        sendView.putBytes(at, buffer, offset, length);
        commit(length);
    }

    @Override
    public int claim(long destination, int maxLength) {
        if (!AddressKeys.isIpv4(destination) || maxLength > MAX_DATAGRAM_BYTES || maxLength < 0) {
            return -1;   // an IPv6 peer, or larger than any UDP datagram: send() counts it
        }
        if (queued == sendBatch || sendAreaUsed + maxLength > SEND_AREA_BYTES) {
            flush();
        }
        claimedDestination = destination;
        claimedMaxLength = maxLength;
        return sendAreaUsed;
    }

    @Override
    public MutableDirectBuffer sendBuffer() {
        return sendView;
    }

    @Override
    public MemorySegment sendSegment() {
        return sendArea;
    }

    @Override
    public void commit(int length) {
        if (length < 0 || length > claimedMaxLength) {
            throw new IllegalArgumentException("committed " + length + " bytes of a claim of " + claimedMaxLength);
        }
        queue(length, 0, 0, 0, length);
    }

    @Override
    public boolean gathers() {
        return true;
    }

    @Override
    public void commitGather(int headerLength, long payloadAddress, int payloadLength, int trailerLength) {
        int inArea = headerLength + trailerLength;
        if (headerLength <= 0 || trailerLength < 0 || payloadLength < 0 || inArea > claimedMaxLength
                || (long) inArea + payloadLength > MAX_DATAGRAM_BYTES) {
            throw new IllegalArgumentException("gathered " + headerLength + " + " + payloadLength + " + "
                    + trailerLength + " bytes on a claim of " + claimedMaxLength);
        }
        queue(inArea + payloadLength, headerLength, payloadAddress, payloadLength, inArea);
    }

    /**
     * Queues the claimed datagram of {@code length} bytes, {@code areaBytes} of them in the send area at the claim
     * (all of them unless it is gathered: {@code headerLength} > 0), and sends the batch once it is full.
     */
    private void queue(int length, int headerLength, long payloadAddress, int payloadLength, int areaBytes) {
        claimedMaxLength = -1;
        queuedDestinations[queued] = claimedDestination;
        queuedOffsets[queued] = sendAreaUsed;
        queuedLengths[queued] = length;
        queuedHeaderLengths[queued] = headerLength;
        queuedPayloadAddresses[queued] = payloadAddress;
        queuedPayloadLengths[queued] = payloadLength;
        queued++;
        sendAreaUsed += areaBytes;
        if (queued == sendBatch) {
            flush();
        }
    }

    @Override
    public void flush() {
        int next = 0;
        while (next < queued) {
            int messages = buildMessages(next);
            next = sendMessages(messages);
        }
        queued = 0;
        sendAreaUsed = 0;
    }

    /**
     * Lays out queued datagrams {@code first..} as messages, runs merged into GSO messages, each message's bytes as
     * iovecs (the send area's adjacent pieces as one); @return how many messages.
     */
    private int buildMessages(int first) {
        int m = 0;
        int iovecs = 0;
        for (int d = first; d < queued; m++) {
            int segments = gsoActive ? gsoRun(d) : 1;
            int firstIovec = iovecs;
            for (int s = 0; s < segments; s++) {
                int q = d + s;
                long area = sendArea.address() + queuedOffsets[q];
                int header = queuedHeaderLengths[q];
                if (header == 0) {
                    iovecs = appendIovec(iovecs, firstIovec, area, queuedLengths[q]);
                } else {
                    iovecs = appendIovec(iovecs, firstIovec, area, header);
                    iovecs = appendIovec(iovecs, firstIovec, queuedPayloadAddresses[q], queuedPayloadLengths[q]);
                    iovecs = appendIovec(iovecs, firstIovec, area + header,
                            queuedLengths[q] - header - queuedPayloadLengths[q]);
                }
            }
            long name = m * SOCKADDR_IN.byteSize();
            long destination = queuedDestinations[d];
            sendNames.set(NET_SHORT, name + SIN_PORT, (short) AddressKeys.port(destination));
            sendNames.set(NET_INT, name + SIN_ADDR, AddressKeys.ipv4(destination));
            long h = m * MMSGHDR.byteSize();
            sendMessages.set(JAVA_LONG, h + MSG_IOV, sendIovecs.address() + firstIovec * IOVEC.byteSize());
            sendMessages.set(JAVA_LONG, h + MSG_IOVLEN, iovecs - firstIovec);
            if (segments > 1) {
                long c = m * SEND_CONTROL_BYTES;
                sendControl.set(JAVA_SHORT, c + CMSG_DATA, (short) queuedLengths[d]);
                sendMessages.set(JAVA_LONG, h + MSG_CONTROL, sendControl.address() + c);
                sendMessages.set(JAVA_LONG, h + MSG_CONTROLLEN, SEND_CONTROL_BYTES);
            } else {
                sendMessages.set(JAVA_LONG, h + MSG_CONTROL, 0L);
                sendMessages.set(JAVA_LONG, h + MSG_CONTROLLEN, 0L);
            }
            sendMessages.set(JAVA_INT, h + MSG_FLAGS, 0);
            messageFirstDatagram[m] = d;
            messageSegments[m] = segments;
            d += segments;
        }
        return m;
    }

    /**
     * Adds {@code length} bytes at {@code address} to the message whose iovecs start at {@code firstIovec}: as a new
     * iovec, or by lengthening the last one when they follow it in memory.
     *
     * @return the iovecs in use after it
     */
    private int appendIovec(int iovecs, int firstIovec, long address, int length) {
        if (length == 0) {
            return iovecs;
        }
        if (iovecs > firstIovec) {
            long last = (iovecs - 1) * IOVEC.byteSize();
            long lastLength = sendIovecs.get(JAVA_LONG, last + IOV_LEN);
            if (sendIovecs.get(JAVA_LONG, last + IOV_BASE) + lastLength == address) {
                sendIovecs.set(JAVA_LONG, last + IOV_LEN, lastLength + length);
                return iovecs;
            }
        }
        long iov = iovecs * IOVEC.byteSize();
        sendIovecs.set(JAVA_LONG, iov + IOV_BASE, address);
        sendIovecs.set(JAVA_LONG, iov + IOV_LEN, length);
        return iovecs + 1;
    }

    /**
     * @return how many datagrams from {@code first} on go in one GSO message: same destination, same length (the
     *         last may be shorter), at most {@link #MAX_GSO_SEGMENTS} and {@link #MAX_GSO_BYTES}
     */
    private int gsoRun(int first) {
        long destination = queuedDestinations[first];
        int segmentBytes = queuedLengths[first];
        int bytes = segmentBytes;
        int n = 1;
        while (first + n < queued && n < MAX_GSO_SEGMENTS && queuedDestinations[first + n] == destination) {
            int length = queuedLengths[first + n];
            if (length > segmentBytes || bytes + length > MAX_GSO_BYTES) {
                break;
            }
            bytes += length;
            n++;
            if (length < segmentBytes) {
                break;   // a shorter datagram ends the run
            }
        }
        return n;
    }

    /**
     * Hands messages {@code 0..messages} to the kernel.
     *
     * @return the queued datagram to continue from: {@link #queued} when done, or the first datagram of a GSO
     *         message the kernel refused (GSO is then off and the rest goes again, datagram by datagram)
     */
    private int sendMessages(int messages) {
        int k = 0;
        int interrupts = 0;
        while (k < messages) {
            int sent = messages - k == 1 && messageSegments[k] == 1 ? sendOne(k)
                    : LinuxSyscalls.sendmmsg(callState, fd, sendMessages.address() + k * MMSGHDR.byteSize(),
                            messages - k, 0);
            if (sent > 0) {
                counters.sendCalls++;
                for (int j = k; j < k + sent; j++) {
                    int segments = messageSegments[j];
                    counters.datagramsSent += segments;
                    if (segments > 1) {
                        counters.gsoSegmentsSent += segments;
                        counters.gsoMessagesSent++;
                    }
                }
                k += sent;
                continue;
            }
            int errno = LinuxSyscalls.errno(callState);
            if (errno == LinuxSyscalls.EINTR && ++interrupts < 3) {
                continue;
            }
            if (errno == LinuxSyscalls.EAGAIN || errno == LinuxSyscalls.ENOBUFS) {
                counters.sendsRefused += queued - messageFirstDatagram[k];   // the send buffer is full: losses
                return queued;
            }
            if (messageSegments[k] > 1 && (errno == LinuxSyscalls.EINVAL || errno == LinuxSyscalls.EIO
                    || errno == LinuxSyscalls.ENOPROTOOPT || errno == LinuxSyscalls.EMSGSIZE)) {
                gsoActive = false;
                LOG.info("UDP GSO refused by the kernel on {} (errno {}): this socket sends datagram by datagram"
                        + " from now on", bound.localAddress(), errno);
                return messageFirstDatagram[k];
            }
            counters.ioErrors++;   // this message is lost; the rest still goes
            k++;
        }
        return queued;
    }

    /**
     * Sends message {@code k}, a lone datagram, with {@code sendto} where its bytes are one piece: the kernel then
     * copies no message header and no iovec array (about 0.2 us of a 3 us send of a small datagram here, where a round
     * trip of small messages is a few such sends).
     *
     * @return 1 when it was sent, -1 when it failed (errno in the call state), as sendmmsg would answer
     */
    private int sendOne(int k) {
        long h = k * MMSGHDR.byteSize();
        if (sendMessages.get(JAVA_LONG, h + MSG_IOVLEN) != 1) {
            return LinuxSyscalls.sendmmsg(callState, fd, sendMessages.address() + h, 1, 0);
        }
        long iov = sendMessages.get(JAVA_LONG, h + MSG_IOV) - sendIovecs.address();
        long sent = LinuxSyscalls.sendto(callState, fd, sendIovecs.get(JAVA_LONG, iov + IOV_BASE),
                sendIovecs.get(JAVA_LONG, iov + IOV_LEN), 0, sendNames.address() + k * SOCKADDR_IN.byteSize(),
                (int) SOCKADDR_IN.byteSize());
        return sent < 0 ? -1 : 1;
    }

    @Override
    public void rebind() throws IOException {
        flush();
        int old = fd;
        fd = openSocket();
        LinuxSyscalls.close(callState, old);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (fd >= 0) {
            LinuxSyscalls.close(callState, fd);
            fd = -1;
        }
        arena.close();
    }
}
