package io.jccl.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code jccl} command run in this JVM with its output captured (tests).
 *
 * @param code the exit code
 * @param out  what it printed on standard output
 * @param err  what it printed on standard error
 */
public record CliRun(int code, String out, String err) {
    /** Strict: a second value after the first (two objects on one line) is an error, not ignored. */
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Runs {@code jccl args...}; one at a time, since it swaps {@code System.out} and {@code System.err}. */
    public static synchronized CliRun of(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = Main.execute(args);
            return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    /**
     * @return standard output read as the one JSON object a {@code --json} command prints; fails the test when it is
     *         not exactly one line
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> json() {
        String[] lines = out.strip().split("\n");
        if (lines.length != 1) {
            throw new AssertionError("exactly one line on stdout expected, got: " + out + err);
        }
        return (Map<String, Object>) parseJson(lines[0]);
    }

    /**
     * Reads one JSON value strictly (Jackson; trailing text is an error) as plain Java values: objects as ordered
     * maps, arrays as lists, every number as a {@link Double} (the tests compare them as numbers, whatever their
     * form), strings, booleans and null.
     *
     * @param text one JSON value
     * @return its Java form
     */
    public static Object parseJson(String text) {
        try {
            return plain(JSON.readTree(text));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not one JSON value: " + text, e);
        }
    }

    private static Object plain(JsonNode node) {
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            node.properties().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
            return map;
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>();
            node.forEach(e -> list.add(plain(e)));
            return list;
        }
        if (node.isNumber()) {
            return node.doubleValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        return node.isNull() ? null : node.textValue();
    }
}
