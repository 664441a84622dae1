package io.jccl.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LocationAwareLogger;

/**
 * The gate in front of a fake backend logger: a level is enabled only when both the JCCL settings and the backend
 * allow it; warnings and errors pass whatever the settings; messages carry the subsystem.
 */
class GatedLoggerTest {
    private LogSettings saved;

    @BeforeEach
    void save() {
        saved = JcclLog.settings();
    }

    @AfterEach
    void restore() {
        JcclLog.configure(saved);
    }

    @Test
    void belowWarnBothTheGateAndTheBackendMustAllow() {
        FakeBackend backend = new FakeBackend(Level.TRACE);
        Logger log = new GatedLogger(backend, Subsystem.NET.bit(), "[NET] ");

        JcclLog.configure(Map.of());   // WARN
        assertThat(log.isInfoEnabled()).isFalse();
        assertThat(log.isDebugEnabled()).isFalse();
        assertThat(log.isTraceEnabled()).isFalse();
        log.info("hidden {}", 1);

        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "NET"));
        assertThat(log.isInfoEnabled()).isTrue();
        assertThat(log.isDebugEnabled()).isFalse();
        log.info("shown {}", 2);
        log.debug("hidden {}", 3);

        JcclLog.configure(Map.of("JCCL_DEBUG", "TRACE", "JCCL_DEBUG_SUBSYS", "INIT"));   // not NET
        assertThat(log.isInfoEnabled()).isFalse();
        assertThat(log.isTraceEnabled()).isFalse();
        log.info("hidden {}", 4);

        JcclLog.configure(Map.of("JCCL_DEBUG", "trace", "JCCL_DEBUG_SUBSYS", "ALL"));
        assertThat(log.isTraceEnabled()).isTrue();
        assertThat(log.isTraceEnabled(MarkerFactory.getMarker("M"))).isTrue();
        log.trace("t {} {}", 5, 6);

        backend.threshold = Level.INFO;   // the backend's own configuration still applies
        assertThat(log.isTraceEnabled()).isFalse();
        assertThat(log.isDebugEnabled()).isFalse();
        assertThat(log.isInfoEnabled()).isTrue();
        log.debug("hidden {}", 7);

        assertThat(backend.lines).containsExactly("INFO [NET] shown 2", "TRACE [NET] t 5 6");
    }

    @Test
    void warningsAndErrorsPassWhateverTheSettingsButNotWhateverTheBackend() {
        FakeBackend backend = new FakeBackend(Level.TRACE);
        Logger log = new GatedLogger(backend, Subsystem.SHM.bit(), "[SHM] ");
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "^SHM"));
        assertThat(log.isInfoEnabled()).isFalse();
        assertThat(log.isWarnEnabled()).isTrue();
        log.info("hidden");
        log.warn("driver of {} is gone", "/dev/shm/x");
        log.error("failed", new IllegalStateException("boom"));
        JcclLog.configure(Map.of());
        log.warn("still {}", "here");
        backend.threshold = Level.ERROR;
        assertThat(log.isWarnEnabled()).isFalse();
        log.warn("refused by the backend");
        assertThat(backend.lines).containsExactly("WARN [SHM] driver of /dev/shm/x is gone",
                "ERROR [SHM] failed !boom", "WARN [SHM] still here");
    }

    @Test
    void aLoggerOfSeveralSubsystemsPassesWhenAnyIsSelected() {
        FakeBackend backend = new FakeBackend(Level.TRACE);
        Logger log = new GatedLogger(backend, Subsystem.INIT.bit() | Subsystem.NET.bit(), "[INIT|NET] ");
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "NET"));
        assertThat(log.isInfoEnabled()).isTrue();
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "INIT"));
        assertThat(log.isInfoEnabled()).isTrue();
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "COLL,P2P"));
        assertThat(log.isInfoEnabled()).isFalse();
    }

    @Test
    void argumentsThrowablesMarkersAndTheFluentApiReachTheBackend() {
        FakeBackend backend = new FakeBackend(Level.TRACE);
        Logger log = new GatedLogger(backend, Subsystem.COLL.bit(), "[COLL] ");
        JcclLog.configure(Map.of("JCCL_DEBUG", "DEBUG", "JCCL_DEBUG_SUBSYS", "COLL"));
        Marker marker = MarkerFactory.getMarker("M");
        log.debug("plain");
        log.debug("{} {} {}", 1, 2, 3);
        log.debug("x {}", 1, new RuntimeException("r1"));
        log.debug("y", new RuntimeException("r2"));
        log.info(marker, "m {}", 4);
        log.atInfo().setMessage("fluent {}").addArgument(5).log();
        log.atTrace().setMessage("off").log();
        assertThat(backend.lines).containsExactly("DEBUG [COLL] plain", "DEBUG [COLL] 1 2 3", "DEBUG [COLL] x 1 !r1",
                "DEBUG [COLL] y !r2", "INFO M [COLL] m 4", "INFO [COLL] fluent 5");
    }

    @Test
    void aLocationAwareBackendIsToldWhereTheCallerIs() {
        LocatingBackend backend = new LocatingBackend();
        Logger log = new GatedLogger(backend, Subsystem.INIT.bit(), "[INIT] ");
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO"));
        log.info("a {}", 1);
        log.warn("b", new RuntimeException("c"));
        assertThat(backend.lines).containsExactly("INFO [INIT] a 1 @org.slf4j.helpers.AbstractLogger",
                "WARN [INIT] b !c @org.slf4j.helpers.AbstractLogger");
    }

    @Test
    void loggersKeepTheClassNameAndShowTheirSubsystems() {
        Logger one = JcclLog.logger(Subsystem.NET, GatedLoggerTest.class);
        assertThat(one.getName()).isEqualTo(GatedLoggerTest.class.getName());
        assertThat(((GatedLogger) one).prefix()).isEqualTo("[NET] ");
        Logger two = JcclLog.logger(EnumSet.of(Subsystem.NET, Subsystem.INIT), GatedLoggerTest.class);
        assertThat(((GatedLogger) two).prefix()).isEqualTo("[INIT|NET] ");
        assertThatThrownBy(() -> JcclLog.logger(Set.of(), GatedLoggerTest.class))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configureKeepsTheSettingsOnABadValue() {
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO"));
        LogSettings before = JcclLog.settings();
        assertThatThrownBy(() -> JcclLog.configure(Map.of("JCCL_DEBUG", "LOUDER")))
                .hasMessageContaining("JCCL_DEBUG='LOUDER'");
        assertThat(JcclLog.settings()).isSameAs(before);
    }

    @Test
    void aDisabledLevelAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        Logger log = new GatedLogger(new FakeBackend(Level.TRACE), Subsystem.COLL.bit(), "[COLL] ");
        JcclLog.configure(Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "NET"));
        Object arg = "x";
        int enabled = 0;
        for (int i = 0; i < 20_000; i++) {   // warm up
            enabled += burst(log, arg);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            enabled += burst(log, arg);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(enabled).isZero();
        assertThat(allocated).as("bytes allocated by 400000 disabled calls").isLessThan(4096);
    }

    private static int burst(Logger log, Object arg) {
        log.info("a {}", arg);
        log.debug("b {} {}", arg, arg);
        log.trace("c");
        return log.isTraceEnabled() ? 1 : 0;
    }

    /** A backend logger with a threshold of its own that records what reaches it. */
    static class FakeBackend extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;
        final transient List<String> lines = new ArrayList<>();
        volatile Level threshold;

        FakeBackend(Level threshold) {
            this.name = "fake";
            this.threshold = threshold;
        }

        private boolean on(Level level) {
            return level.toInt() >= threshold.toInt();
        }

        @Override
        public boolean isTraceEnabled() {
            return on(Level.TRACE);
        }

        @Override
        public boolean isDebugEnabled() {
            return on(Level.DEBUG);
        }

        @Override
        public boolean isInfoEnabled() {
            return on(Level.INFO);
        }

        @Override
        public boolean isWarnEnabled() {
            return on(Level.WARN);
        }

        @Override
        public boolean isErrorEnabled() {
            return on(Level.ERROR);
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
                                                   Throwable t) {
            lines.add(level + (marker == null ? "" : " " + marker.getName()) + " "
                    + MessageFormatter.basicArrayFormat(pattern, args) + (t == null ? "" : " !" + t.getMessage()));
        }
    }

    /** A location-aware backend (as logback's): records the caller boundary it is given. */
    static final class LocatingBackend extends FakeBackend implements LocationAwareLogger {
        private static final long serialVersionUID = 1L;

        LocatingBackend() {
            super(Level.TRACE);
        }

        @Override
        public void log(Marker marker, String fqcn, int level, String message, Object[] argArray, Throwable t) {
            lines.add(Level.intToLevel(level) + " " + MessageFormatter.basicArrayFormat(message, argArray)
                    + (t == null ? "" : " !" + t.getMessage()) + " @" + fqcn);
        }
    }
}
