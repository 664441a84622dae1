package io.jccl.net.aeronipc;

import io.jccl.net.HandleFormat;
import io.jccl.net.HandleToken;
import io.jccl.net.NetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A listener's handle: the driver directory, the IPC stream its hellos arrive on, the listening process and the
 * token a hello must carry. Little-endian layout:
 *
 * <pre>
 *  0  int32   magic 0x4A534848 ("JSHH")
 *  4  uint8   version 1
 *  5  uint8   reserved 0
 *  6  uint16  directory length in bytes, 1 to {@value #MAX_DIR_BYTES}
 *  8  int32   hello stream id
 * 12  int32   reserved 0
 * 16  int64   pid of the listening process, positive
 * 24  byte[16] token
 * 40  byte[]  the media driver directory, UTF-8
 * </pre>
 *
 * @param directory the media driver directory the listener's transport uses
 * @param streamId  the IPC stream id hellos are published on
 * @param pid       the listening process
 * @param token     the secret a hello presents
 */
record AeronIpcHandle(String directory, int streamId, long pid, HandleToken token) {
    static final int MAGIC = 0x4A534848;
    static final int VERSION = 1;
    static final int FIXED_BYTES = 40;
    static final int MAX_DIR_BYTES = 4096;

    AeronIpcHandle(String directory, int streamId, long pid, byte[] token) {
        this(directory, streamId, pid, HandleToken.of(token, Wire.TOKEN_BYTES));
    }

    /** @return the handle's bytes */
    byte[] encode() {
        byte[] dir = directory.getBytes(StandardCharsets.UTF_8);
        if (dir.length == 0 || dir.length > MAX_DIR_BYTES) {
            throw new IllegalStateException("directory name of " + dir.length + " bytes does not fit a handle");
        }
        ByteBuffer out = ByteBuffer.allocate(FIXED_BYTES + dir.length).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC).put((byte) VERSION).put((byte) 0).putShort((short) dir.length).putInt(streamId).putInt(0)
                .putLong(pid);
        token.put(out).put(dir);
        return out.array();
    }

    /**
     * Parses a handle made by {@link #encode()}.
     *
     * @param bytes the handle
     * @return the handle
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} when the bytes are not a valid handle
     */
    static AeronIpcHandle decode(byte[] bytes) {
        ByteBuffer in = HandleFormat.open(bytes, FIXED_BYTES + 1, ByteOrder.LITTLE_ENDIAN, MAGIC, VERSION,
                AeronIpcHandle::malformed);
        int reserved = Byte.toUnsignedInt(in.get());
        int dirBytes = Short.toUnsignedInt(in.getShort());
        int streamId = in.getInt();
        int reserved2 = in.getInt();
        long pid = in.getLong();
        if (reserved != 0 || reserved2 != 0) {
            throw malformed("nonzero reserved fields");
        }
        if (dirBytes == 0 || dirBytes > MAX_DIR_BYTES || bytes.length != FIXED_BYTES + dirBytes) {
            throw malformed("it has " + bytes.length + " bytes but names a directory of " + dirBytes
                    + " bytes (1 to " + MAX_DIR_BYTES + ")");
        }
        if (pid <= 0) {
            throw malformed("process id " + pid);
        }
        HandleToken token = HandleToken.read(in, Wire.TOKEN_BYTES);
        byte[] dir = new byte[dirBytes];
        in.get(dir);
        String directory;
        try {
            directory = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(dir)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("the directory name is not UTF-8");
        }
        return new AeronIpcHandle(directory, streamId, pid, token);
    }

    private static NetException malformed(String why) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed aeron-ipc handle: " + why);
    }

    @Override
    public String toString() {
        return "AeronIpcHandle[stream " + streamId + ", pid " + pid + ", " + directory + "]";
    }
}
