package io.jccl.api;

import io.jccl.CommConfig;
import io.jccl.core.CommFactory;
import io.jccl.testing.InvalidSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.stream.Stream;

import static io.jccl.testing.InvalidSettings.assertInvalid;

/**
 * Every bad setting, whichever transport reads it (tcp, shm, aeron-ipc, aeron-udp) or {@code CommConfig} itself, fails as one
 * {@code INVALID_ARGUMENT} naming the variable, the value and what is allowed, through every entry point: the
 * builder, {@code Communicator.local}, {@code Communicator.init} and {@code Communicator.fromEnvironment} (the last
 * three given it in their environment). Transports check their options even when they would connect no pair
 * (here every rank is in this JVM), so a bad value fails alike everywhere.
 */
class ConfigurationErrorsTest {
    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of("JCCL_SOCKET_NSOCKS", "17", "JCCL_SOCKET_NSOCKS='17' is invalid: it must be a whole number"
                        + " of sockets per connection from 1 to 16"),
                Arguments.of("JCCL_SOCKET_NSOCKS", "two", "JCCL_SOCKET_NSOCKS='two' is invalid: it must be a whole"
                        + " number of sockets per connection from 1 to 16"),
                Arguments.of("JCCL_SOCKET_BUFFER_BYTES", "100", "JCCL_SOCKET_BUFFER_BYTES='100' is invalid: it must be"
                        + " a whole number of bytes, 0 (keep the kernel's defaults) or 4096 to 2147483647"),
                Arguments.of("JCCL_SOCKET_MIN_STRIPE_BYTES", "1", "JCCL_SOCKET_MIN_STRIPE_BYTES='1' is invalid: it"
                        + " must be a whole number of bytes from 4096 to 1073741824"),
                Arguments.of("JCCL_SOCKET_DUPLEX", "yes", "JCCL_SOCKET_DUPLEX='yes' is invalid: it must be 0 or 1"),
                Arguments.of("JCCL_SHM_RING_BYTES", "3", "JCCL_SHM_RING_BYTES='3' is invalid: it must be a power of"
                        + " two number of bytes from 65536 (64 KiB) to 268435456 (256 MiB)"),
                Arguments.of("JCCL_SHM_EAGER_BYTES", "-1", "JCCL_SHM_EAGER_BYTES='-1' is invalid: it must be a whole"
                        + " number of bytes from 0 to 1048576 (a quarter of JCCL_SHM_RING_BYTES, at most 1 MiB)"),
                Arguments.of("JCCL_SHM_LARGE", "xpmem", "JCCL_SHM_LARGE='xpmem' is invalid: it must be one of auto,"
                        + " cma, ring"),
                Arguments.of("JCCL_SHM_SINGLE_COPY_BYTES", "1M", "JCCL_SHM_SINGLE_COPY_BYTES='1M' is invalid: it must"
                        + " be a whole number of bytes from 0 (never) to 1099511627776 (1 TiB)"),
                Arguments.of("JCCL_SHM_REGISTERED_BYTES", "-1", "JCCL_SHM_REGISTERED_BYTES='-1' is invalid: it must be"
                        + " a whole number of bytes from 0 to 68719476736 (64 GiB)"),
                Arguments.of("JCCL_AERON_IPC_TERM_BYTES", "3", "JCCL_AERON_IPC_TERM_BYTES='3' is invalid: it must be a"
                        + " power of two number of bytes from 1048576 (1 MiB) to 1073741824 (1 GiB)"),
                Arguments.of("JCCL_AERON_IPC_DRIVER_IDLE", "nap", "JCCL_AERON_IPC_DRIVER_IDLE='nap' is invalid: it"
                        + " must be one of backoff, spin"),
                Arguments.of("JCCL_AERON_IPC_DIR", "/", "JCCL_AERON_IPC_DIR='/' is invalid: the root directory cannot"
                        + " hold a media driver (its lock file lives next to the directory)"),
                Arguments.of("JCCL_AERON_UDP_MTU", "100", "JCCL_AERON_UDP_MTU='100' is invalid: it must be a multiple"
                        + " of 32 from 512 to 65504"),
                Arguments.of("JCCL_AERON_UDP_TERM_BYTES", "3", "JCCL_AERON_UDP_TERM_BYTES='3' is invalid: it must be"
                        + " a power of two from 65536 to 1073741824"),
                Arguments.of("JCCL_AERON_UDP_SOCKET_BUFFER_BYTES", "1", "JCCL_AERON_UDP_SOCKET_BUFFER_BYTES='1' is"
                        + " invalid: it must be a whole number of bytes from 65536 to 1073741824"),
                Arguments.of("JCCL_AERON_UDP_PEER_TIMEOUT_MS", "1", "JCCL_AERON_UDP_PEER_TIMEOUT_MS='1' is invalid:"
                        + " it must be a whole number of milliseconds from 500 to 600000"),
                Arguments.of("JCCL_NET", "carrier-pigeon", "JCCL_NET='carrier-pigeon' is invalid: it must name a"
                        + " transport on the class path: local, shm, tcp, aeron-udp, aeron-ipc"),
                Arguments.of("JCCL_OP_TIMEOUT_MS", "-5", "JCCL_OP_TIMEOUT_MS='-5' is invalid: it must be a whole"
                        + " number of milliseconds, at least 0"),
                Arguments.of("JCCL_PEER_TIMEOUT_MS", "5", "JCCL_PEER_TIMEOUT_MS='5' is invalid: it must be 0 (off) or"
                        + " a whole number of milliseconds, at least 100"),
                Arguments.of("JCCL_ALGO", "bogo", "JCCL_ALGO='bogo' is invalid: it must be one of auto, ring, tree,"
                        + " rd"),
                Arguments.of("JCCL_CHUNK_SIZE", "1", "JCCL_CHUNK_SIZE='1' is invalid: it must be a size in bytes (e.g."
                        + " 524288, 512K, 1M) from 4096 to 67108864"),
                Arguments.of("JCCL_MAX_PENDING_OPS", "0", "JCCL_MAX_PENDING_OPS='0' is invalid: it must be a whole"
                        + " number from 1 to 1048576"),
                Arguments.of("JCCL_SPIN_US", "x", "JCCL_SPIN_US='x' is invalid: it must be a whole number of"
                        + " microseconds from 0 to 1000000"),
                Arguments.of("JCCL_WARMUP_MS", "60001", "JCCL_WARMUP_MS='60001' is invalid: it must be a whole number"
                        + " of milliseconds from 0 to 60000"),
                Arguments.of("JCCL_MEMORY", "gpu", "JCCL_MEMORY='gpu' is invalid: it must be one of auto, host, hip,"
                        + " cuda"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badSettings")
    void aBadSettingIsOneInvalidArgumentThroughEveryEntryPoint(String key, String value, String expected) {
        InvalidSettings.assertInvalidThroughEveryEntryPoint(key, value, expected);
    }

    @org.junit.jupiter.api.Test
    void forcingATransportThatCannotConnectRanksOfOneJvmSaysSoAndNamesThoseThatCan() {
        assertInvalid("Communicator.local over aeron-udp", "JCCL_NET=aeron-udp cannot connect rank 0 and rank 1: they"
                + " share one JVM; transports that can connect them: local, tcp",
                () -> CommFactory.local(2, CommConfig.builder().transport("aeron-udp").build(), Map.of()));
    }
}
