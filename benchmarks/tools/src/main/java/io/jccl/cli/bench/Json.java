package io.jccl.cli.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The tools' JSON lines, written by Jackson's streaming generator (quoting, escaping, separators and number forms
 * are Jackson's). This class only makes the generator's calls chainable, so a report reads as the JSON it writes:
 * {@code new Json().beginObject().field("ranks", 2).beginArray("results")...}. Non-finite numbers are written as
 * {@code null}, which JSON readers accept.
 */
public final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();

    private final StringWriter text = new StringWriter();
    private final JsonGenerator out;

    /** An empty document. */
    public Json() {
        try {
            out = FACTORY.createGenerator(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return this, inside a new object (the document's, or an element of the array being written) */
    public Json beginObject() {
        return write(() -> out.writeStartObject());
    }

    /**
     * @param name the field's name
     * @return this, inside a new object that is the value of that field
     */
    public Json beginObject(String name) {
        return write(() -> out.writeObjectFieldStart(name));
    }

    /** @return this, with the current object closed */
    public Json endObject() {
        return write(() -> out.writeEndObject());
    }

    /**
     * @param name the field's name
     * @return this, inside a new array that is the value of that field
     */
    public Json beginArray(String name) {
        return write(() -> out.writeArrayFieldStart(name));
    }

    /** @return this, with the current array closed */
    public Json endArray() {
        return write(() -> out.writeEndArray());
    }

    /**
     * @param name  the field's name
     * @param value its text; {@code null} writes null
     * @return this
     */
    public Json field(String name, String value) {
        return write(() -> out.writeStringField(name, value));
    }

    /**
     * @param name  the field's name
     * @param value its value
     * @return this
     */
    public Json field(String name, long value) {
        return write(() -> out.writeNumberField(name, value));
    }

    /**
     * @param name  the field's name
     * @param value its value; NaN and infinities are written as null
     * @return this
     */
    public Json field(String name, double value) {
        return write(() -> {
            out.writeFieldName(name);
            number(value);
        });
    }

    /**
     * @param name  the field's name
     * @param value true or false
     * @return this
     */
    public Json field(String name, boolean value) {
        return write(() -> out.writeBooleanField(name, value));
    }

    /**
     * @param name the field's name
     * @return this, with the field set to {@code null}
     */
    public Json nullField(String name) {
        return write(() -> out.writeNullField(name));
    }

    /**
     * @param value an element of the array being written
     * @return this
     */
    public Json element(String value) {
        return write(() -> out.writeString(value));
    }

    /**
     * @param value a number of the array being written, rounded to three decimals (a timeline's points; more
     *              digits would only lengthen the line); NaN and infinities are written as null
     * @return this
     */
    public Json element(double value) {
        return write(() -> number(Double.isFinite(value) ? Math.round(value * 1000.0) / 1000.0 : value));
    }

    private void number(double value) throws IOException {
        if (Double.isFinite(value)) {
            out.writeNumber(value);
        } else {
            out.writeNull();
        }
    }

    private Json write(Step step) {
        try {
            step.run();
        } catch (IOException e) {
            // A StringWriter does not fail; a misuse (a field outside an object) does.
            throw new UncheckedIOException(e);
        }
        return this;
    }

    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    /** @return the JSON written so far (a whole document once every object and array is closed) */
    @Override
    public String toString() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
