package io.jccl.env;

import io.jccl.UniqueId;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The rendezvous variables every launcher shares, and the parsing of {@code host:port}. */
final class RendezvousChoice {
    static final String COMM_ID = "JCCL_COMM_ID";
    static final String ADDR = "JCCL_RENDEZVOUS_ADDR";
    static final String ID_FILE = "JCCL_COMM_ID_FILE";
    /** An optional value unique to the job, mixed into derived secrets. */
    static final String JOB_ID = "JCCL_JOB_ID";

    private RendezvousChoice() {
    }

    /**
     * The rendezvous given by {@code JCCL_COMM_ID}, {@code JCCL_RENDEZVOUS_ADDR} or {@code JCCL_COMM_ID_FILE}
     * (at most one may be set); else none for a single rank; else the launcher's default.
     *
     * @param jobKey   the launcher's job-unique values for a derived secret (null: use the address)
     * @param fallback the launcher's default (may throw, saying what to set)
     */
    static Rendezvous choose(Map<String, String> env, int size, String sizeVar, String jobKey,
                             Supplier<Rendezvous> fallback) {
        List<String> set = new ArrayList<>();
        for (String v : List.of(COMM_ID, ADDR, ID_FILE)) {
            if (EnvVars.isSet(env, v)) {
                set.add(v);
            }
        }
        if (set.size() > 1) {
            throw EnvVars.invalid("conflicting rendezvous settings: " + String.join(" and ", set)
                    + " are set; set only one");
        }
        if (EnvVars.isSet(env, COMM_ID)) {
            try {
                return new Rendezvous.Given(UniqueId.parse(EnvVars.get(env, COMM_ID)), COMM_ID);
            } catch (IllegalArgumentException e) {
                throw EnvVars.invalid(COMM_ID + ": " + e.getMessage());
            }
        }
        if (EnvVars.isSet(env, ADDR)) {
            String value = EnvVars.get(env, ADDR);
            HostPort hp = HostPort.parse(ADDR, value);
            String key = withJobId(env, jobKey != null ? jobKey : ADDR + "=" + value + " size=" + size);
            return new Rendezvous.RootListens(hp.host(), hp.port(), RendezvousSecret.from(env, key),
                    ADDR + "=" + value);
        }
        if (EnvVars.isSet(env, ID_FILE)) {
            String value = EnvVars.get(env, ID_FILE);
            try {
                return new Rendezvous.IdFile(Path.of(value), ID_FILE);
            } catch (InvalidPathException e) {
                throw EnvVars.invalid(ID_FILE + "='" + EnvVars.printable(value) + "' is not a path: "
                        + e.getReason());
            }
        }
        if (size == 1) {
            return new Rendezvous.Alone(sizeVar + "=1");
        }
        return fallback.get();
    }

    /** {@code key}, plus {@code JCCL_JOB_ID} when set. */
    static String withJobId(Map<String, String> env, String key) {
        String jobId = EnvVars.get(env, JOB_ID);
        return jobId == null ? key : key + " " + JOB_ID + "=" + jobId;
    }

    /** The default id file: {@code <tmpdir>/jccl-<user>-<job>.id}, with unsafe characters replaced. */
    static Rendezvous.IdFile defaultIdFile(LaunchEnvironment.Context context, String jobVar, String jobValue) {
        String name = "jccl-" + safe(context.user()) + "-" + safe(jobValue) + ".id";
        return new Rendezvous.IdFile(context.tmpDir().resolve(name), jobVar + "=" + jobValue);
    }

    private static String safe(String s) {
        String t = s.replaceAll("[^A-Za-z0-9._-]", "_");
        return t.length() > 100 ? t.substring(0, 100) : t;
    }

    /**
     * A host (name, IPv4 literal or IPv6 literal) and a port.
     *
     * @param host without brackets
     * @param port 1 to 65535
     */
    record HostPort(String host, int port) {
        /** Parses {@code host:port} or {@code [v6]:port}, naming {@code variable} in errors. */
        static HostPort parse(String variable, String value) {
            String host;
            String port;
            if (value.startsWith("[")) {
                int close = value.indexOf(']');
                if (close < 0 || close + 1 >= value.length() || value.charAt(close + 1) != ':') {
                    throw EnvVars.invalid(variable + "='" + EnvVars.printable(value)
                            + "' is not host:port (IPv6 as [addr]:port)");
                }
                host = value.substring(1, close);
                port = value.substring(close + 2);
            } else {
                int colon = value.lastIndexOf(':');
                if (colon < 0 || value.indexOf(':') != colon) {
                    throw EnvVars.invalid(variable + "='" + EnvVars.printable(value)
                            + "' is not host:port (IPv6 as [addr]:port)");
                }
                host = value.substring(0, colon);
                port = value.substring(colon + 1);
            }
            checkHost(variable, value, host);
            return new HostPort(host, port(variable, port));
        }

        static void checkHost(String variable, String value, String host) {
            if (host.isEmpty() || host.length() > 253 || !host.matches("[A-Za-z0-9._:%-]+")) {
                throw EnvVars.invalid(variable + "='" + EnvVars.printable(value) + "': '"
                        + EnvVars.printable(host) + "' is not a host name or IP address");
            }
        }

        /** Parses a port 1..65535, naming the variable. */
        static int port(String variable, String text) {
            int p;
            try {
                p = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw EnvVars.invalid(variable + ": port '" + EnvVars.printable(text) + "' is not a number");
            }
            if (p < 1 || p > 65535) {
                throw EnvVars.invalid(variable + ": port " + p + " is out of range 1..65535");
            }
            return p;
        }
    }
}
