package io.jccl.log;

import io.jccl.config.OptionReader;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS} ask for: a {@link DebugLevel} and the {@link Subsystem}s
 * whose messages below WARN are logged. Immutable; the gate checks a message's level against precomputed masks.
 */
public final class LogSettings {
    /** The level variable. */
    public static final String DEBUG_VARIABLE = "JCCL_DEBUG";
    /** The subsystem variable. */
    public static final String SUBSYS_VARIABLE = "JCCL_DEBUG_SUBSYS";
    /** The subsystems when {@code JCCL_DEBUG_SUBSYS} is unset. */
    public static final Set<Subsystem> DEFAULT_SUBSYSTEMS =
            Collections.unmodifiableSet(EnumSet.of(Subsystem.INIT, Subsystem.ENV));
    /** {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS} unset: warnings and errors only. */
    public static final LogSettings DEFAULT = new LogSettings(DebugLevel.WARN, DEFAULT_SUBSYSTEMS);

    private static final String LEVELS = Arrays.stream(DebugLevel.values()).map(Enum::name)
            .collect(Collectors.joining(", "));
    /** What {@code JCCL_DEBUG_SUBSYS} must be, completing "it must be ...". */
    private static final String SUBSYSTEM_LIST = "a comma list of " + Arrays.stream(Subsystem.values())
            .map(Enum::name).collect(Collectors.joining(", ")) + ", ALL, all after ^ to exclude them";

    private final DebugLevel level;
    private final Set<Subsystem> subsystems;
    /** Subsystem bits whose SLF4J INFO (DEBUG, TRACE) passes; 0 when the level is below it. */
    final int infoMask;
    final int debugMask;
    final int traceMask;

    /**
     * @param level      the level
     * @param subsystems the subsystems whose messages below WARN pass
     */
    public LogSettings(DebugLevel level, Set<Subsystem> subsystems) {
        this.level = level;
        this.subsystems = subsystems.isEmpty() ? Collections.unmodifiableSet(EnumSet.noneOf(Subsystem.class))
                : Collections.unmodifiableSet(EnumSet.copyOf(subsystems));
        int mask = 0;
        for (Subsystem s : subsystems) {
            mask |= s.bit();
        }
        this.infoMask = level.compareTo(DebugLevel.INFO) >= 0 ? mask : 0;
        this.debugMask = level.compareTo(DebugLevel.DEBUG) >= 0 ? mask : 0;
        this.traceMask = level == DebugLevel.TRACE ? mask : 0;
    }

    /**
     * Reads {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS} from an environment.
     *
     * @param environment the process environment (or a test's)
     * @return the settings; unset or blank variables take their defaults
     * @throws IllegalArgumentException naming the variable, its value and the allowed values
     */
    public static LogSettings fromEnvironment(Map<String, String> environment) {
        return new LogSettings(parseLevel(environment.get(DEBUG_VARIABLE)),
                parseSubsystems(environment.get(SUBSYS_VARIABLE)));
    }

    /**
     * Parses a {@code JCCL_DEBUG} value: {@code WARN}, {@code VERSION}, {@code INFO}, {@code DEBUG} or {@code TRACE},
     * in any case.
     *
     * @param value the value, or null
     * @return the level; WARN for null or blank
     * @throws IllegalArgumentException naming the variable, the value and the allowed values
     */
    public static DebugLevel parseLevel(String value) {
        if (value == null || value.isBlank()) {
            return DebugLevel.WARN;
        }
        try {
            return DebugLevel.valueOf(value.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw OptionReader.of(Map.of(DEBUG_VARIABLE, value)).invalid(DEBUG_VARIABLE, "one of " + LEVELS);
        }
    }

    /**
     * Parses a {@code JCCL_DEBUG_SUBSYS} value, NCCL's syntax: a comma list of subsystem names (any case, {@code ALL}
     * for every one); a leading {@code ^} means every subsystem but those listed.
     *
     * @param value the value, or null
     * @return the subsystems; {@link #DEFAULT_SUBSYSTEMS} for null or blank
     * @throws IllegalArgumentException naming the variable, the value, the bad name and the allowed names
     */
    public static Set<Subsystem> parseSubsystems(String value) {
        if (value == null || value.isBlank()) {
            return DEFAULT_SUBSYSTEMS;
        }
        String list = value.strip();
        boolean exclude = list.startsWith("^");
        if (exclude) {
            list = list.substring(1);
        }
        EnumSet<Subsystem> named = EnumSet.noneOf(Subsystem.class);
        int names = 0;
        for (String word : list.split(",", -1)) {
            String name = word.strip().toUpperCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            names++;
            if (name.equals("ALL")) {
                named.addAll(EnumSet.allOf(Subsystem.class));
                continue;
            }
            try {
                named.add(Subsystem.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw OptionReader.of(Map.of(SUBSYS_VARIABLE, value)).because(SUBSYS_VARIABLE, "'" + word.strip()
                        + "' is not a subsystem; it must be " + SUBSYSTEM_LIST);
            }
        }
        if (names == 0) {
            throw OptionReader.of(Map.of(SUBSYS_VARIABLE, value)).because(SUBSYS_VARIABLE, "it names no subsystem; it"
                    + " must be " + SUBSYSTEM_LIST);
        }
        return exclude ? EnumSet.complementOf(named) : named;
    }

    /** @return the level */
    public DebugLevel level() {
        return level;
    }

    /** @return the subsystems whose messages below WARN pass (at the level's SLF4J levels) */
    public Set<Subsystem> subsystems() {
        return subsystems;
    }

    /**
     * @return the SLF4J level a backend must let through for JCCL's loggers so that these settings show:
     *         {@code warn}, {@code info} (also for VERSION), {@code debug} or {@code trace}
     */
    public String backendLevel() {
        return switch (level) {
            case WARN -> "warn";
            case VERSION, INFO -> "info";
            case DEBUG -> "debug";
            case TRACE -> "trace";
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogSettings s && s.level == level && s.subsystems.equals(subsystems);
    }

    @Override
    public int hashCode() {
        return level.hashCode() * 31 + subsystems.hashCode();
    }

    @Override
    public String toString() {
        return DEBUG_VARIABLE + "=" + level + " " + SUBSYS_VARIABLE + "="
                + subsystems.stream().map(Enum::name).collect(Collectors.joining(","));
    }
}
