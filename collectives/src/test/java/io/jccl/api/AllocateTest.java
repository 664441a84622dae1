package io.jccl.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Communicator#allocate} and {@link Communicator#free} on communicators without a shm peer (ranks in one JVM):
 * ordinary memory, with the same lifetime rules as registered memory. The shm case runs in real JVMs
 * ({@code io.jccl.net.shm.ShmMultiProcessTest}).
 */
class AllocateTest {
    @Test
    void allocatedMemoryServesAsBuffersAndIsInvalidAfterFree() {
        List<Communicator> comms = Communicator.local(2);
        List<MemorySegment> recvs = new ArrayList<>();
        try {
            int count = 10_000;
            List<MemorySegment> sends = new ArrayList<>();
            for (Communicator c : comms) {
                MemorySegment send = c.allocate(4L * count);
                MemorySegment recv = c.allocate(4L * count);
                assertThat(send.byteSize()).isEqualTo(4L * count);
                assertThat(send.address() % 4096).isZero();
                assertThat(send.mismatch(MemorySegment.ofArray(new byte[4 * count]))).as("zeroed").isEqualTo(-1L);
                for (int i = 0; i < count; i++) {
                    send.setAtIndex(ValueLayout.JAVA_FLOAT, i, c.rank() + i);
                }
                sends.add(send);
                recvs.add(recv);
            }
            List<CollectiveFuture> futures = new ArrayList<>();
            for (Communicator c : comms) {
                futures.add(c.allReduce(Buffer.of(sends.get(c.rank())), Buffer.of(recvs.get(c.rank())), count,
                        DataType.FLOAT32,
                        ReduceOp.SUM));
            }
            futures.forEach(CollectiveFuture::await);
            for (MemorySegment recv : recvs) {
                for (int i = 0; i < count; i++) {
                    assertThat(recv.getAtIndex(ValueLayout.JAVA_FLOAT, i)).isEqualTo(1 + 2f * i);
                }
            }
            Communicator c0 = comms.get(0);
            MemorySegment freed = sends.get(0);
            c0.free(freed);
            assertThatThrownBy(() -> freed.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            assertInvalidArgument(() -> c0.free(freed), "freed already");
            assertInvalidArgument(() -> c0.free(sends.get(1)), "not memory this communicator allocated");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment foreign = arena.allocate(64);
                assertInvalidArgument(() -> c0.free(foreign), "not memory this communicator allocated");
            }
            assertInvalidArgument(() -> c0.allocate(0), "at least 1");
        } finally {
            comms.forEach(Communicator::close);
        }
        assertThatThrownBy(() -> recvs.get(0).get(ValueLayout.JAVA_BYTE, 0)).as("memory of a closed communicator")
                .isInstanceOf(IllegalStateException.class);
        JcclException e = org.junit.jupiter.api.Assertions.assertThrows(JcclException.class,
                () -> comms.get(0).allocate(8));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_USAGE);
    }

    @Test
    void memoryAllocatedBeforeCloseIsInvalidAfterIt() {
        List<Communicator> comms = Communicator.local(1);
        MemorySegment segment = comms.get(0).allocate(100);
        segment.set(ValueLayout.JAVA_BYTE, 99, (byte) 1);
        comms.get(0).close();
        assertThatThrownBy(() -> segment.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        comms.get(0).free(segment);   // after close: nothing to do
    }

    private static void assertInvalidArgument(Runnable call, String messagePart) {
        JcclException e = org.junit.jupiter.api.Assertions.assertThrows(JcclException.class, call::run);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(e.getMessage()).contains(messagePart);
    }
}
