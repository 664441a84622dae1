package io.jccl.cli;

import io.jccl.log.LogSettings;
import java.util.List;
import java.util.Map;

/**
 * Makes the CLI's SLF4J backend (slf4j-simple, WARN by default from {@code simplelogger.properties}) show what
 * {@code JCCL_DEBUG} asks for: JCCL's gate ({@link io.jccl.log.JcclLog}) decides what JCCL logs, but the backend
 * must let it through. The one place that maps {@code JCCL_DEBUG} to slf4j-simple's level for the {@code io.jccl}
 * loggers, used by {@code ./jccl} itself ({@link Main}), the rank JVMs of {@code jccl run} (a JVM option) and of
 * {@code jccl bench collective}.
 */
public final class LogBackend {
    /** slf4j-simple's level for every logger under {@code io.jccl}. */
    public static final String PROPERTY = "org.slf4j.simpleLogger.log.io.jccl";

    private LogBackend() {
    }

    /**
     * @param environment the environment a JVM runs with
     * @return slf4j-simple's level for {@code io.jccl} that {@code JCCL_DEBUG} there asks for ({@code warn},
     *         {@code info}, {@code debug}, {@code trace}), or null when it is unset or not a level (then the JVM's
     *         own setting stands, and creating a communicator reports the bad value)
     */
    public static String level(Map<String, String> environment) {
        String value = environment.get(LogSettings.DEBUG_VARIABLE);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return new LogSettings(LogSettings.parseLevel(value), LogSettings.DEFAULT_SUBSYSTEMS).backendLevel();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Sets {@link #PROPERTY} in this JVM from {@code JCCL_DEBUG}, unless it is set already (a {@code -D} option
     * wins). Call it before the first logger is created.
     *
     * @param environment this JVM's environment
     */
    public static void configure(Map<String, String> environment) {
        String level = level(environment);
        if (level != null && System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, level);
        }
    }

    /**
     * @param environment the environment a rank JVM will run with
     * @return the JVM options that give it the backend level its {@code JCCL_DEBUG} asks for: none, or one
     *         {@code -Dorg.slf4j.simpleLogger.log.io.jccl=LEVEL}
     */
    public static List<String> jvmOptions(Map<String, String> environment) {
        String level = level(environment);
        return level == null ? List.of() : List.of("-D" + PROPERTY + "=" + level);
    }
}
