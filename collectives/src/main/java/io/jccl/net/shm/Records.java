package io.jccl.net.shm;

/**
 * The records a sender writes into a connection's ring. Every record starts on a 64-byte line and takes whole lines;
 * its first word, the stamp, is written last with release semantics and read with acquire semantics:
 *
 * <pre>
 * stamp (int64) = record number (bits 0-31) | kind (bits 32-39) | length (bits 40-63)
 * </pre>
 *
 * Records are numbered from 1 on each connection, so a stamp is never 0. Before a sender publishes a record's stamp it
 * writes 0 into the first word of the line that follows the record (where the next record will start, the ring's
 * start after the last line), so the word a receiver polls is always either 0 or the next record's stamp, never old
 * payload that happens to look like one; anything else is a broken peer.
 *
 * <table>
 * <caption>Kinds</caption>
 * <tr><th>kind</th><th>layout after the stamp</th><th>length field</th></tr>
 * <tr><td>INLINE: a whole message (the fast box when it fits one line)</td><td>8 tag, 16 payload</td>
 *     <td>payload bytes</td></tr>
 * <tr><td>START: first chunk of a pipelined message</td><td>8 tag, 16 message length, 24 reserved, 32 payload</td>
 *     <td>chunk bytes</td></tr>
 * <tr><td>MORE: next chunk</td><td>8 reserved, 16 payload</td><td>chunk bytes</td></tr>
 * <tr><td>CMA: the message lies in the sender's memory; read it with {@code process_vm_readv}</td>
 *     <td>8 tag, 16 message length, 24 address</td><td>0</td></tr>
 * <tr><td>REG: the message lies in the sender's registered heap, which the receiver maps</td>
 *     <td>8 tag, 16 message length, 24 offset in the heap</td><td>0</td></tr>
 * <tr><td>PAD: nothing until the ring's end; the next record starts at offset 0</td><td>-</td><td>0</td></tr>
 * </table>
 *
 * A one-line INLINE record carries up to {@value #FAST_BOX_PAYLOAD} bytes: tag, payload and stamp in one cache line,
 * which is what a fast box is. CMA and REG records are descriptors: the receiver copies the message straight from the
 * sender's memory into the receive, then counts it in the connection's acknowledgements, which completes the send.
 */
final class Records {
    static final int INLINE = 1;
    static final int START = 2;
    static final int MORE = 3;
    static final int CMA = 4;
    static final int REG = 5;
    static final int PAD = 6;

    static final long INLINE_HEADER = 16;
    static final long START_HEADER = 32;
    static final long MORE_HEADER = 16;
    static final long DESCRIPTOR_BYTES = 64;
    /** Payload of an INLINE record that fits one 64-byte line. */
    static final int FAST_BOX_PAYLOAD = 48;
    /** The largest value of the length field. */
    static final long MAX_LENGTH = (1L << 24) - 1;

    static final long TAG = 8;
    static final long TOTAL = 16;
    static final long ADDRESS = 24;

    private Records() {
    }

    /** @return the stamp of record {@code number} */
    static long stamp(long number, int kind, long length) {
        return (number & 0xFFFF_FFFFL) | ((long) kind << 32) | (length << 40);
    }

    static int number(long stamp) {
        return (int) stamp;
    }

    static int kind(long stamp) {
        return (int) (stamp >>> 32) & 0xFF;
    }

    static long length(long stamp) {
        return stamp >>> 40;
    }

    /** @return {@code bytes} rounded up to whole lines */
    static long lines(long bytes) {
        return (bytes + Layout.LINE - 1) & -Layout.LINE;
    }

    static String kindName(int kind) {
        return switch (kind) {
            case INLINE -> "INLINE";
            case START -> "START";
            case MORE -> "MORE";
            case CMA -> "CMA";
            case REG -> "REG";
            case PAD -> "PAD";
            default -> "unknown kind " + kind;
        };
    }
}
