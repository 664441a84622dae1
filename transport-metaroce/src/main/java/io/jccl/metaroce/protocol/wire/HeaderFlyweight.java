package io.jccl.metaroce.protocol.wire;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over the 20-byte common header that starts every MetaRoCE packet (wire format v1). The typed
 * flyweights extend it, so the header's fields are read and written through any of them.
 *
 * <p>A flyweight holds no packet state: {@link #wrap} points it at a packet's first byte, and every accessor reads or
 * writes the buffer at a fixed offset from there, little-endian. Reuse one per type per thread; nothing is allocated
 * per packet. Setters need the flyweight wrapped over a {@link MutableDirectBuffer} (an {@code UnsafeBuffer} is one);
 * over a read-only {@link DirectBuffer} they throw {@link NullPointerException}. Accessors do not check that the
 * packet is valid: check a received datagram with {@link PacketValidator} first.
 *
 * <p>Unsigned fields (version, type, flags, path id: 8 bits; path generation, body length: 16 bits) are returned as
 * non-negative {@code int}s; setters write the low 8 or 16 bits of their argument. 32-bit identifiers and sequence
 * numbers are plain {@code int}s (compare PSNs with serial-number arithmetic).
 */
public class HeaderFlyweight {
    /** The byte order of every integer on the wire. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;
    /** The magic number, {@code 0x524D}: the bytes {@code 4D 52} ("MR") on the wire. */
    public static final int MAGIC = 0x524D;
    /** The wire format version these flyweights read and write. */
    public static final int VERSION = 1;

    /** Offset of the 2-byte magic. */
    public static final int MAGIC_FIELD_OFFSET = 0;
    /** Offset of the 1-byte version. */
    public static final int VERSION_FIELD_OFFSET = 2;
    /** Offset of the 1-byte type (a {@link PacketType} code). */
    public static final int TYPE_FIELD_OFFSET = 3;
    /** Offset of the 1-byte flags ({@link Flags}). */
    public static final int FLAGS_FIELD_OFFSET = 4;
    /** Offset of the 1-byte path id (0-63). */
    public static final int PATH_ID_FIELD_OFFSET = 5;
    /** Offset of the 2-byte path generation. */
    public static final int PATH_GENERATION_FIELD_OFFSET = 6;
    /** Offset of the 4-byte connection id (the receiver's id for the connection). */
    public static final int CONNECTION_ID_FIELD_OFFSET = 8;
    /** Offset of the 4-byte session tag. */
    public static final int SESSION_TAG_FIELD_OFFSET = 12;
    /** Offset of the 2-byte body length. */
    public static final int BODY_LENGTH_FIELD_OFFSET = 16;
    /** Offset of the 2 reserved bytes (0). */
    public static final int RESERVED_FIELD_OFFSET = 18;
    /** Length of the common header. */
    public static final int HEADER_LENGTH = 20;
    /** Length of the CRC32C trailer that ends every packet. */
    public static final int CRC_LENGTH = Crc32c.LENGTH;
    /** The largest path id. */
    public static final int MAX_PATH_ID = 63;
    /** The largest DATA payload (body length) in bytes; the smallest is 1. */
    public static final int MAX_PAYLOAD_LENGTH = 65_000;

    /** The wrapped buffer. */
    protected DirectBuffer buffer;
    /** The wrapped buffer when it is mutable, else null. */
    protected MutableDirectBuffer mutableBuffer;
    /** Where the packet starts in {@link #buffer}. */
    protected int offset;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public HeaderFlyweight() {
    }

    /**
     * Points this flyweight at a packet.
     *
     * @param buffer holds the packet; setters work when it is a {@link MutableDirectBuffer}
     * @param offset where the packet starts
     * @return this
     */
    public HeaderFlyweight wrap(DirectBuffer buffer, int offset) {
        this.buffer = buffer;
        this.mutableBuffer = buffer instanceof MutableDirectBuffer m ? m : null;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public final DirectBuffer buffer() {
        return buffer;
    }

    /** @return where the packet starts in the wrapped buffer */
    public final int offset() {
        return offset;
    }

    /**
     * Writes the whole common header: magic, version, the given fields, reserved 0.
     *
     * @param type           a {@link PacketType} code
     * @param flags          {@link Flags} bits
     * @param pathId         the path, 0-63
     * @param pathGeneration the path's generation (low 16 bits)
     * @param connectionId   the receiver's id for the connection (0 in HANDSHAKE_INIT)
     * @param sessionTag     the connection's session tag (0 in handshakes)
     * @param bodyLength     bytes of body (the DATA payload length; 0 for other types)
     * @return this
     */
    public HeaderFlyweight putHeader(int type, int flags, int pathId, int pathGeneration, int connectionId,
                                     int sessionTag, int bodyLength) {
        final MutableDirectBuffer b = mutableBuffer;
        final int o = offset;
        b.putShort(o + MAGIC_FIELD_OFFSET, (short) MAGIC, BYTE_ORDER);
        b.putByte(o + VERSION_FIELD_OFFSET, (byte) VERSION);
        b.putByte(o + TYPE_FIELD_OFFSET, (byte) type);
        b.putByte(o + FLAGS_FIELD_OFFSET, (byte) flags);
        b.putByte(o + PATH_ID_FIELD_OFFSET, (byte) pathId);
        b.putShort(o + PATH_GENERATION_FIELD_OFFSET, (short) pathGeneration, BYTE_ORDER);
        b.putInt(o + CONNECTION_ID_FIELD_OFFSET, connectionId, BYTE_ORDER);
        b.putInt(o + SESSION_TAG_FIELD_OFFSET, sessionTag, BYTE_ORDER);
        b.putShort(o + BODY_LENGTH_FIELD_OFFSET, (short) bodyLength, BYTE_ORDER);
        b.putShort(o + RESERVED_FIELD_OFFSET, (short) 0, BYTE_ORDER);
        return this;
    }

    /** @return the magic, 0-65535 ({@link #MAGIC} in a MetaRoCE packet) */
    public final int magic() {
        return uint16Field(MAGIC_FIELD_OFFSET);
    }

    /**
     * @param magic the magic (low 16 bits)
     * @return this
     */
    public HeaderFlyweight magic(int magic) {
        putUint16Field(MAGIC_FIELD_OFFSET, magic);
        return this;
    }

    /** @return the version, 0-255 */
    public final int version() {
        return uint8Field(VERSION_FIELD_OFFSET);
    }

    /**
     * @param version the version (low 8 bits)
     * @return this
     */
    public HeaderFlyweight version(int version) {
        putUint8Field(VERSION_FIELD_OFFSET, version);
        return this;
    }

    /** @return the type code, 0-255 (see {@link PacketType}) */
    public final int type() {
        return uint8Field(TYPE_FIELD_OFFSET);
    }

    /**
     * @param type a {@link PacketType} code (low 8 bits)
     * @return this
     */
    public HeaderFlyweight type(int type) {
        putUint8Field(TYPE_FIELD_OFFSET, type);
        return this;
    }

    /** @return the flags byte, 0-255 (see {@link Flags}) */
    public final int flags() {
        return uint8Field(FLAGS_FIELD_OFFSET);
    }

    /**
     * @param flags {@link Flags} bits (low 8 bits)
     * @return this
     */
    public HeaderFlyweight flags(int flags) {
        putUint8Field(FLAGS_FIELD_OFFSET, flags);
        return this;
    }

    /**
     * @param flag one or more {@link Flags} bits
     * @return whether all of them are set
     */
    public final boolean hasFlags(int flag) {
        return Flags.isSet(flags(), flag);
    }

    /** @return whether {@link Flags#LAST} is set */
    public final boolean isLast() {
        return hasFlags(Flags.LAST);
    }

    /** @return whether {@link Flags#ACK_REQUESTED} is set */
    public final boolean isAckRequested() {
        return hasFlags(Flags.ACK_REQUESTED);
    }

    /** @return whether {@link Flags#RETRANSMISSION} is set */
    public final boolean isRetransmission() {
        return hasFlags(Flags.RETRANSMISSION);
    }

    /** @return the path id, 0-255 (0-63 in a valid packet) */
    public final int pathId() {
        return uint8Field(PATH_ID_FIELD_OFFSET);
    }

    /**
     * @param pathId the path id, 0-63
     * @return this
     */
    public HeaderFlyweight pathId(int pathId) {
        putUint8Field(PATH_ID_FIELD_OFFSET, pathId);
        return this;
    }

    /** @return the path generation, 0-65535 */
    public final int pathGeneration() {
        return uint16Field(PATH_GENERATION_FIELD_OFFSET);
    }

    /**
     * @param pathGeneration the path generation (low 16 bits)
     * @return this
     */
    public HeaderFlyweight pathGeneration(int pathGeneration) {
        putUint16Field(PATH_GENERATION_FIELD_OFFSET, pathGeneration);
        return this;
    }

    /** @return the connection id: the receiver's id for the connection */
    public final int connectionId() {
        return intField(CONNECTION_ID_FIELD_OFFSET);
    }

    /**
     * @param connectionId the receiver's id for the connection
     * @return this
     */
    public HeaderFlyweight connectionId(int connectionId) {
        putIntField(CONNECTION_ID_FIELD_OFFSET, connectionId);
        return this;
    }

    /** @return the session tag */
    public final int sessionTag() {
        return intField(SESSION_TAG_FIELD_OFFSET);
    }

    /**
     * @param sessionTag the connection's session tag
     * @return this
     */
    public HeaderFlyweight sessionTag(int sessionTag) {
        putIntField(SESSION_TAG_FIELD_OFFSET, sessionTag);
        return this;
    }

    /** @return the body length in bytes, 0-65535 (the DATA payload length; 0 for other types) */
    public final int bodyLength() {
        return uint16Field(BODY_LENGTH_FIELD_OFFSET);
    }

    /**
     * @param bodyLength the body length in bytes (low 16 bits)
     * @return this
     */
    public HeaderFlyweight bodyLength(int bodyLength) {
        putUint16Field(BODY_LENGTH_FIELD_OFFSET, bodyLength);
        return this;
    }

    /** @return the reserved field, 0-65535 (0 in a valid packet) */
    public final int reserved() {
        return uint16Field(RESERVED_FIELD_OFFSET);
    }

    /**
     * @param reserved the reserved field (low 16 bits; 0 in a valid packet)
     * @return this
     */
    public HeaderFlyweight reserved(int reserved) {
        putUint16Field(RESERVED_FIELD_OFFSET, reserved);
        return this;
    }

    /**
     * @return the packet's length without its CRC trailer, from its type and body length: where the CRC starts,
     *         relative to {@link #offset()}; -1 when the type is unknown
     */
    public final int lengthWithoutCrc() {
        final int typeHeaderLength = PacketType.typeHeaderLength(type());
        return typeHeaderLength < 0 ? -1 : HEADER_LENGTH + typeHeaderLength + bodyLength();
    }

    /** @return the whole datagram's length (CRC included) from its type and body length; -1 when the type is unknown */
    public final int frameLength() {
        final int length = lengthWithoutCrc();
        return length < 0 ? -1 : length + CRC_LENGTH;
    }

    /**
     * @return the CRC32C trailer as stored (at {@link #lengthWithoutCrc()})
     * @throws IllegalStateException when the type is unknown (the trailer cannot be found)
     */
    public final int crc() {
        final int length = lengthWithoutCrc();
        if (length < 0) {
            throw new IllegalStateException("unknown packet type");
        }
        return intField(length);
    }

    /*
     * Field access for this class and the typed flyweights: every accessor is one of these at its field's offset
     * from the packet start. Final and tiny, so they inline into the per-packet code.
     */

    /**
     * @param fieldOffset the field's offset from the packet start
     * @return the unsigned 8-bit field there
     */
    protected final int uint8Field(int fieldOffset) {
        return buffer.getByte(offset + fieldOffset) & 0xFF;
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @return the unsigned little-endian 16-bit field there
     */
    protected final int uint16Field(int fieldOffset) {
        return buffer.getShort(offset + fieldOffset, BYTE_ORDER) & 0xFFFF;
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @return the little-endian 32-bit field there
     */
    protected final int intField(int fieldOffset) {
        return buffer.getInt(offset + fieldOffset, BYTE_ORDER);
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @return the little-endian 64-bit field there
     */
    protected final long longField(int fieldOffset) {
        return buffer.getLong(offset + fieldOffset, BYTE_ORDER);
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @param value       written as its low 8 bits
     */
    protected final void putUint8Field(int fieldOffset, int value) {
        mutableBuffer.putByte(offset + fieldOffset, (byte) value);
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @param value       written as its low 16 bits, little-endian
     */
    protected final void putUint16Field(int fieldOffset, int value) {
        mutableBuffer.putShort(offset + fieldOffset, (short) value, BYTE_ORDER);
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @param value       written little-endian
     */
    protected final void putIntField(int fieldOffset, int value) {
        mutableBuffer.putInt(offset + fieldOffset, value, BYTE_ORDER);
    }

    /**
     * @param fieldOffset the field's offset from the packet start
     * @param value       written little-endian
     */
    protected final void putLongField(int fieldOffset, long value) {
        mutableBuffer.putLong(offset + fieldOffset, value, BYTE_ORDER);
    }
}
