package io.jccl.cli.bench;

import java.util.Locale;

/** A minimal JSON writer for the benchmark's report: objects, arrays, strings and numbers, nothing else. */
public final class Json {
    /** An empty document. */
    public Json() {
    }

    private final StringBuilder out = new StringBuilder();
    private boolean needComma;

    public Json beginObject() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    public Json endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    public Json beginArray(String name) {
        key(name);
        out.append('[');
        needComma = false;
        return this;
    }

    public Json endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    public Json beginObject(String name) {
        key(name);
        out.append('{');
        needComma = false;
        return this;
    }

    public Json field(String name, String value) {
        key(name);
        string(value);
        needComma = true;
        return this;
    }

    public Json field(String name, long value) {
        key(name);
        out.append(value);
        needComma = true;
        return this;
    }

    public Json field(String name, double value) {
        key(name);
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            out.append("null");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(String.format(Locale.ROOT, "%.6g", value).replaceFirst("(\\.\\d*?)0+(e|$)", "$1$2")
                    .replace(".e", "e").replaceFirst("\\.$", ""));
        }
        needComma = true;
        return this;
    }

    /**
     * @param name  the field's name
     * @param value true or false
     * @return this
     */
    public Json field(String name, boolean value) {
        key(name);
        out.append(value);
        needComma = true;
        return this;
    }

    /**
     * @param name the field's name
     * @return this, with the field set to {@code null}
     */
    public Json nullField(String name) {
        key(name);
        out.append("null");
        needComma = true;
        return this;
    }

    /**
     * @param value an element of the array being written
     * @return this
     */
    public Json element(String value) {
        comma();
        string(value);
        needComma = true;
        return this;
    }

    /**
     * @param value a number of the array being written (three decimals)
     * @return this
     */
    public Json element(double value) {
        comma();
        out.append(Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "null");
        needComma = true;
        return this;
    }

    private void key(String name) {
        comma();
        string(name);
        out.append(':');
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
