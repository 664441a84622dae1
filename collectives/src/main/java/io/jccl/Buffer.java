package io.jccl;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The memory an operation of a {@link Communicator} reads or writes: host memory ({@link HostBuffer}, made from a
 * heap array, a {@link ByteBuffer} or a {@link MemorySegment}) or memory of a memory domain such as a GPU's
 * ({@link DeviceBuffer}, which is a {@code Buffer} itself).
 *
 * <p>Making a buffer is cheap, but not free: a caller that runs the same operation many times (a training step, a
 * benchmark loop) makes its buffers once and passes the same instances each time, so that issuing an operation
 * allocates nothing.
 *
 * <pre>{@code
 * float[] gradients = ...;
 * Buffer g = Buffer.of(gradients);
 * comm.allReduce(g, g, gradients.length, DataType.FLOAT32, ReduceOp.SUM).await();   // in place
 * }</pre>
 *
 * <p>The factories return null for a null argument, so that {@code Buffer.of(rank == root ? data : null)} can be
 * passed where an operation allows a missing buffer (a non-root's receive buffer of reduce or gather, say).
 */
public sealed interface Buffer permits HostBuffer, DeviceBuffer {
    /** @return the size in bytes */
    long byteSize();

    /**
     * A view of part of this buffer, of the same kind (for example the block an in-place all-gather sends:
     * {@code recv.slice(rank * blockBytes, blockBytes)}).
     *
     * @param offsetBytes where the view starts
     * @param sizeBytes   its size
     * @return the view
     * @throws JcclException INVALID_ARGUMENT when the range is not inside this buffer
     */
    Buffer slice(long offsetBytes, long sizeBytes);

    /**
     * @param array bytes, usable with every {@link DataType}
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(byte[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "byte[]", 0);
    }

    /**
     * @param array elements for 2-byte types ({@link DataType#FLOAT16}, {@link DataType#BFLOAT16})
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(short[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "short[]", Short.BYTES);
    }

    /**
     * @param array elements for 4-byte types ({@link DataType#INT32}, {@link DataType#FLOAT32}, ...)
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(int[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "int[]", Integer.BYTES);
    }

    /**
     * @param array elements for 8-byte types ({@link DataType#INT64}, {@link DataType#FLOAT64}, ...)
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(long[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "long[]", Long.BYTES);
    }

    /**
     * @param array elements for 4-byte types
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(float[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "float[]", Float.BYTES);
    }

    /**
     * @param array elements for 8-byte types
     * @return the array as a buffer, or null for null
     */
    static HostBuffer of(double[] array) {
        return array == null ? null : new HostBuffer(MemorySegment.ofArray(array), "double[]", Double.BYTES);
    }

    /**
     * @param buffer its bytes from position to limit, usable with every {@link DataType}; a read-only buffer can
     *               only be read
     * @return the buffer, or null for null
     */
    static HostBuffer of(ByteBuffer buffer) {
        return buffer == null ? null : new HostBuffer(MemorySegment.ofBuffer(buffer), "ByteBuffer", 0);
    }

    /**
     * @param segment native or heap memory, any alignment, usable with every {@link DataType}; it must be
     *                accessible from the communicator's threads (not {@code Arena.ofConfined()})
     * @return the segment as a buffer, or null for null
     */
    static HostBuffer of(MemorySegment segment) {
        return segment == null ? null : new HostBuffer(segment, "MemorySegment", 0);
    }

    /**
     * @param buffer device memory, a buffer already (this method exists so that every kind of memory is passed the
     *               same way)
     * @return {@code buffer}
     */
    static DeviceBuffer of(DeviceBuffer buffer) {
        return buffer;
    }
}
