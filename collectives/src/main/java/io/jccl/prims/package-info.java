/**
 * The primitives every algorithm is written on (after NCCL's {@code prims}): send, recv, recvReduceSend,
 * recvReduceCopySend, recvCopySend, plus a local copy and a symmetric exchange. Algorithms call them on a
 * {@link io.jccl.prims.Prims}; they never see a transport. Offsets and counts are in elements.
 */
package io.jccl.prims;
