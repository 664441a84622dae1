package io.jccl.net.shm;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** The var handles every atomic or ordered access to shared memory goes through: (segment, byte offset), aligned. */
final class Layouts {
    /** 64-bit words: stamps, counters, states. */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** 32-bit words: the doorbell and its waiter count. */
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private Layouts() {
    }
}
