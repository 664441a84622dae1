package io.jccl.metaroce.protocol;

import java.util.Locale;

/** Why a datagram was dropped; each has a counter ({@code metaroce.drops.<name>}). */
public enum DropReason {
    /** Shorter than its headers. */
    TRUNCATED,
    /** Not a MetaRoCE packet. */
    BAD_MAGIC,
    /** Another protocol version. */
    BAD_VERSION,
    /** A type this version does not know. */
    UNKNOWN_TYPE,
    /** The datagram length does not match the type and body length. */
    BAD_LENGTH,
    /** The CRC32C does not match. */
    BAD_CRC,
    /** Reserved bits or fields are not zero, or a field is out of its range. */
    BAD_FIELD,
    /** No connection has that id. */
    UNKNOWN_CONNECTION,
    /** The session tag is not the connection's. */
    BAD_SESSION_TAG,
    /** The path id is beyond the connection's paths, or a HANDSHAKE_INIT asks more paths than the endpoint has. */
    BAD_PATH,
    /** The path generation is not the current one. */
    STALE_GENERATION,
    /** A WRITE names a region key that is not open for remote writes. */
    BAD_REGION_KEY,
    /** A WRITE falls outside its region. */
    REGION_BOUNDS,
    /** A SEND's offset and length fall outside its message or its posted receive. */
    MESSAGE_BOUNDS,
    /** A handshake whose MAC does not verify. */
    BAD_HANDSHAKE_MAC,
    /** A packet that makes no sense in the connection's state (e.g. data before the handshake completed). */
    UNEXPECTED;

    private final String metricName = "metaroce.drops." + name().toLowerCase(Locale.ROOT);

    /** @return the counter's stable name */
    public String metricName() {
        return metricName;
    }
}
