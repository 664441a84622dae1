/**
 * The {@code shm} transport: JCCL's transport SPI over shared memory for ranks in different JVMs of one host, with no
 * media driver and no thread of its own.
 *
 * <h2>Segment</h2>
 * Each rank's transport creates one segment ({@link io.jccl.net.shm.Segment}): an anonymous, size-sealed
 * {@code memfd} that never has a name in {@code /dev/shm}, so nothing is left behind when ranks are killed. Peers map
 * it through {@code /proc/<pid>/fd/<fd>}, named in the listener handle with a random token. It holds a header with
 * the rank's doorbell (a futex word), one slot per connection into the rank (a control block and a ring, in the
 * receiver's memory), and the rank's registered heap ({@code Communicator.allocate}). Layout:
 * {@link io.jccl.net.shm.Layout}.
 *
 * <h2>Messages</h2>
 * A sender writes records into its slot's ring ({@link io.jccl.net.shm.Records}); each record's first word, its
 * stamp, is published last with release semantics, and a receiver polls the stamp at its head with acquire semantics.
 * Messages up to {@code JCCL_SHM_EAGER_BYTES} travel inline (up to 48 bytes in one cache line with their stamp and
 * tag: a fast box). Longer ones from the registered heap travel in one copy, the receiver reading its mapping of the
 * sender's segment; so do those the sender asks to be read where they lie ({@code isendSingleCopy}: out-of-place
 * all-reduces of 2 ranks up to {@code JCCL_SHM_SINGLE_COPY_BYTES}), with {@code process_vm_readv} (cross-memory attach) where
 * the kernel allows it, and every large one under {@code JCCL_SHM_LARGE=cma}. The others are copied through the ring
 * in chunks, pipelined.
 *
 * <h2>Progress, waiting and failure</h2>
 * Caller-driven: everything moves inside {@link io.jccl.net.NetRequest#test()}. A caller with nothing to do may sleep
 * on the rank's doorbell ({@link io.jccl.net.NetTransport#awaitProgress}); peers ring it only when a sleeper
 * announced itself. A connection that makes no progress looks its peer's process up through a pidfd (at most every
 * 50 ms) and fails with {@link io.jccl.net.NetException.Reason#PEER_CLOSED} once it is gone.
 */
package io.jccl.net.shm;
