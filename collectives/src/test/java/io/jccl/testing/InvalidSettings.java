package io.jccl.testing;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.core.CommFactory;
import io.jccl.env.EnvCommunicator;
import org.junit.jupiter.api.function.ThrowingSupplier;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Checks that a bad setting is refused alike by every way of making a communicator, before anything connects. */
public final class InvalidSettings {
    /** A rendezvous nobody serves: the setting must be refused before anything connects. */
    private static final UniqueId NOWHERE = UniqueId.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
            new byte[32]);

    private InvalidSettings() {
    }

    /**
     * The setting {@code key=value} must be refused with INVALID_ARGUMENT ending with {@code expected} by
     * {@code Communicator.local}, {@code Communicator.init} and {@code Communicator.fromEnvironment} (given it in
     * their environment, the message then says so) and by {@code CommConfig.Builder.option}.
     */
    public static void assertInvalidThroughEveryEntryPoint(String key, String value, String expected) {
        Map<String, String> env = Map.of(key, value);
        String fromEnv = expected + " (from the environment)";
        assertInvalid("Communicator.local", fromEnv, () -> CommFactory.local(2, CommConfig.DEFAULT, env));
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

    /**
     * The call must throw exactly one JcclException INVALID_ARGUMENT whose message ends with {@code expected}; the
     * communicators it makes instead are closed.
     *
     * @param entryPoint names the call in failure messages
     */
    public static void assertInvalid(String entryPoint, String expected, ThrowingSupplier<List<Communicator>> call) {
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
}
