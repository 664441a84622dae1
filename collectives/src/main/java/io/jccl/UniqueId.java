package io.jccl;

import io.jccl.bootstrap.NetworkInterfaces;
import io.jccl.bootstrap.RendezvousServer;
import io.jccl.bootstrap.SocketAddresses;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What one rank creates and every rank needs to join a communicator: the address of a rendezvous and a secret
 * that proves membership, like NCCL's {@code ncclUniqueId}.
 *
 * <h2>Lifecycle</h2>
 * {@link #create()} starts a {@link RendezvousServer} in the calling JVM, listening on an ephemeral port of the
 * address {@link NetworkInterfaces} selects ({@code JCCL_SOCKET_IFNAME}, {@code JCCL_SOCKET_FAMILY}), with a fresh
 * 32-byte secret from {@link SecureRandom}. The creating rank then hands the id to the others, e.g. as the string
 * {@link #encode()} returns, in an environment variable or a file; every rank, the creator included, joins with
 * {@link io.jccl.bootstrap.TcpBootstrap#join}. The server serves exactly one communicator initialisation: it runs
 * on a daemon thread, imposes no deadline on ranks joining (they bound their own waits), and stops once every
 * rank has left, or as soon as the rendezvous fails. The JVM that created the id must stay up until then. Use a
 * new id for every communicator.
 *
 * <h2>Security</h2>
 * The secret never crosses the wire: ranks and server prove to each other that they know it by HMAC
 * challenge–response, and every later frame is authenticated, so a process that can reach the port but does not
 * know the id can neither join nor tamper. The data exchanged is not encrypted. Treat the encoded id like a
 * password: {@link #toString()} leaves the secret out, {@link #encode()} does not.
 *
 * <h2>Encoding</h2>
 * {@code jccl1@<host>:<port>#<secret>}: {@code host} an IPv4 literal ({@code 192.0.2.2}) or a bracketed IPv6
 * literal ({@code [2001:db8:0:0:0:0:0:2]}), {@code port} in 1..65535, {@code secret} the 32 bytes in base64url
 * without padding (43 characters). {@link #parse} accepts exactly this form, nothing before or after it.
 */
public final class UniqueId {
    /** The prefix of the current encoding, with its version. */
    public static final String PREFIX = "jccl1@";
    /** The length of the secret, in bytes. */
    public static final int SECRET_BYTES = 32;

    private static final int SECRET_CHARS = 43;
    private static final int MAX_ENCODED_CHARS = 256;
    private static final Pattern IPV4 = Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]+");
    private static final Pattern BASE64URL = Pattern.compile("[A-Za-z0-9_-]*");
    private static final Pattern VERSION = Pattern.compile("jccl([0-9]{1,9})@");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final InetSocketAddress address;
    private final byte[] secret;

    private UniqueId(InetAddress host, int port, byte[] secret) {
        this.address = new InetSocketAddress(host, port);
        this.secret = secret;
    }

    /**
     * Starts a rendezvous on the address chosen by {@code JCCL_SOCKET_IFNAME} and {@code JCCL_SOCKET_FAMILY}
     * (see {@link NetworkInterfaces}) and returns its id.
     *
     * @return the id of the new rendezvous
     * @throws JcclException INVALID_ARGUMENT for a bad interface setting, SYSTEM_ERROR when no interface is
     *                       usable or the server cannot listen
     */
    public static UniqueId create() {
        return create(NetworkInterfaces.select(System.getenv()));
    }

    /**
     * Starts a rendezvous listening on {@code bindAddress}, on an ephemeral port, and returns its id.
     *
     * @param bindAddress a local address the other ranks can reach; not the wildcard, a multicast or a link-local
     *                    IPv6 address
     * @return the id of the new rendezvous
     * @throws JcclException INVALID_ARGUMENT for an unsuitable address, SYSTEM_ERROR when the server cannot listen
     */
    public static UniqueId create(InetAddress bindAddress) {
        InetAddress advertised = advertisable(bindAddress);
        byte[] secret = new byte[SECRET_BYTES];
        RANDOM.nextBytes(secret);
        RendezvousServer server = RendezvousServer.start(bindAddress, secret);
        return new UniqueId(advertised, server.address().getPort(), secret);
    }

    /**
     * The id of a rendezvous started some other way (e.g. with {@link RendezvousServer#start}).
     *
     * @param address where the rendezvous listens: an IP address (not the wildcard, multicast or link-local IPv6)
     *                and a port in 1..65535
     * @param secret  its 32-byte secret (copied)
     * @return the id
     * @throws JcclException INVALID_ARGUMENT for a bad address or a secret of the wrong length
     */
    public static UniqueId of(InetSocketAddress address, byte[] secret) {
        if (address == null || address.getAddress() == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "rendezvous address " + address
                    + " is null or unresolved; give an IP address");
        }
        if (address.getPort() < 1) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "rendezvous port " + address.getPort()
                    + " is out of range 1..65535");
        }
        if (secret == null || secret.length != SECRET_BYTES) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the secret must be " + SECRET_BYTES + " bytes, got "
                    + (secret == null ? "null" : secret.length + " bytes"));
        }
        return new UniqueId(advertisable(address.getAddress()), address.getPort(), secret.clone());
    }

    /**
     * Reads an id written by {@link #encode()}.
     *
     * @param encoded e.g. {@code jccl1@192.0.2.2:41234#<43 base64url characters>}
     * @return the id
     * @throws IllegalArgumentException saying what is wrong (never quoting the secret)
     * @throws NullPointerException     when {@code encoded} is null
     */
    public static UniqueId parse(String encoded) {
        Objects.requireNonNull(encoded, "encoded unique id");
        if (encoded.length() > MAX_ENCODED_CHARS) {
            throw new IllegalArgumentException("unique id is " + encoded.length() + " characters long; an encoded"
                    + " unique id has at most " + MAX_ENCODED_CHARS);
        }
        if (!encoded.startsWith(PREFIX)) {
            var version = VERSION.matcher(encoded);
            if (version.lookingAt()) {
                throw new IllegalArgumentException("unique id version " + version.group(1) + " is not supported;"
                        + " this JCCL reads version 1 ('" + PREFIX + "...')");
            }
            throw new IllegalArgumentException("not a JCCL unique id: it must start with '" + PREFIX + "'");
        }
        int hash = encoded.indexOf('#');
        if (hash < 0) {
            throw new IllegalArgumentException("unique id has no '#' before its secret; expected "
                    + PREFIX + "<host>:<port>#<secret>");
        }
        String hostPort = encoded.substring(PREFIX.length(), hash);
        String secretText = encoded.substring(hash + 1);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("unique id address '" + printable(hostPort)
                    + "' has no ':<port>'");
        }
        InetAddress host = parseHost(hostPort.substring(0, colon));
        int port = parsePort(hostPort.substring(colon + 1));
        byte[] secret = parseSecret(secretText);
        try {
            return new UniqueId(advertisable(host), port, secret);
        } catch (JcclException e) {
            throw new IllegalArgumentException("unique id host: " + e.detail());
        }
    }

    /** @return {@code jccl1@<host>:<port>#<secret>}, which {@link #parse} reads; contains the secret */
    public String encode() {
        return PREFIX + SocketAddresses.format(address) + "#"
                + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    /** @return where the rendezvous listens */
    public InetSocketAddress address() {
        return address;
    }

    /** @return a copy of the 32-byte secret */
    public byte[] secretBytes() {
        return secret.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UniqueId that && address.equals(that.address)
                && MessageDigest.isEqual(secret, that.secret);
    }

    @Override
    public int hashCode() {
        return 31 * address.hashCode() + Arrays.hashCode(secret);
    }

    /** @return the address, with the secret left out */
    @Override
    public String toString() {
        return "UniqueId[" + SocketAddresses.format(address) + ", secret redacted]";
    }

    /** @return the address as the other ranks should see it, without a scope; rejects unusable addresses */
    private static InetAddress advertisable(InetAddress address) {
        if (address == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous address is null");
        }
        if (address.isAnyLocalAddress()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous address " + address.getHostAddress()
                    + " is the wildcard; give the address the other ranks connect to");
        }
        if (address.isMulticastAddress()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous address " + address.getHostAddress()
                    + " is a multicast address");
        }
        if (address instanceof Inet6Address && address.isLinkLocalAddress()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous address " + address.getHostAddress()
                    + " is link-local IPv6, which other hosts cannot reach without a scope; use another address");
        }
        try {
            return InetAddress.getByAddress(address.getAddress());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("a raw IP address of " + address.getAddress().length + " bytes", e);
        }
    }

    private static InetAddress parseHost(String host) {
        if (host.startsWith("[")) {
            if (!host.endsWith("]") || host.length() < 3) {
                throw new IllegalArgumentException("unique id host '" + printable(host)
                        + "' opens a bracket but is not a bracketed IPv6 address like [2001:db8::2]");
            }
            String literal = host.substring(1, host.length() - 1);
            if (!IPV6_CHARS.matcher(literal).matches() || literal.indexOf(':') < 0) {
                throw new IllegalArgumentException("unique id host '" + printable(host)
                        + "' is not an IPv6 address (IPv6 addresses have no scope or name here)");
            }
            InetAddress address;
            try {
                address = Inet6Address.ofLiteral(literal);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unique id host '" + printable(host) + "' is not an IPv6 address");
            }
            if (address instanceof Inet4Address) {
                throw new IllegalArgumentException("unique id host '" + printable(host)
                        + "' is an IPv4-mapped address; write it as IPv4 without brackets");
            }
            return address;
        }
        if (!IPV4.matcher(host).matches()) {
            throw new IllegalArgumentException("unique id host '" + printable(host) + "' is not an IPv4 address"
                    + " (a.b.c.d) or a bracketed IPv6 address ([2001:db8::2]); names are not accepted");
        }
        for (String part : host.split("\\.")) {
            if (Integer.parseInt(part) > 255) {
                throw new IllegalArgumentException("unique id host '" + host + "' has the part " + part
                        + ", above 255");
            }
        }
        return Inet4Address.ofLiteral(host);
    }

    private static int parsePort(String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("unique id port '" + printable(text) + "' is not a number in 1..65535");
        }
        int port = Integer.parseInt(text);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("unique id port " + port + " is out of range 1..65535");
        }
        return port;
    }

    private static byte[] parseSecret(String text) {
        int valid = 0;
        while (valid < text.length() && valid < SECRET_CHARS && isBase64Url(text.charAt(valid))) {
            valid++;
        }
        if (valid == SECRET_CHARS && text.length() > SECRET_CHARS) {
            throw new IllegalArgumentException("unique id has " + (text.length() - SECRET_CHARS)
                    + " unexpected characters after its secret (stray whitespace or text?)");
        }
        if (!BASE64URL.matcher(text).matches()) {
            throw new IllegalArgumentException("unique id secret contains characters outside base64url"
                    + " (A-Z a-z 0-9 - _, no padding)");
        }
        if (text.length() != SECRET_CHARS) {
            throw new IllegalArgumentException("unique id secret has " + text.length() + " characters; expected "
                    + SECRET_CHARS + " (" + SECRET_BYTES + " bytes in base64url without padding)");
        }
        byte[] secret;
        try {
            secret = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unique id secret is not valid base64url");
        }
        if (secret.length != SECRET_BYTES) {
            throw new IllegalArgumentException("unique id secret decodes to " + secret.length + " bytes; expected "
                    + SECRET_BYTES);
        }
        if (!Base64.getUrlEncoder().withoutPadding().encodeToString(secret).equals(text)) {
            throw new IllegalArgumentException("unique id secret is not in canonical base64url (its last character"
                    + " carries stray bits)");
        }
        return secret;
    }

    private static boolean isBase64Url(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }

    /** @return {@code text} cut to 64 characters with non-printable characters replaced, for messages */
    private static String printable(String text) {
        String cut = text.length() > 64 ? text.substring(0, 64) + "..." : text;
        StringBuilder sb = new StringBuilder(cut.length());
        cut.codePoints().forEach(cp -> sb.appendCodePoint(cp < 0x20 || cp == 0x7f ? '?' : cp));
        return sb.toString();
    }
}
