package io.jccl.metaroce.protocol.wire;

/**
 * Flyweight over an ACK packet ({@link PacketType#ACK}): the common header, a 56-byte type header, no body, the CRC.
 * An ACK acknowledges one path (and generation), named by its common header.
 *
 * <pre>
 *  20  4  cumulative PSN   every PSN before it was received
 *  24  4  ECN count        CE-marked data packets received on the path so far (the sender takes differences)
 *  28  8  echo (ns)        timestamp of the data packet that triggered the ACK
 *  36  8  rate hint        bytes per second granted to the sender; 0 = no limit stated
 *  44 32  SACK             bit i (byte i/8, bit i%8) set when PSN cumulative + 1 + i was received
 * </pre>
 *
 * The SACK bitmap is read and written a bit at a time ({@link #sackBit}) or as four little-endian 64-bit words
 * ({@link #sackWord}): bit {@code i} of the bitmap is bit {@code i % 64} of word {@code i / 64}.
 */
public final class AckFlyweight extends TypedFlyweight<AckFlyweight> {
    /** Offset of the 4-byte cumulative PSN. */
    public static final int CUMULATIVE_PSN_FIELD_OFFSET = 20;
    /** Offset of the 4-byte ECN count. */
    public static final int ECN_COUNT_FIELD_OFFSET = 24;
    /** Offset of the 8-byte echoed timestamp (ns). */
    public static final int ECHO_TIMESTAMP_NS_FIELD_OFFSET = 28;
    /** Offset of the 8-byte rate hint (bytes per second). */
    public static final int RATE_HINT_FIELD_OFFSET = 36;
    /** Offset of the 32-byte SACK bitmap. */
    public static final int SACK_FIELD_OFFSET = 44;
    /** Length of the SACK bitmap in bytes. */
    public static final int SACK_LENGTH = 32;
    /** Bits in the SACK bitmap. */
    public static final int SACK_BITS = SACK_LENGTH * 8;
    /** 64-bit words in the SACK bitmap. */
    public static final int SACK_WORDS = SACK_LENGTH / 8;
    /** Length of the ACK type header. */
    public static final int TYPE_HEADER_LENGTH = 56;
    /** Length of an ACK datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public AckFlyweight() {
    }

    /**
     * Writes the common header of an ACK (type ACK, no flags, body length 0).
     *
     * @param pathId         the acknowledged path
     * @param pathGeneration its generation, as the data packets carried it
     * @param connectionId   the receiver's (the data sender's) id for the connection
     * @param sessionTag     the connection's session tag
     * @return this
     */
    public AckFlyweight putHeader(int pathId, int pathGeneration, int connectionId, int sessionTag) {
        return putHeader(PacketType.ACK, Flags.NONE, pathId, pathGeneration, connectionId, sessionTag, 0);
    }

    /** @return every PSN before this one has been received on the path */
    public int cumulativePsn() {
        return intField(CUMULATIVE_PSN_FIELD_OFFSET);
    }

    /**
     * @param cumulativePsn every PSN before this one has been received
     * @return this
     */
    public AckFlyweight cumulativePsn(int cumulativePsn) {
        putIntField(CUMULATIVE_PSN_FIELD_OFFSET, cumulativePsn);
        return this;
    }

    /** @return CE-marked data packets received on the path so far (wraps at 2³²) */
    public int ecnCount() {
        return intField(ECN_COUNT_FIELD_OFFSET);
    }

    /**
     * @param ecnCount CE-marked data packets received on the path so far
     * @return this
     */
    public AckFlyweight ecnCount(int ecnCount) {
        putIntField(ECN_COUNT_FIELD_OFFSET, ecnCount);
        return this;
    }

    /** @return the timestamp (ns, the sender's clock) of the data packet that triggered this ACK */
    public long echoTimestampNs() {
        return longField(ECHO_TIMESTAMP_NS_FIELD_OFFSET);
    }

    /**
     * @param echoTimestampNs the timestamp of the data packet that triggered this ACK
     * @return this
     */
    public AckFlyweight echoTimestampNs(long echoTimestampNs) {
        putLongField(ECHO_TIMESTAMP_NS_FIELD_OFFSET, echoTimestampNs);
        return this;
    }

    /** @return the bytes per second the receiver grants this sender; 0 = no limit stated */
    public long rateHintBytesPerSecond() {
        return longField(RATE_HINT_FIELD_OFFSET);
    }

    /**
     * @param rateHintBytesPerSecond the bytes per second granted to the sender; 0 = no limit stated
     * @return this
     */
    public AckFlyweight rateHintBytesPerSecond(long rateHintBytesPerSecond) {
        putLongField(RATE_HINT_FIELD_OFFSET, rateHintBytesPerSecond);
        return this;
    }

    /**
     * @param bit 0-255: PSN {@code cumulativePsn + 1 + bit}
     * @return whether that PSN was received
     * @throws IndexOutOfBoundsException when {@code bit} is not 0-255
     */
    public boolean sackBit(int bit) {
        checkBit(bit);
        return ((buffer.getByte(offset + SACK_FIELD_OFFSET + (bit >>> 3)) >>> (bit & 7)) & 1) != 0;
    }

    /**
     * Sets or clears one bit of the SACK bitmap.
     *
     * @param bit      0-255: PSN {@code cumulativePsn + 1 + bit}
     * @param received whether that PSN was received
     * @return this
     * @throws IndexOutOfBoundsException when {@code bit} is not 0-255
     */
    public AckFlyweight sackBit(int bit, boolean received) {
        checkBit(bit);
        final int index = offset + SACK_FIELD_OFFSET + (bit >>> 3);
        final int mask = 1 << (bit & 7);
        final int old = buffer.getByte(index);
        mutableBuffer.putByte(index, (byte) (received ? old | mask : old & ~mask));
        return this;
    }

    /**
     * Sets one bit of the SACK bitmap.
     *
     * @param bit 0-255: PSN {@code cumulativePsn + 1 + bit} was received
     * @return this
     * @throws IndexOutOfBoundsException when {@code bit} is not 0-255
     */
    public AckFlyweight setSackBit(int bit) {
        return sackBit(bit, true);
    }

    /**
     * Clears the whole SACK bitmap.
     *
     * @return this
     */
    public AckFlyweight clearSack() {
        for (int w = 0; w < SACK_WORDS; w++) {
            mutableBuffer.putLong(offset + SACK_FIELD_OFFSET + (w << 3), 0L, BYTE_ORDER);
        }
        return this;
    }

    /**
     * @param word 0-3
     * @return bits {@code 64 * word} to {@code 64 * word + 63} of the SACK bitmap (bitmap bit {@code 64 * word + j}
     *         is bit {@code j} of the result)
     * @throws IndexOutOfBoundsException when {@code word} is not 0-3
     */
    public long sackWord(int word) {
        checkWord(word);
        return buffer.getLong(offset + SACK_FIELD_OFFSET + (word << 3), BYTE_ORDER);
    }

    /**
     * @param word 0-3
     * @param bits bits {@code 64 * word} to {@code 64 * word + 63} of the SACK bitmap
     * @return this
     * @throws IndexOutOfBoundsException when {@code word} is not 0-3
     */
    public AckFlyweight sackWord(int word, long bits) {
        checkWord(word);
        mutableBuffer.putLong(offset + SACK_FIELD_OFFSET + (word << 3), bits, BYTE_ORDER);
        return this;
    }

    private static void checkBit(int bit) {
        if ((bit & ~(SACK_BITS - 1)) != 0) {
            throw new IndexOutOfBoundsException("SACK bit " + bit + " is not 0-" + (SACK_BITS - 1));
        }
    }

    private static void checkWord(int word) {
        if ((word & ~(SACK_WORDS - 1)) != 0) {
            throw new IndexOutOfBoundsException("SACK word " + word + " is not 0-" + (SACK_WORDS - 1));
        }
    }
}
