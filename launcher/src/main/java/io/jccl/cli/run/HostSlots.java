package io.jccl.cli.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A host and how many ranks it takes ({@code slots}), from {@code -H host:slots,...} or a hostfile in Open MPI's
 * format: one host per line, optionally {@code slots=N} (and {@code max_slots=N}, read and checked, but the
 * limit is {@code slots}), {@code #} comments and blank lines. A host named twice adds its slots up.
 *
 * @param host  the host name or IP literal
 * @param slots ranks it takes before the next host is used, at least 1
 */
record HostSlots(String host, int slots) {
    /** The most slots one host may claim: a guard against typos like {@code slots=40000000}. */
    static final int MAX_SLOTS = 1 << 16;
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,252})|\\[?[0-9A-Fa-f:.]+]?");

    /**
     * Parses {@code -H host[:slots],...}.
     *
     * @throws IllegalArgumentException naming the bad entry
     */
    static List<HostSlots> parseOption(String text) {
        List<HostSlots> out = new ArrayList<>();
        for (String entry : text.split(",", -1)) {
            String e = entry.strip();
            if (e.isEmpty()) {
                throw new IllegalArgumentException("-H '" + text + "' has an empty entry");
            }
            String where = "-H entry '" + e + "'";
            int close = e.indexOf(']');
            // host, host:slots, [v6], [v6]:slots, or a bare IPv6 literal (its colons are not a slots separator).
            int colon = e.startsWith("[") ? (close > 0 && close + 1 < e.length() && e.charAt(close + 1) == ':'
                    ? close + 1 : -1) : (e.indexOf(':') == e.lastIndexOf(':') ? e.indexOf(':') : -1);
            if (colon < 0) {
                out.add(new HostSlots(checkHost(e, where), 1));
            } else {
                out.add(new HostSlots(checkHost(e.substring(0, colon), where), slots(e.substring(colon + 1), where)));
            }
        }
        return merge(out);
    }

    /**
     * Reads a hostfile.
     *
     * @throws IllegalArgumentException naming the file, the line number and what is wrong
     */
    static List<HostSlots> readHostfile(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the hostfile " + file + ": " + e.getMessage());
        }
        return parseHostfile(file.toString(), text);
    }

    /** Parses hostfile text; {@code name} is used in messages. */
    static List<HostSlots> parseHostfile(String name, String text) {
        List<HostSlots> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String where = name + " line " + (i + 1);
            String line = lines[i];
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            String host = checkHost(words[0], where);
            int slots = 1;
            int maxSlots = -1;
            boolean sawSlots = false;
            for (int w = 1; w < words.length; w++) {
                String word = words[w];
                int eq = word.indexOf('=');
                String key = eq < 0 ? word : word.substring(0, eq);
                if (eq < 0) {
                    throw new IllegalArgumentException(where + ": '" + word + "' is not key=value (expected slots=N"
                            + " or max_slots=N after the host name)");
                }
                String value = word.substring(eq + 1);
                switch (key) {
                    case "slots", "cpu", "count" -> {
                        if (sawSlots) {
                            throw new IllegalArgumentException(where + ": slots given twice");
                        }
                        sawSlots = true;
                        slots = slots(value, where);
                    }
                    case "max_slots", "max-slots" -> maxSlots = slots(value, where);
                    default -> throw new IllegalArgumentException(where + ": unknown key '" + key
                            + "' (expected slots=N or max_slots=N)");
                }
            }
            if (maxSlots >= 0 && slots > maxSlots) {
                throw new IllegalArgumentException(where + ": slots=" + slots + " is above max_slots=" + maxSlots);
            }
            out.add(new HostSlots(host, slots));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("the hostfile " + name + " names no host");
        }
        return merge(out);
    }

    private static String checkHost(String host, String where) {
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException(where + ": '" + host + "' is not a host name or IP address");
        }
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static int slots(String text, String where) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": slots '" + text + "' is not a whole number");
        }
        if (n < 1 || n > MAX_SLOTS) {
            throw new IllegalArgumentException(where + ": slots " + n + " is out of range 1.." + MAX_SLOTS);
        }
        return n;
    }

    /** A host listed twice gets the sum of its slots, at its first position. */
    private static List<HostSlots> merge(List<HostSlots> in) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (HostSlots h : in) {
            slots.merge(h.host(), h.slots(), (a, b) -> Math.min(MAX_SLOTS, a + b));
        }
        List<HostSlots> out = new ArrayList<>();
        slots.forEach((h, s) -> out.add(new HostSlots(h, s)));
        return List.copyOf(out);
    }
}
