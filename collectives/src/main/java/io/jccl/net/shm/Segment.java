package io.jccl.net.shm;

import io.jccl.net.NetException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * A rank's shared-memory segment as one process maps it: its own (created by its transport) or a peer's.
 *
 * <p>The memory is an anonymous {@code memfd}: it has no name in {@code /dev/shm} at any time, so nothing is left
 * behind when processes are killed; the kernel frees it once the last process that maps it is gone. A peer opens
 * it through {@code /proc/<pid>/fd/<fd>} (the creator's descriptor, named in the listener handle), which Linux
 * allows to processes of the same user that may read the creator's process state. The creator seals the size
 * ({@code F_SEAL_SHRINK | F_SEAL_GROW}) before anyone sees it, and a peer refuses a segment without those seals: a
 * segment that could shrink under a mapping would crash the mapping process with {@code SIGBUS}.
 *
 * <p>The header (see {@link Layout}) is written before the segment is published and never changes; a peer's header is
 * checked once when it is mapped, then its values are kept in this object's fields, so nothing a peer writes later can
 * move this rank's accesses.
 */
final class Segment implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    final MemorySegment memory;
    final long pid;
    final int fd;
    final long bytes;
    final int slots;
    final long ringBytes;
    final long slotBytes;
    final long slotsOffset;
    final long heapOffset;
    final long heapBytes;
    private final byte[] token;
    private final Arena arena;
    private final boolean own;

    private Segment(MemorySegment memory, Arena arena, long pid, int fd, byte[] token, boolean own) {
        this.memory = memory;
        this.arena = arena;
        this.pid = pid;
        this.fd = fd;
        this.token = token;
        this.own = own;
        this.bytes = memory.byteSize();
        this.slots = memory.get(INT, Layout.H_SLOTS);
        this.ringBytes = memory.get(LONG, Layout.H_RING_BYTES);
        this.slotBytes = memory.get(LONG, Layout.H_SLOT_BYTES);
        this.slotsOffset = memory.get(LONG, Layout.H_SLOTS_OFFSET);
        this.heapOffset = memory.get(LONG, Layout.H_HEAP_OFFSET);
        this.heapBytes = memory.get(LONG, Layout.H_HEAP_BYTES);
    }

    /**
     * Creates this process's segment.
     *
     * @param slots     connections it can accept
     * @param ringBytes bytes of each connection's ring
     * @param heapBytes bytes of the registered heap
     * @return the mapped segment, header written
     * @throws NetException with {@link NetException.Reason#IO_ERROR} when the kernel refuses
     */
    static Segment create(int slots, long ringBytes, long heapBytes) {
        long bytes = Layout.segmentBytes(slots, ringBytes, heapBytes);
        try (Arena temp = Arena.ofConfined()) {
            MemorySegment state = temp.allocate(LinuxCalls.CALL_STATE);
            MemorySegment name = temp.allocateFrom("jccl-shm");
            int fd = LinuxCalls.memfdCreate(state, name.address(), LinuxCalls.MFD_CLOEXEC
                    | LinuxCalls.MFD_ALLOW_SEALING);
            if (fd < 0) {
                throw ioError("memfd_create failed", state);
            }
            boolean done = false;
            try {
                if (LinuxCalls.ftruncate(state, fd, bytes) != 0) {
                    throw ioError("ftruncate of the segment to " + bytes + " bytes failed", state);
                }
                if (LinuxCalls.fcntl(state, fd, LinuxCalls.F_ADD_SEALS, LinuxCalls.F_SEAL_SHRINK
                        | LinuxCalls.F_SEAL_GROW | LinuxCalls.F_SEAL_SEAL) != 0) {
                    throw ioError("sealing the segment's size failed", state);
                }
                Mapping mapping = mapDescriptor(state, fd, bytes);
                MemorySegment memory = mapping.memory();
                byte[] token = new byte[Layout.TOKEN_BYTES];
                RANDOM.nextBytes(token);
                long pid = ProcessHandle.current().pid();
                long heapOffset = Layout.heapOffset(slots, ringBytes);
                memory.set(LONG, Layout.H_MAGIC, Layout.MAGIC);
                memory.set(INT, Layout.H_VERSION, Layout.VERSION);
                memory.set(INT, Layout.H_SLOTS, slots);
                memory.set(LONG, Layout.H_RING_BYTES, ringBytes);
                memory.set(LONG, Layout.H_SLOT_BYTES, Layout.slotBytes(ringBytes));
                memory.set(LONG, Layout.H_SLOTS_OFFSET, Layout.HEADER_BYTES);
                memory.set(LONG, Layout.H_HEAP_OFFSET, heapOffset);
                memory.set(LONG, Layout.H_HEAP_BYTES, heapBytes);
                memory.set(LONG, Layout.H_PID, pid);
                MemorySegment.copy(MemorySegment.ofArray(token), 0, memory, Layout.H_TOKEN, Layout.TOKEN_BYTES);
                memory.set(LONG, Layout.H_SEGMENT_BYTES, bytes);
                done = true;
                return new Segment(memory, mapping.arena(), pid, fd, token, true);
            } finally {
                if (!done) {
                    LinuxCalls.close(state, fd);
                }
            }
        }
    }

    /**
     * Maps a peer's segment through its creator's descriptor and checks its header.
     *
     * @param pid   the creator
     * @param fd    the creator's descriptor of it
     * @param bytes its size, as the handle or offer says
     * @param token its token, as the handle or offer says
     * @return the mapping
     * @throws NetException PEER_CLOSED when the process or descriptor is gone, IO_ERROR when the kernel refuses,
     *                      PROTOCOL_ERROR when the segment is not what it was said to be
     */
    static Segment map(long pid, long fd, long bytes, byte[] token) {
        if (pid <= 0 || pid > Integer.MAX_VALUE || fd < 0 || fd > Integer.MAX_VALUE) {
            throw protocolError("names process " + pid + " and descriptor " + fd);
        }
        if (bytes < Layout.HEADER_BYTES || bytes > (1L << 46)) {
            throw protocolError("has an impossible size of " + bytes + " bytes");
        }
        String path = "/proc/" + pid + "/fd/" + fd;
        try (Arena temp = Arena.ofConfined()) {
            MemorySegment state = temp.allocate(LinuxCalls.CALL_STATE);
            int local = LinuxCalls.open(state, temp.allocateFrom(path).address(), LinuxCalls.O_RDWR
                    | LinuxCalls.O_CLOEXEC);
            if (local < 0) {
                int errno = LinuxCalls.errno(state);
                if (errno == LinuxCalls.ENOENT || errno == LinuxCalls.ESRCH) {
                    throw new NetException(NetException.Reason.PEER_CLOSED, "cannot open the shm segment of process "
                            + pid + " (" + path + "): " + LinuxCalls.errnoName(errno) + "; the process is gone");
                }
                throw new NetException(NetException.Reason.IO_ERROR, "cannot open the shm segment of process " + pid
                        + " (" + path + "): " + LinuxCalls.errnoName(errno) + (errno == LinuxCalls.EACCES
                        || errno == LinuxCalls.EPERM ? "; processes of one host must run as the same user, in one"
                        + " pid namespace, and be allowed to read each other's /proc entries" : ""));
            }
            try {
                int seals = LinuxCalls.fcntl(state, local, LinuxCalls.F_GET_SEALS, 0);
                if (seals < 0 || (seals & (LinuxCalls.F_SEAL_SHRINK | LinuxCalls.F_SEAL_GROW))
                        != (LinuxCalls.F_SEAL_SHRINK | LinuxCalls.F_SEAL_GROW)) {
                    throw protocolError("of process " + pid + " (" + path + ") is not a sealed shm segment");
                }
                long size = LinuxCalls.lseek(state, local, 0, LinuxCalls.SEEK_END);
                if (size != bytes) {
                    throw protocolError("of process " + pid + " has " + size + " bytes, not the " + bytes
                            + " it was said to have");
                }
                Mapping mapping = mapDescriptor(state, local, bytes);
                try {
                    checkHeader(mapping.memory(), pid, bytes, token);
                } catch (NetException e) {
                    mapping.arena().close();
                    throw e;
                }
                return new Segment(mapping.memory(), mapping.arena(), pid, -1, token.clone(), false);
            } finally {
                LinuxCalls.close(state, local);
            }
        }
    }

    private static void checkHeader(MemorySegment m, long pid, long bytes, byte[] token) {
        if (m.get(LONG, Layout.H_MAGIC) != Layout.MAGIC) {
            throw protocolError("of process " + pid + " has bad magic 0x" + Long.toHexString(m.get(LONG,
                    Layout.H_MAGIC)));
        }
        int version = m.get(INT, Layout.H_VERSION);
        if (version != Layout.VERSION) {
            throw protocolError("of process " + pid + " has version " + version + " (this side reads "
                    + Layout.VERSION + ")");
        }
        byte[] actual = m.asSlice(Layout.H_TOKEN, Layout.TOKEN_BYTES).toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(actual, token)) {
            throw protocolError("of process " + pid + " carries another token than it was said to");
        }
        if (m.get(LONG, Layout.H_PID) != pid || m.get(LONG, Layout.H_SEGMENT_BYTES) != bytes) {
            throw protocolError("of process " + pid + " names process " + m.get(LONG, Layout.H_PID) + " and "
                    + m.get(LONG, Layout.H_SEGMENT_BYTES) + " bytes");
        }
        int slots = m.get(INT, Layout.H_SLOTS);
        long ring = m.get(LONG, Layout.H_RING_BYTES);
        if (slots < 1 || slots > Layout.MAX_SLOTS || Long.bitCount(ring) != 1 || ring < ShmOptions.MIN_RING_BYTES
                || ring > ShmOptions.MAX_RING_BYTES || m.get(LONG, Layout.H_SLOT_BYTES) != Layout.slotBytes(ring)
                || m.get(LONG, Layout.H_SLOTS_OFFSET) != Layout.HEADER_BYTES
                || m.get(LONG, Layout.H_HEAP_OFFSET) != Layout.heapOffset(slots, ring)
                || m.get(LONG, Layout.H_HEAP_BYTES) < 0
                || m.get(LONG, Layout.H_HEAP_OFFSET) + m.get(LONG, Layout.H_HEAP_BYTES) != bytes) {
            throw protocolError("of process " + pid + " has an inconsistent layout: " + slots + " slots, rings of "
                    + ring + " bytes, heap " + m.get(LONG, Layout.H_HEAP_BYTES) + " bytes in " + bytes);
        }
    }

    /** A mapping and the arena whose closing unmaps it. */
    private record Mapping(MemorySegment memory, Arena arena) {
    }

    @SuppressWarnings("restricted") // native access, which JCCL's JVM flags enable
    private static Mapping mapDescriptor(MemorySegment state, int fd, long bytes) {
        long address = LinuxCalls.mmap(state, bytes, fd);
        if (address == -1L) {
            throw ioError("mmap of " + bytes + " bytes failed", state);
        }
        Arena arena = Arena.ofShared();
        return new Mapping(MemorySegment.ofAddress(address).reinterpret(bytes, arena, s -> unmap(s.address(), bytes)),
                arena);
    }

    private static void unmap(long address, long bytes) {
        try (Arena temp = Arena.ofConfined()) {
            LinuxCalls.munmap(temp.allocate(LinuxCalls.CALL_STATE), address, bytes);
        }
    }

    /** @return the token peers must present */
    byte[] token() {
        return token.clone();
    }

    /** @return whether this token is the segment's */
    boolean hasToken(byte[] candidate) {
        return Arrays.equals(token, candidate);
    }

    /** @return offset of slot {@code index}'s control block in {@link #memory} */
    long slotOffset(int index) {
        return slotsOffset + index * slotBytes;
    }

    /** @return a view of slot {@code index}: its control block, then its ring */
    MemorySegment slot(int index) {
        return memory.asSlice(slotOffset(index), slotBytes);
    }

    /** @return whether this process created the segment */
    boolean own() {
        return own;
    }

    /** @return whether the mapping is still open */
    boolean isOpen() {
        return arena.scope().isAlive();
    }

    /** Unmaps the segment (and, for this process's own, closes its descriptor); later accesses throw. */
    @Override
    public synchronized void close() {
        if (!arena.scope().isAlive()) {
            return;
        }
        arena.close();
        if (own) {
            try (Arena temp = Arena.ofConfined()) {
                LinuxCalls.close(temp.allocate(LinuxCalls.CALL_STATE), fd);
            }
        }
    }

    private static NetException ioError(String what, MemorySegment state) {
        return new NetException(NetException.Reason.IO_ERROR, "shm: " + what + ": "
                + LinuxCalls.errnoName(LinuxCalls.errno(state)));
    }

    private static NetException protocolError(String what) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "the shm segment " + what);
    }

    @Override
    public String toString() {
        return "shm segment of process " + pid + " (" + bytes + " bytes, " + slots + " slots)";
    }
}
