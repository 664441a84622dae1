package io.jccl.env;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Slurm's compressed host lists ({@code SLURM_JOB_NODELIST}, {@code SLURM_STEP_NODELIST}) and task counts
 * ({@code SLURM_TASKS_PER_NODE}), expanded.
 *
 * <p>A host list is a comma-separated list of names, where a name may contain bracketed ranges:
 * {@code node[01-03,07]} is {@code node01 node02 node03 node07}; a range keeps the zero padding of its lower
 * bound ({@code [098-101]} gives {@code 098 099 100 101}); several brackets in one name form every combination,
 * the leftmost varying slowest ({@code r[1-2]n[1-2]} is {@code r1n1 r1n2 r2n1 r2n2}); commas inside brackets
 * separate ranges, commas outside separate names ({@code node[01-03,07],gpu-[1-2]}). The order of the list is
 * kept, so the first host is Slurm's first node of the job or step, where task 0 runs.
 */
public final class SlurmNodeList {
    /** The most host names an expansion may produce; a longer list is refused rather than allocated. */
    public static final int MAX_HOSTS = 1 << 20;
    private static final Pattern TASKS = Pattern.compile("([0-9]{1,9})(?:\\(x([0-9]{1,9})\\))?");

    private SlurmNodeList() {
    }

    /**
     * Expands a host list.
     *
     * @param list e.g. {@code node[01-03,07],gpu-[1-2]}
     * @return the host names in order
     * @throws IllegalArgumentException saying what is wrong and at which character (counted from 0)
     */
    public static List<String> expand(String list) {
        Objects.requireNonNull(list, "list");
        String text = list.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("the host list is empty");
        }
        List<String> hosts = new ArrayList<>();
        int start = 0;
        int depth = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '[') {
                if (depth > 0) {
                    throw error(text, i, "nested '['");
                }
                depth++;
            } else if (c == ']') {
                if (depth == 0) {
                    throw error(text, i, "']' without '['");
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                if (i == start) {
                    throw error(text, i, "empty host name");
                }
                expandName(text, start, i, hosts);
                start = i + 1;
            }
        }
        if (depth > 0) {
            throw error(text, text.lastIndexOf('['), "'[' is never closed");
        }
        return List.copyOf(hosts);
    }

    /**
     * The first host of a host list, without expanding the rest.
     *
     * @param list a host list
     * @return its first host name
     * @throws IllegalArgumentException when the list is malformed
     */
    public static String first(String list) {
        // Expanding everything also validates everything; lists are small next to MAX_HOSTS.
        return expand(list).getFirst();
    }

    /**
     * Expands Slurm's tasks-per-node form, {@code 2(x3),1} meaning 2, 2, 2, 1.
     *
     * @param text the value of {@code SLURM_TASKS_PER_NODE} or {@code SLURM_STEP_TASKS_PER_NODE}
     * @return tasks per node, in node order
     * @throws IllegalArgumentException saying what is wrong
     */
    public static List<Integer> expandTasksPerNode(String text) {
        Objects.requireNonNull(text, "text");
        List<Integer> out = new ArrayList<>();
        for (String part : text.strip().split(",", -1)) {
            var m = TASKS.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + part + "' in '" + text + "' is not N or N(xM)");
            }
            int tasks = Integer.parseInt(m.group(1));
            int repeat = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            if (repeat < 1 || out.size() + (long) repeat > MAX_HOSTS) {
                throw new IllegalArgumentException("'" + part + "' in '" + text + "' repeats " + repeat
                        + " times; expected 1 to " + MAX_HOSTS + " nodes in all");
            }
            for (int i = 0; i < repeat; i++) {
                out.add(tasks);
            }
        }
        return out;
    }

    /** Appends the expansion of {@code text[from, to)}, one name with zero or more brackets. */
    private static void expandName(String text, int from, int to, List<String> hosts) {
        List<String> partial = new ArrayList<>();
        partial.add("");
        int i = from;
        while (i < to) {
            int open = text.indexOf('[', i);
            if (open < 0 || open >= to) {
                append(partial, List.of(text.substring(i, to)));
                break;
            }
            append(partial, List.of(text.substring(i, open)));
            int close = text.indexOf(']', open);
            List<String> values = ranges(text, open + 1, close);
            if ((long) partial.size() * values.size() > MAX_HOSTS) {
                throw error(text, open, "expands to more than " + MAX_HOSTS + " hosts");
            }
            append(partial, values);
            i = close + 1;
        }
        for (String host : partial) {
            if (host.isEmpty()) {
                throw error(text, from, "empty host name");
            }
        }
        if (hosts.size() + (long) partial.size() > MAX_HOSTS) {
            throw error(text, from, "expands to more than " + MAX_HOSTS + " hosts");
        }
        hosts.addAll(partial);
    }

    /** Every combination of a prefix in {@code partial} followed by a suffix, the prefix varying slowest. */
    private static void append(List<String> partial, List<String> suffixes) {
        List<String> out = new ArrayList<>(partial.size() * suffixes.size());
        for (String p : partial) {
            for (String s : suffixes) {
                out.add(p + s);
            }
        }
        partial.clear();
        partial.addAll(out);
    }

    /** The values of the bracket contents {@code text[from, to)}: {@code 01-03,07}. */
    private static List<String> ranges(String text, int from, int to) {
        if (from == to) {
            throw error(text, from, "empty brackets");
        }
        List<String> out = new ArrayList<>();
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i == to || text.charAt(i) == ',') {
                range(text, start, i, out);
                start = i + 1;
            }
        }
        return out;
    }

    private static void range(String text, int from, int to, List<String> out) {
        if (from == to) {
            throw error(text, from, "empty range");
        }
        int dash = text.indexOf('-', from);
        String low = text.substring(from, dash < 0 || dash >= to ? to : dash);
        String high = dash < 0 || dash >= to ? low : text.substring(dash + 1, to);
        checkDigits(text, from, low);
        checkDigits(text, dash + 1, high);
        long lo = Long.parseLong(low);
        long hi = Long.parseLong(high);
        if (hi < lo) {
            throw error(text, from, "range " + low + "-" + high + " runs backwards");
        }
        if (hi - lo + 1 + out.size() > MAX_HOSTS) {
            throw error(text, from, "range " + low + "-" + high + " has more than " + MAX_HOSTS + " values");
        }
        int width = low.length();
        for (long v = lo; v <= hi; v++) {
            String digits = Long.toString(v);
            out.add(digits.length() < width ? "0".repeat(width - digits.length()) + digits : digits);
        }
    }

    private static void checkDigits(String text, int at, String number) {
        if (number.isEmpty() || number.length() > 18 || !number.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw error(text, at, "'" + number + "' is not a number (ranges are N or N-M with decimal digits)");
        }
    }

    private static IllegalArgumentException error(String text, int at, String what) {
        return new IllegalArgumentException("host list '" + text + "': " + what + " at character " + at);
    }
}
