package io.jccl.metaroce.ffm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shared downcall helpers: boxed calls (a real libc downcall among them) and what they rethrow. */
class DowncallsTest {
    @Test
    @SuppressWarnings("restricted")
    void callPassesBoxedArgumentsToADowncallAndUnboxesItsResult() {
        Linker linker = Linker.nativeLinker();
        MethodHandle abs = linker.downcallHandle(linker.defaultLookup().find("abs").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        assertThat((int) Downcalls.call(abs, -42)).isEqualTo(42);
    }

    @Test
    void callConvertsAByteArgumentAndReturnsNullForVoid() throws ReflectiveOperationException {
        MethodHandle twice = MethodHandles.lookup().findStatic(DowncallsTest.class, "twice",
                MethodType.methodType(int.class, byte.class));
        assertThat((int) Downcalls.call(twice, (byte) 21)).isEqualTo(42);
        MethodHandle nothing = MethodHandles.lookup().findStatic(DowncallsTest.class, "nothing",
                MethodType.methodType(void.class));
        assertThat(Downcalls.call(nothing)).isNull();
    }

    @Test
    void rethrowPassesUncheckedThrowablesAndWrapsCheckedOnes() {
        IllegalArgumentException unchecked = new IllegalArgumentException("x");
        assertThatThrownBy(() -> Downcalls.rethrow(unchecked)).isSameAs(unchecked);
        StackOverflowError error = new StackOverflowError();
        assertThatThrownBy(() -> Downcalls.rethrow(error)).isSameAs(error);
        IOException checked = new IOException("y");
        assertThatThrownBy(() -> Downcalls.rethrow(checked)).isInstanceOf(IllegalStateException.class)
                .hasCause(checked);
    }

    @Test
    void callRethrowsWhatTheHandleThrows() throws ReflectiveOperationException {
        MethodHandle fails = MethodHandles.lookup().findStatic(DowncallsTest.class, "fails",
                MethodType.methodType(void.class));
        assertThatThrownBy(() -> Downcalls.call(fails)).isInstanceOf(IllegalStateException.class)
                .hasCauseInstanceOf(IOException.class);
    }

    private static int twice(byte b) {
        return 2 * b;
    }

    private static void nothing() {
    }

    private static void fails() throws IOException {
        throw new IOException("failed");
    }
}
