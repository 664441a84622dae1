package io.jccl.metaroce.protocol.wire;

import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.BODY_LENGTH_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.BYTE_ORDER;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.CONNECTION_ID_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.CRC_LENGTH;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.FLAGS_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.HEADER_LENGTH;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.MAGIC;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.MAGIC_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.MAX_PATH_ID;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.MAX_PAYLOAD_LENGTH;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.PATH_ID_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.RESERVED_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.SESSION_TAG_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.TYPE_FIELD_OFFSET;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.VERSION;
import static io.jccl.metaroce.protocol.wire.HeaderFlyweight.VERSION_FIELD_OFFSET;

import io.jccl.metaroce.protocol.DropReason;
import org.agrona.DirectBuffer;

/**
 * The structural checks every received datagram passes before anything reads it (wire format v1, "Validation"):
 * what can be decided from the datagram's bytes alone. Semantic checks (the connection, the session tag, the path
 * against the connection's paths, the generation, region and message bounds, handshake MACs) are the core's.
 *
 * <p>{@link #check} never throws and never allocates, whatever it is given; it reads nothing outside
 * {@code [offset, offset + length)}, and checks in this order, returning the first failure:
 * <ol>
 *   <li>{@link DropReason#TRUNCATED}: no buffer, a range outside the buffer, or shorter than the common header;</li>
 *   <li>{@link DropReason#BAD_MAGIC}, {@link DropReason#BAD_VERSION}, {@link DropReason#UNKNOWN_TYPE};</li>
 *   <li>{@link DropReason#TRUNCATED}: shorter than the common header, the type header and the CRC;</li>
 *   <li>{@link DropReason#BAD_LENGTH}: a DATA body of more than 65000 bytes, or of 0 bytes for a message that is not
 *       empty, a body on another type, or a length
 *       other than {@code 20 + type header + body length + 4};</li>
 *   <li>{@link DropReason#BAD_CRC};</li>
 *   <li>{@link DropReason#BAD_FIELD}: flags the type may not set (IMMEDIATE on a SEND, without LAST, or on a body
 *       shorter than the immediate), a path id over 63, a non-zero reserved field
 *       (the common header's; HANDSHAKE_INIT's reserved byte; a SEND's base), a handshake's common header with a
 *       non-zero session tag or (HANDSHAKE_INIT) connection id, a HANDSHAKE_INIT offering paths outside 1-64 or a
 *       payload size outside 256-65000.</li>
 * </ol>
 * Length and CRC come before the field checks, so random corruption is counted as {@code BAD_CRC} unless it hits the
 * magic, version, type or body length.
 *
 * <p>Not thread-safe (it owns a {@link Crc32c}): one per thread.
 */
public final class PacketValidator {
    private final Crc32c crc;

    /** A validator with its own {@link Crc32c}. */
    public PacketValidator() {
        this(new Crc32c());
    }

    /**
     * @param crc the CRC calculator to use (not shared with another thread)
     */
    public PacketValidator(Crc32c crc) {
        this.crc = crc;
    }

    /**
     * @param buffer holds the datagram (may be null: TRUNCATED)
     * @param offset where it starts
     * @param length its length in bytes
     * @return null when the datagram is structurally valid, else why it must be dropped
     */
    public DropReason check(DirectBuffer buffer, int offset, int length) {
        if (buffer == null || offset < 0 || length < 0 || offset > buffer.capacity() - length
                || length < HEADER_LENGTH) {
            return DropReason.TRUNCATED;
        }
        if ((buffer.getShort(offset + MAGIC_FIELD_OFFSET, BYTE_ORDER) & 0xFFFF) != MAGIC) {
            return DropReason.BAD_MAGIC;
        }
        if ((buffer.getByte(offset + VERSION_FIELD_OFFSET) & 0xFF) != VERSION) {
            return DropReason.BAD_VERSION;
        }
        final int type = buffer.getByte(offset + TYPE_FIELD_OFFSET) & 0xFF;
        final int typeHeaderLength = PacketType.typeHeaderLength(type);
        if (typeHeaderLength < 0) {
            return DropReason.UNKNOWN_TYPE;
        }
        final int headersLength = HEADER_LENGTH + typeHeaderLength;
        if (length < headersLength + CRC_LENGTH) {
            return DropReason.TRUNCATED;
        }
        final int bodyLength = buffer.getShort(offset + BODY_LENGTH_FIELD_OFFSET, BYTE_ORDER) & 0xFFFF;
        final int flags = buffer.getByte(offset + FLAGS_FIELD_OFFSET) & 0xFF;
        if (PacketType.isData(type)) {
            // An empty body only carries an empty message (zero-length SENDs are how collectives pass tokens); an
            // immediate's 4 bytes come on top of the payload.
            int immediateBytes = (flags & Flags.IMMEDIATE) != 0 ? DataFlyweight.IMMEDIATE_LENGTH : 0;
            if (bodyLength > MAX_PAYLOAD_LENGTH + immediateBytes || bodyLength == immediateBytes
                    && buffer.getLong(offset + DataFlyweight.MESSAGE_LENGTH_FIELD_OFFSET, BYTE_ORDER) != 0) {
                return DropReason.BAD_LENGTH;
            }
        } else if (bodyLength != 0) {
            return DropReason.BAD_LENGTH;
        }
        final int lengthWithoutCrc = headersLength + bodyLength;
        if (length != lengthWithoutCrc + CRC_LENGTH) {
            return DropReason.BAD_LENGTH;
        }
        if (crc.compute(buffer, offset, lengthWithoutCrc) != buffer.getInt(offset + lengthWithoutCrc, BYTE_ORDER)) {
            return DropReason.BAD_CRC;
        }
        if ((flags & ~PacketType.allowedFlags(type)) != 0
                || (flags & Flags.IMMEDIATE) != 0 && ((flags & Flags.LAST) == 0
                || bodyLength < DataFlyweight.IMMEDIATE_LENGTH)
                || (buffer.getByte(offset + PATH_ID_FIELD_OFFSET) & 0xFF) > MAX_PATH_ID
                || buffer.getShort(offset + RESERVED_FIELD_OFFSET, BYTE_ORDER) != 0) {
            return DropReason.BAD_FIELD;
        }
        return checkTypeFields(buffer, offset, type) ? null : DropReason.BAD_FIELD;
    }

    private static boolean checkTypeFields(DirectBuffer buffer, int offset, int type) {
        return switch (type) {
            case PacketType.SEND -> buffer.getLong(offset + DataFlyweight.BASE_FIELD_OFFSET, BYTE_ORDER) == 0;
            case PacketType.HANDSHAKE_INIT -> {
                final int paths = buffer.getByte(offset + HandshakeInitFlyweight.PATHS_FIELD_OFFSET) & 0xFF;
                final int payloadBytes =
                        buffer.getShort(offset + HandshakeInitFlyweight.PAYLOAD_BYTES_FIELD_OFFSET, BYTE_ORDER) & 0xFFFF;
                yield buffer.getInt(offset + CONNECTION_ID_FIELD_OFFSET, BYTE_ORDER) == 0
                        && buffer.getInt(offset + SESSION_TAG_FIELD_OFFSET, BYTE_ORDER) == 0
                        && buffer.getByte(offset + HandshakeInitFlyweight.INIT_RESERVED_FIELD_OFFSET) == 0
                        && paths >= HandshakeInitFlyweight.MIN_PATHS && paths <= HandshakeInitFlyweight.MAX_PATHS
                        && payloadBytes >= HandshakeInitFlyweight.MIN_PAYLOAD_BYTES
                        && payloadBytes <= HandshakeInitFlyweight.MAX_PAYLOAD_BYTES;
            }
            case PacketType.HANDSHAKE_ACCEPT -> buffer.getInt(offset + SESSION_TAG_FIELD_OFFSET, BYTE_ORDER) == 0;
            default -> true;
        };
    }
}
