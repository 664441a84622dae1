package io.jccl.metaroce.net;

import io.jccl.CommConfig;
import io.jccl.core.CommFactory;
import io.jccl.testing.InvalidSettings;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.stream.Stream;

import static io.jccl.testing.InvalidSettings.assertInvalid;

/**
 * Every bad {@code JCCL_METAROCE_*} setting is one {@code INVALID_ARGUMENT} naming the variable, the value and what
 * is allowed, through the builder, {@code Communicator.local}, {@code Communicator.init} and
 * {@code Communicator.fromEnvironment} — also where no pair would use MetaRoCE (ranks of one JVM), so it fails the
 * same on every host; never the {@code SYSTEM_ERROR} or {@code INTERNAL_ERROR} of a failed transport start.
 */
@Tag("integration")
class MetaRoceOptionErrorsTest {
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
        InvalidSettings.assertInvalidThroughEveryEntryPoint(key, value, expected);
        assertInvalid("Communicator.local over metaroce", expected + " (from the environment)",
                () -> CommFactory.local(2, CommConfig.builder().transport("metaroce").build(), Map.of(key, value)));
    }

    @org.junit.jupiter.api.Test
    void forcingMetaroceBetweenRanksOfOneJvmSaysTheyShareItAndNamesTheTransportsThatCan() {
        assertInvalid("Communicator.local over metaroce", "JCCL_NET=metaroce cannot connect rank 0 and rank 1: they"
                + " share one JVM; transports that can connect them: local, tcp",
                () -> CommFactory.local(2, CommConfig.builder().transport("metaroce").build(), Map.of()));
    }
}
