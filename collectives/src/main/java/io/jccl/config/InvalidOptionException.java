package io.jccl.config;

import java.io.Serial;

/**
 * An option whose value is not allowed. The message always has one form, {@code KEY='value' is invalid: REASON},
 * optionally followed by where the value came from in parentheses; the reason usually reads {@code it must be ...}.
 */
public final class InvalidOptionException extends IllegalArgumentException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String value;

    /**
     * @param key    the option's name as the user wrote it
     * @param value  its value as written (null when it was missing)
     * @param reason why it is refused, e.g. {@code it must be a whole number from 1 to 64}
     * @param source where the value came from (e.g. {@code from the environment}), or null to leave it out
     */
    public InvalidOptionException(String key, String value, String reason, String source) {
        super(key + "='" + OptionReader.printable(value) + "' is invalid: " + reason
                + (source == null ? "" : " (" + source + ")"));
        this.key = key;
        this.value = value;
    }

    /** @return the option's name */
    public String key() {
        return key;
    }

    /** @return the refused value as written, or null when it was missing */
    public String value() {
        return value;
    }
}
