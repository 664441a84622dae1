package io.jccl.metaroce.offload;

import io.jccl.config.InvalidOptionException;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The value of {@code JCCL_METAROCE_OFFLOAD}: {@code auto} (the default), {@code off}, or a provider's name.
 *
 * @param mode     which of the three
 * @param provider the provider's name under {@link Mode#NAMED}, else null
 */
public record OffloadSetting(Mode mode, String provider) {
    /** The variable (or {@code CommConfig} option). */
    public static final String VARIABLE = "JCCL_METAROCE_OFFLOAD";
    /** The default: offload when a provider accepts, else software UDP. */
    public static final OffloadSetting AUTO = new OffloadSetting(Mode.AUTO, null);
    /** Software UDP, without looking for devices or providers. */
    public static final OffloadSetting OFF = new OffloadSetting(Mode.OFF, null);

    /** What a provider's name may be made of. */
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    /** The three kinds of value. */
    public enum Mode {
        /** The highest-priority provider whose probe accepts; software UDP when none does. */
        AUTO,
        /** Software UDP. */
        OFF,
        /** That provider, or an error. */
        NAMED
    }

    /**
     * @throws IllegalArgumentException when a named setting's name is not a valid provider name
     */
    public OffloadSetting {
        Objects.requireNonNull(mode, "mode");
        if (mode == Mode.NAMED) {
            checkName(provider, VARIABLE + "='" + provider + "'");
        } else {
            provider = null;
        }
    }

    /**
     * @param options the transport's options ({@code JCCL_*} variables and {@code CommConfig} settings), or null
     * @return the setting there; {@link #AUTO} when absent or blank
     * @throws IllegalArgumentException naming the variable and what is allowed, for a bad value
     */
    public static OffloadSetting from(Map<String, String> options) {
        String raw = options == null ? null : options.get(VARIABLE);
        return parse(raw);
    }

    /**
     * @param raw {@code auto}, {@code off} or a provider name, any case; null or blank for {@code auto}
     * @return the setting
     * @throws IllegalArgumentException naming the variable and what is allowed, for a bad value
     */
    public static OffloadSetting parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return AUTO;
        }
        String v = raw.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "auto" -> AUTO;
            case "off" -> OFF;
            default -> {
                if (!NAME.matcher(v).matches()) {
                    throw new InvalidOptionException(VARIABLE, raw, "it must be auto, off, or the name of an offload"
                            + " provider (letters, digits, '.', '_', '-')", null);
                }
                yield new OffloadSetting(Mode.NAMED, v);
            }
        };
    }

    /** Checks a provider's name. */
    static void checkName(String name, String what) {
        if (name == null || !NAME.matcher(name).matches() || name.equals("auto") || name.equals("off")) {
            throw new IllegalArgumentException(what + ": an offload provider's name must be 1-64 lower-case letters, "
                    + "digits, '.', '_' or '-', and not auto or off");
        }
    }

    @Override
    public String toString() {
        return VARIABLE + "=" + (mode == Mode.NAMED ? provider : mode.name().toLowerCase(Locale.ROOT));
    }
}
