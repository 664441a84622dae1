/**
 * The in-JVM transport: ranks that are threads of one process exchange messages by a single copy from the
 * sender's memory into the receiver's, with no intermediate buffer and no lock.
 *
 * <p>Each one-directional connection is a ring of slots; message n uses slot {@code n mod capacity}. Each side
 * fills in its half of the slot and then sets its bit in the slot's state with one atomic operation; the
 * side that arrives second sees the other's bit, claims the slot, checks tag and size, copies, marks it done
 * and signals the other side's executor. A slot is reused only after both sides have retired the message.
 */
package io.jccl.net.local;
