package io.jccl.net.shm;

import io.jccl.net.HandleFormat;
import io.jccl.net.HandleToken;
import io.jccl.net.NetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A listener's handle: which process listens, its segment (descriptor, size, token) and the listener's id.
 * Little-endian layout:
 *
 * <pre>
 *  0  int32   magic 0x4A534832 ("JSH2")
 *  4  uint8   version 1
 *  5  uint8   listener id, 1 to 63
 *  6  uint16  reserved 0
 *  8  int64   pid of the listening process, positive
 * 16  int64   its descriptor of the segment
 * 24  int64   the segment's bytes
 * 32  byte[16] the segment's token
 * 48  int32   the listening rank
 * 52  int32   reserved 0
 * </pre>
 *
 * @param listenerId   the listener's bit in the segment's listener mask
 * @param pid          the listening process
 * @param fd           its descriptor of the segment
 * @param segmentBytes the segment's size
 * @param token        the segment's token
 * @param rank         the listening rank
 */
record ShmHandle(int listenerId, long pid, long fd, long segmentBytes, HandleToken token, int rank) {
    static final int MAGIC = 0x4A534832;
    static final int VERSION = 1;
    static final int BYTES = 56;

    ShmHandle(int listenerId, long pid, long fd, long segmentBytes, byte[] token, int rank) {
        this(listenerId, pid, fd, segmentBytes, HandleToken.of(token, Layout.TOKEN_BYTES), rank);
    }

    /** @return the handle's bytes */
    byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC).put((byte) VERSION).put((byte) listenerId).putShort((short) 0).putLong(pid).putLong(fd)
                .putLong(segmentBytes);
        token.put(out).putInt(rank).putInt(0);
        return out.array();
    }

    /**
     * @param bytes a handle made by {@link #encode()}
     * @return the handle
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} when the bytes are not a valid handle
     */
    static ShmHandle decode(byte[] bytes) {
        ByteBuffer in = HandleFormat.open(bytes, BYTES, ByteOrder.LITTLE_ENDIAN, MAGIC, VERSION, ShmHandle::malformed);
        if (bytes.length != BYTES) {
            throw malformed("it has " + bytes.length + " bytes, not " + BYTES);
        }
        int listenerId = Byte.toUnsignedInt(in.get());
        int reserved = Short.toUnsignedInt(in.getShort());
        long pid = in.getLong();
        long fd = in.getLong();
        long segmentBytes = in.getLong();
        HandleToken token = HandleToken.read(in, Layout.TOKEN_BYTES);
        int rank = in.getInt();
        int reserved2 = in.getInt();
        if (reserved != 0 || reserved2 != 0) {
            throw malformed("nonzero reserved field");
        }
        if (listenerId < 1 || listenerId > Layout.MAX_LISTENERS) {
            throw malformed("listener id " + listenerId + " (1 to " + Layout.MAX_LISTENERS + ")");
        }
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw malformed("process id " + pid);
        }
        if (fd < 0 || fd > Integer.MAX_VALUE) {
            throw malformed("descriptor " + fd);
        }
        if (segmentBytes < Layout.HEADER_BYTES || segmentBytes > (1L << 46)) {
            throw malformed("segment of " + segmentBytes + " bytes");
        }
        if (rank < 0) {
            throw malformed("rank " + rank);
        }
        return new ShmHandle(listenerId, pid, fd, segmentBytes, token, rank);
    }

    private static NetException malformed(String why) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed shm handle: " + why);
    }

    @Override
    public String toString() {
        return "ShmHandle[rank " + rank + ", pid " + pid + ", fd " + fd + ", listener " + listenerId + ", " + segmentBytes + " bytes]";
    }
}
