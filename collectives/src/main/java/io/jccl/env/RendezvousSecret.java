package io.jccl.env;

import io.jccl.UniqueId;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The secret of a rendezvous that rank 0 starts on a known address: from {@code JCCL_SECRET}, or derived from
 * values every rank of the job sees (weaker: anyone who knows them can join).
 *
 * @param bytes       the {@value UniqueId#SECRET_BYTES} bytes
 * @param derivedFrom null when it came from {@code JCCL_SECRET}; otherwise the job values it was derived from
 */
public record RendezvousSecret(byte[] bytes, String derivedFrom) {
    /** The variable holding an explicit secret. */
    public static final String VARIABLE = "JCCL_SECRET";

    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern BASE64URL = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final String DERIVATION_LABEL = "jccl-derived-rendezvous-secret-v1";

    /**
     * The explicit secret when {@code JCCL_SECRET} is set, else one derived from {@code jobKey}.
     *
     * @param env    the environment
     * @param jobKey values unique to the job that every rank sees the same, e.g. {@code SLURM_JOB_ID=42}
     * @return the secret
     * @throws io.jccl.JcclException INVALID_ARGUMENT when {@code JCCL_SECRET} is malformed (the value is not
     *                               echoed)
     */
    static RendezvousSecret from(Map<String, String> env, String jobKey) {
        String text = EnvVars.get(env, VARIABLE);
        if (text != null) {
            return new RendezvousSecret(parse(text), null);
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(DERIVATION_LABEL.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(jobKey.getBytes(StandardCharsets.UTF_8));
            return new RendezvousSecret(sha.digest(), jobKey);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * Reads {@code JCCL_SECRET}: 32 bytes as 64 hex digits or 43 base64url characters without padding.
     *
     * @param text the value
     * @return the 32 bytes
     */
    static byte[] parse(String text) {
        if (HEX.matcher(text).matches()) {
            return HexFormat.of().parseHex(text);
        }
        if (BASE64URL.matcher(text).matches()) {
            byte[] b = Base64.getUrlDecoder().decode(text);
            if (Base64.getUrlEncoder().withoutPadding().encodeToString(b).equals(text)) {
                return b;
            }
        }
        // Never echo the value: it is a secret, even a malformed one.
        throw EnvVars.invalid(VARIABLE + " (" + text.length() + " characters) is not a secret of "
                + UniqueId.SECRET_BYTES + " bytes written as 64 hex digits or 43 base64url characters; make one"
                + " with: openssl rand -hex 32");
    }

    /** @return whether it was derived from job values rather than given */
    public boolean derived() {
        return derivedFrom != null;
    }

    /** @return a copy of the bytes */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** @return where it came from, without the secret */
    String describe() {
        return derived() ? "derived from " + derivedFrom : "from " + VARIABLE;
    }

    @Override
    public String toString() {
        return "RendezvousSecret[" + describe() + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RendezvousSecret that && MessageDigest.isEqual(bytes, that.bytes)
                && java.util.Objects.equals(derivedFrom, that.derivedFrom);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(bytes);
    }
}
