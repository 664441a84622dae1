package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Assertions on the {@link JcclException} a bootstrap call failed with: its code and what its message names. */
final class JcclFailures {
    private JcclFailures() {
    }

    /** The call throws a JcclException with {@code code} whose message contains every fragment. */
    static void assertThrowsJccl(ThrowingCallable call, ErrorCode code, String... fragments) {
        assertThatThrownBy(call).isInstanceOfSatisfying(JcclException.class, e -> assertCodeAndMessage(e, code,
                fragments));
    }

    /** The rank's future fails (within {@link Ranks#TEST_BOUND_SECONDS}) as {@link #assertThrowsJccl} says. */
    static void assertFailed(CompletableFuture<?> rank, ErrorCode code, String... fragments) {
        assertCodeAndMessage(Ranks.failure(rank), code, fragments);
    }

    private static void assertCodeAndMessage(JcclException e, ErrorCode code, String... fragments) {
        assertThat(e.code()).isEqualTo(code);
        assertThat(e.getMessage()).contains(fragments);
    }
}
