package io.jccl.metaroce.net;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.core.CommFactory;
import io.jccl.env.EnvCommunicator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every bad {@code JCCL_METAROCE_*} setting is one {@code INVALID_ARGUMENT} naming the variable, the value and what
 * is allowed, through the builder, {@code Communicator.local}, {@code Communicator.init} and
 * {@code Communicator.fromEnvironment} — also where no pair would use MetaRoCE (ranks of one JVM), so it fails the
 * same on every host; never the {@code SYSTEM_ERROR} or {@code INTERNAL_ERROR} of a failed transport start.
 */
@Tag("integration")
class MetaRoceOptionErrorsTest {
    /** A rendezvous nobody serves: the setting must be refused before anything connects. */
    private static final UniqueId NOWHERE = UniqueId.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
            new byte[32]);

    static Stream<Arguments> badSettings() {
        String number = "' is invalid: it must be a whole number from ";
        return Stream.of(
                Arguments.of("JCCL_METAROCE_PATHS", "0", "JCCL_METAROCE_PATHS='0" + number + "1 to 64"),
                Arguments.of("JCCL_METAROCE_PATHS", "many", "JCCL_METAROCE_PATHS='many" + number + "1 to 64"),
                Arguments.of("JCCL_METAROCE_PAYLOAD_BYTES", "10", "JCCL_METAROCE_PAYLOAD_BYTES='10" + number
                        + "256 to 65000"),
                Arguments.of("JCCL_METAROCE_SOCKET_BUFFER_BYTES", "1", "JCCL_METAROCE_SOCKET_BUFFER_BYTES='1" + number
                        + "65536 to 1073741824"),
                Arguments.of("JCCL_METAROCE_RTO_FLOOR_US", "1", "JCCL_METAROCE_RTO_FLOOR_US='1" + number
                        + "10 to 1000000"),
                Arguments.of("JCCL_METAROCE_MAX_INFLIGHT", "0", "JCCL_METAROCE_MAX_INFLIGHT='0" + number
                        + "1 to 1024"),
                Arguments.of("JCCL_METAROCE_PRINT_COUNTERS", "2", "JCCL_METAROCE_PRINT_COUNTERS='2' is invalid: it"
                        + " must be 0 or 1"),
                Arguments.of("JCCL_METAROCE_THREADING", "fast", "JCCL_METAROCE_THREADING='fast' is invalid: it must be"
                        + " one of dedicated, shared, invoker"),
                Arguments.of("JCCL_METAROCE_IDLE", "nap", "JCCL_METAROCE_IDLE='nap' is invalid: it must be one of"
                        + " wait, backoff, yield, busy, sleep"),
                Arguments.of("JCCL_METAROCE_PORTS", "5-1", "JCCL_METAROCE_PORTS='5-1' is invalid: it must be a port"
                        + " range first-last within 1-65535, e.g. 40000-40999 (each rank binds 2 x"
                        + " JCCL_METAROCE_PATHS sockets, more after re-routes)"),
                Arguments.of("JCCL_METAROCE_RELAY", "nohost", "JCCL_METAROCE_RELAY='nohost' is invalid: it must be"
                        + " host:port with a port from 1 to 65535 (the control address a proxy relay, `jccl fabric"
                        + " --proxy`, printed)"),
                Arguments.of("JCCL_METAROCE_OFFLOAD", "a b", "JCCL_METAROCE_OFFLOAD='a b' is invalid: it must be"
                        + " auto, off, or the name of an offload provider (letters, digits, '.', '_', '-')"),
                Arguments.of("JCCL_METAROCE_OFFLOAD", "no-such-nic", "JCCL_METAROCE_OFFLOAD=no-such-nic names no"
                        + " installed offload provider (installed: test-never-accepts): use auto, off, or the name"
                        + " of an installed provider"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badSettings")
    void aBadSettingIsOneInvalidArgumentThroughEveryEntryPoint(String key, String value, String expected) {
        Map<String, String> env = Map.of(key, value);
        String fromEnv = expected + " (from the environment)";
        assertInvalid("Communicator.local", fromEnv, () -> CommFactory.local(2, CommConfig.DEFAULT, env));
        assertInvalid("Communicator.local over metaroce", fromEnv, () -> CommFactory.local(2,
                CommConfig.builder().transport("metaroce").build(), env));
        assertInvalid("Communicator.init", fromEnv,
                () -> List.of(CommFactory.init(NOWHERE, 0, 1, CommConfig.DEFAULT, env)));
        Map<String, String> launched = new HashMap<>(env);
        launched.put("JCCL_RANK", "0");
        launched.put("JCCL_SIZE", "1");
        assertInvalid("Communicator.fromEnvironment", fromEnv,
                () -> List.of(EnvCommunicator.create(launched, CommConfig.DEFAULT)));
        assertInvalid("CommConfig.Builder.option", expected + " (set in CommConfig)", () -> {
            CommConfig.builder().option(key, value);
            return List.of();
        });
    }

    /** The call must throw exactly one JcclException INVALID_ARGUMENT whose message ends with {@code expected}. */
    private static void assertInvalid(String entryPoint, String expected, ThrowingSupplier<List<Communicator>> call) {
        List<Communicator> created;
        try {
            created = call.get();
        } catch (JcclException e) {
            assertThat(e.code()).as("%s: %s", entryPoint, e.getMessage()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.detail()).as(entryPoint).endsWith(expected);
            return;
        } catch (Throwable t) {
            throw new AssertionError(entryPoint + " threw " + t + " instead of INVALID_ARGUMENT", t);
        }
        created.forEach(Communicator::close);
        fail(entryPoint + " accepted the setting: expected INVALID_ARGUMENT " + expected);
    }

    @org.junit.jupiter.api.Test
    void forcingMetaroceBetweenRanksOfOneJvmSaysTheyShareItAndNamesTheTransportsThatCan() {
        assertInvalid("Communicator.local over metaroce", "JCCL_NET=metaroce cannot connect rank 0 and rank 1: they"
                + " share one JVM; transports that can connect them: local, tcp",
                () -> CommFactory.local(2, CommConfig.builder().transport("metaroce").build(), Map.of()));
    }
}
