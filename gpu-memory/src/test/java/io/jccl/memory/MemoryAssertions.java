package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Assertions the memory tests share. */
public final class MemoryAssertions {
    private MemoryAssertions() {
    }

    /**
     * Asserts that {@code call} fails with a {@link JcclException} of {@code code} whose message contains
     * {@code fragment}.
     *
     * @param code     the expected error code
     * @param call     what must fail
     * @param fragment text the message must contain
     */
    public static void assertFailsWith(ErrorCode code, ThrowingCallable call, String fragment) {
        assertThatThrownBy(call).isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.code()).isEqualTo(code))
                .hasMessageContaining(fragment);
    }
}
