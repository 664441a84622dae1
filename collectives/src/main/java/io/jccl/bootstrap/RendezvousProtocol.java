package io.jccl.bootstrap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/**
 * Constants and key derivation of the rendezvous wire protocol; {@link RendezvousServer} documents the protocol.
 */
final class RendezvousProtocol {
    /** "JCCL" in ASCII: the first four bytes a client sends. */
    static final int MAGIC = 0x4A43434C;
    /** The protocol version this code speaks. */
    static final int VERSION = 1;

    static final int NONCE_BYTES = 32;
    static final int MAC_BYTES = 32;
    static final int SECRET_BYTES = 32;
    /** The largest all-gather contribution. */
    static final int MAX_PAYLOAD_BYTES = 16 << 20;
    /** The largest refusal or error text, in UTF-8 bytes. */
    static final int MAX_REASON_BYTES = 4096;
    /** The most missing ranks a STATUS frame lists (it also carries the total). */
    static final int MAX_LISTED_RANKS = 64;

    /** HELLO: magic, version, client nonce; sent raw, before any frame. */
    static final int HELLO_BYTES = 4 + 2 + NONCE_BYTES;

    // Frame types. Before authentication: CHALLENGE, ACCEPT, REFUSE (server to client).
    static final byte CHALLENGE = 0x01;
    static final byte ACCEPT = 0x02;
    // Client to server, authenticated.
    static final byte JOIN = 0x10;
    static final byte CONTRIBUTE = 0x11;
    static final byte QUERY = 0x12;
    static final byte BYE = 0x13;
    /** A client gives up (e.g. it timed out) and says why before it closes. */
    static final byte ABORT = 0x14;
    // Server to client, authenticated.
    static final byte WELCOME = 0x20;
    static final byte ENTRY = 0x21;
    static final byte STATUS = 0x22;
    static final byte ERROR = 0x7E;
    /** Server to client; authenticated once the handshake has derived the keys, plain before. */
    static final byte REFUSE = 0x7F;

    private static final String ALGORITHM = "HmacSHA256";

    private RendezvousProtocol() {
    }

    /**
     * @return the smallest and largest body length a frame of this type may have, or null for an unknown type
     */
    static int[] bodyBounds(byte type) {
        return switch (type) {
            case CHALLENGE -> new int[] {HELLO_BYTES, HELLO_BYTES};
            case ACCEPT -> new int[] {MAC_BYTES, MAC_BYTES};
            case JOIN -> new int[] {8, 8};
            case CONTRIBUTE -> new int[] {4, 4 + MAX_PAYLOAD_BYTES};
            case QUERY -> new int[] {4, 4};
            case BYE, WELCOME -> new int[] {0, 0};
            case ENTRY -> new int[] {8, 8 + MAX_PAYLOAD_BYTES};
            case STATUS -> new int[] {8, 8 + 4 * MAX_LISTED_RANKS};
            case ERROR, REFUSE, ABORT -> new int[] {0, MAX_REASON_BYTES};
            default -> null;
        };
    }

    /** @return a readable name for a frame type */
    static String typeName(byte type) {
        return switch (type) {
            case CHALLENGE -> "CHALLENGE";
            case ACCEPT -> "ACCEPT";
            case JOIN -> "JOIN";
            case CONTRIBUTE -> "CONTRIBUTE";
            case QUERY -> "QUERY";
            case BYE -> "BYE";
            case ABORT -> "ABORT";
            case WELCOME -> "WELCOME";
            case ENTRY -> "ENTRY";
            case STATUS -> "STATUS";
            case ERROR -> "ERROR";
            case REFUSE -> "REFUSE";
            default -> String.format("0x%02x", type & 0xff);
        };
    }

    /** The proof a client sends: HMAC(secret, "jccl-rendezvous-v1 client-proof" 0 clientNonce serverNonce). */
    static byte[] clientProof(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return derive(secret, "client-proof", clientNonce, serverNonce);
    }

    /** The proof the server sends back, with its own label so that one proof can never stand for the other. */
    static byte[] serverProof(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return derive(secret, "server-proof", clientNonce, serverNonce);
    }

    /** The key authenticating client-to-server frames of one connection. */
    static byte[] clientToServerKey(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return derive(secret, "client-to-server-key", clientNonce, serverNonce);
    }

    /** The key authenticating server-to-client frames of one connection. */
    static byte[] serverToClientKey(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return derive(secret, "server-to-client-key", clientNonce, serverNonce);
    }

    /** @return whether two MACs are equal, in time independent of where they differ */
    static boolean macEquals(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    /** @return a fresh HMAC-SHA256 instance keyed with {@code key} */
    static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + ALGORITHM, e);
        }
    }

    /**
     * A secret for another purpose, derived from {@code secret} so that knowing it reveals nothing about
     * {@code secret}: HMAC(secret, "jccl-derived-v1 " purpose).
     *
     * @param secret  the 32-byte secret to derive from
     * @param purpose what the derived secret is for; different purposes give unrelated secrets
     * @return 32 bytes
     */
    static byte[] deriveSecret(byte[] secret, String purpose) {
        Mac mac = newMac(secret);
        mac.update(("jccl-derived-v1 " + purpose).getBytes(StandardCharsets.UTF_8));
        return mac.doFinal();
    }

    private static byte[] derive(byte[] secret, String label, byte[] clientNonce, byte[] serverNonce) {
        Mac mac = newMac(secret);
        mac.update(("jccl-rendezvous-v" + VERSION + " " + label).getBytes(StandardCharsets.US_ASCII));
        mac.update((byte) 0);
        mac.update(clientNonce);
        mac.update(serverNonce);
        return mac.doFinal();
    }

    /** @return the big-endian bytes of {@code values} */
    static byte[] ints(int... values) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * values.length);
        for (int value : values) {
            buffer.putInt(value);
        }
        return buffer.array();
    }

    /** @return {@code text} as UTF-8, cut to at most {@link #MAX_REASON_BYTES} bytes */
    static byte[] reason(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return bytes;
        }
        String cut = text;
        while (bytes.length > MAX_REASON_BYTES) {
            cut = cut.substring(0, cut.length() * 3 / 4);
            bytes = (cut + "...").getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    /** @return a reason received from the other side, made printable */
    static String reasonText(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> sb.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return sb.toString();
    }
}
