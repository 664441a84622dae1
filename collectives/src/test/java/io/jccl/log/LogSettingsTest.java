package io.jccl.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS}: values, NCCL's list syntax, and errors that name the variable. */
class LogSettingsTest {
    @Test
    void unsetMeansWarningsOnlyWithInitAndEnvSelected() {
        LogSettings s = LogSettings.fromEnvironment(Map.of());
        assertThat(s).isEqualTo(LogSettings.DEFAULT);
        assertThat(s.level()).isEqualTo(DebugLevel.WARN);
        assertThat(s.subsystems()).containsExactlyInAnyOrder(Subsystem.INIT, Subsystem.ENV);
        assertThat(s.infoMask | s.debugMask | s.traceMask).isZero();
        assertThat(LogSettings.fromEnvironment(Map.of("JCCL_DEBUG", " ", "JCCL_DEBUG_SUBSYS", ""))).isEqualTo(s);
    }

    @Test
    void everyLevelInAnyCase() {
        assertThat(LogSettings.parseLevel("warn")).isEqualTo(DebugLevel.WARN);
        assertThat(LogSettings.parseLevel("Version")).isEqualTo(DebugLevel.VERSION);
        assertThat(LogSettings.parseLevel("INFO")).isEqualTo(DebugLevel.INFO);
        assertThat(LogSettings.parseLevel(" debug ")).isEqualTo(DebugLevel.DEBUG);
        assertThat(LogSettings.parseLevel("trace")).isEqualTo(DebugLevel.TRACE);
    }

    @Test
    void levelsOpenSlf4jLevelsCumulatively() {
        int init = Subsystem.INIT.bit();
        LogSettings version = settings("VERSION", "INIT");
        assertThat(version.infoMask).isZero();
        LogSettings info = settings("INFO", "INIT");
        assertThat(info.infoMask).isEqualTo(init);
        assertThat(info.debugMask | info.traceMask).isZero();
        LogSettings debug = settings("DEBUG", "INIT");
        assertThat(debug.infoMask & debug.debugMask).isEqualTo(init);
        assertThat(debug.traceMask).isZero();
        LogSettings trace = settings("TRACE", "INIT");
        assertThat(trace.infoMask & trace.debugMask & trace.traceMask).isEqualTo(init);
        assertThat(trace.backendLevel()).isEqualTo("trace");
        assertThat(version.backendLevel()).isEqualTo("info");
        assertThat(settings("WARN", "INIT").backendLevel()).isEqualTo("warn");
    }

    @Test
    void badLevelNamesTheVariableAndTheLevels() {
        assertThatThrownBy(() -> LogSettings.parseLevel("verbose"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JCCL_DEBUG='verbose' is invalid: it must be one of WARN, VERSION, INFO, DEBUG, TRACE");
        assertThatThrownBy(() -> LogSettings.parseLevel("2")).hasMessageContaining("JCCL_DEBUG='2'");
    }

    @Test
    void subsystemListsInAnyCaseWithSpaces() {
        assertThat(LogSettings.parseSubsystems("NET")).containsExactly(Subsystem.NET);
        assertThat(LogSettings.parseSubsystems("init, coll ,P2p")).containsExactlyInAnyOrder(Subsystem.INIT,
                Subsystem.COLL, Subsystem.P2P);
        assertThat(LogSettings.parseSubsystems("NET,,SHM,")).containsExactlyInAnyOrder(Subsystem.NET, Subsystem.SHM);
        assertThat(LogSettings.parseSubsystems("ALL")).isEqualTo(EnumSet.allOf(Subsystem.class));
        assertThat(LogSettings.parseSubsystems("all,NET")).isEqualTo(EnumSet.allOf(Subsystem.class));
        for (Subsystem s : Subsystem.values()) {
            assertThat(LogSettings.parseSubsystems(s.name().toLowerCase())).containsExactly(s);
        }
    }

    @Test
    void leadingCaretExcludesTheWholeList() {
        assertThat(LogSettings.parseSubsystems("^INIT"))
                .isEqualTo(EnumSet.complementOf(EnumSet.of(Subsystem.INIT)));
        assertThat(LogSettings.parseSubsystems(" ^NET,shm")).isEqualTo(EnumSet.complementOf(EnumSet.of(Subsystem.NET,
                Subsystem.SHM)));
        assertThat(LogSettings.parseSubsystems("^ALL")).isEmpty();
        LogSettings none = settings("TRACE", "^ALL");
        assertThat(none.infoMask | none.debugMask | none.traceMask).isZero();
    }

    @Test
    void badSubsystemNamesTheVariableTheWordAndTheNames() {
        assertThatThrownBy(() -> LogSettings.parseSubsystems("INIT,GRAPH"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JCCL_DEBUG_SUBSYS='INIT,GRAPH' is invalid: 'GRAPH' is not a subsystem; it must be a comma list of "
                        + "INIT, COLL, P2P, NET, SHM, BOOTSTRAP, ENV, TUNE, PROTO, ALL, all after ^ to exclude them");
        // NCCL's ^ applies to the whole list; one per name is not the syntax.
        assertThatThrownBy(() -> LogSettings.parseSubsystems("INIT,^NET"))
                .hasMessageContaining("'^NET' is not a subsystem");
        assertThatThrownBy(() -> LogSettings.parseSubsystems("^"))
                .hasMessageContaining("JCCL_DEBUG_SUBSYS='^' is invalid: it names no subsystem");
        assertThatThrownBy(() -> LogSettings.parseSubsystems(",")).hasMessageContaining("names no subsystem");
    }

    @Test
    void communicatorCreationRefusesBadValuesFromTheEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("JCCL_DEBUG", "LOUD");
        assertThatThrownBy(() -> CommConfig.DEFAULT.resolve(env))
                .isInstanceOfSatisfying(JcclException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining("JCCL_DEBUG='LOUD' is invalid: it must be one of").hasMessageContaining("from the environment");
        env.put("JCCL_DEBUG", "info");
        env.put("JCCL_DEBUG_SUBSYS", "INIT,NETWORK");
        assertThatThrownBy(() -> CommConfig.DEFAULT.resolve(env))
                .hasMessageContaining("JCCL_DEBUG_SUBSYS='INIT,NETWORK' is invalid: 'NETWORK' is not a subsystem");
        env.put("JCCL_DEBUG_SUBSYS", "^coll");
        assertThat(CommConfig.DEFAULT.resolve(env).options()).containsEntry("JCCL_DEBUG", "info");
    }

    @Test
    void theyAreNotPerCommunicatorOptions() {
        assertThatThrownBy(() -> CommConfig.builder().option("JCCL_DEBUG", "INFO"))
                .isInstanceOfSatisfying(JcclException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining("JCCL_DEBUG applies to the whole JVM");
        assertThatThrownBy(() -> CommConfig.builder().option("JCCL_DEBUG_SUBSYS", "NET"))
                .hasMessageContaining("JCCL_DEBUG_SUBSYS applies to the whole JVM");
    }

    private static LogSettings settings(String level, String subsys) {
        return LogSettings.fromEnvironment(Map.of("JCCL_DEBUG", level, "JCCL_DEBUG_SUBSYS", subsys));
    }
}
