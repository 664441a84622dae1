package io.jccl.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded many-producer, one-consumer queue of operations, lock-free and allocation-free: producers claim a
 * sequence with a CAS on the tail, then publish the element into its slot; the consumer takes slots in order.
 * Written here instead of taken from Agrona so that the core needs no {@code --add-opens} flags.
 */
final class OpQueue<E> {
    private static final VarHandle ELEMENTS = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle TAIL = VarHandles.field(MethodHandles.lookup(), OpQueue.class, "tail", long.class);
    private static final VarHandle HEAD = VarHandles.field(MethodHandles.lookup(), OpQueue.class, "head", long.class);

    private final Object[] elements;
    private final int mask;
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    @SuppressWarnings("unused") // through HEAD
    private volatile long head;

    OpQueue(int requestedCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, requestedCapacity) * 2 - 1);
        this.elements = new Object[capacity];
        this.mask = capacity - 1;
    }

    /** @return the element's position in the queue's order (0, 1, ...), or -1 when full */
    long offer(E e) {
        if (e == null) {
            throw new NullPointerException("element");
        }
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            long h = (long) HEAD.getAcquire(this);
            if (t - h >= elements.length) {
                return -1;
            }
            if (TAIL.compareAndSet(this, t, t + 1)) {
                ELEMENTS.setRelease(elements, (int) (t & mask), e);
                return t;
            }
        }
    }

    /** @return whether no element is claimed but not yet taken (a snapshot) */
    boolean isEmpty() {
        return (long) TAIL.getVolatile(this) == (long) HEAD.getVolatile(this);
    }

    /** @return how many elements were ever claimed (offers that succeeded) */
    long claims() {
        return (long) TAIL.getVolatile(this);
    }

    /** @return how many elements were ever taken (a snapshot; any thread) */
    long taken() {
        return (long) HEAD.getVolatile(this);
    }

    /** Consumer only. @return the next element, or null when none is published yet */
    @SuppressWarnings("unchecked")
    E poll() {
        long h = (long) HEAD.get(this);
        int i = (int) (h & mask);
        Object e = ELEMENTS.getAcquire(elements, i);
        if (e == null) {
            return null;
        }
        ELEMENTS.set(elements, i, null);
        HEAD.setRelease(this, h + 1);
        return (E) e;
    }
}
