package io.jccl;

import io.jccl.core.CommFactory;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A group of ranks that run collective operations together (NCCL's {@code ncclComm_t}).
 *
 * <h2>Creating one</h2>
 * <ul>
 * <li>Across processes: one rank calls {@link UniqueId#create()}, passes {@link UniqueId#encode()} to the others
 *     (an environment variable, a file, a job scheduler), and every rank calls
 *     {@link #init(UniqueId, int, int, CommConfig)}, which returns once all ranks are connected.</li>
 * <li>In one JVM: {@link #local(int)} makes n ranks whose operations run on their own threads
 *     (like {@code ncclCommInitAll}).</li>
 * </ul>
 *
 * <h2>Operations</h2>
 * Every operation checks its arguments at once (a bad argument throws {@link JcclException} with code
 * {@link ErrorCode#INVALID_ARGUMENT} and nothing is written anywhere), then returns a {@link CollectiveFuture}.
 * Operations on one communicator run and complete in the order they were issued (callbacks attached through
 * {@link CollectiveFuture#toCompletableFuture()} run on the communicator's thread in that order); every rank
 * must issue the same collectives in the same order with matching counts, types, operations and roots. A rank
 * whose call does not match is detected before any data of the mismatched call is written: the operation fails
 * with {@link ErrorCode#INVALID_USAGE} naming the difference (e.g. {@code count 1000 vs 1001},
 * {@code root 0 vs 1}, {@code operation broadcast vs allReduce}) on every rank whose part of it depends on the
 * odd rank - for all-reduce, all-gather, reduce-scatter and all-to-all that is every rank - and every other rank
 * learns of it at once: its communicator is broken as described under Failure. Only a rank whose own part of a
 * rooted collective, all-to-allv or send/receive finished without the odd rank may see its call complete
 * (with correct data). Detection compares the call's kind, type, reduction, root, count (modulo 2<sup>32</sup>)
 * and call number (modulo 256) between ring neighbours and between communicating ranks; all-to-allv counts are
 * compared by message size.
 *
 * <h2>Buffers and arguments</h2>
 * Every data operation is declared once and takes {@link Buffer}s: {@code Buffer.of(...)} a heap array,
 * {@link java.nio.ByteBuffer} (position to limit), {@link MemorySegment} (native or heap, any alignment) or
 * {@link DeviceBuffer}. Make a buffer once and pass it to every call that uses the memory. Counts are in elements
 * of {@code type}, the element type; {@code op} is the reduction. The caller must not touch the buffers until the
 * future completes. The rules, checked on every call:
 * <ul>
 * <li>counts are not negative; {@code type} is not null; a reduction supports the type;
 *     {@code root} and {@code peer} are ranks of this communicator;</li>
 * <li>a buffer holds at least the bytes the operation needs (it may be larger) and is not null, except one
 *     a rank does not use (a non-root's send buffer of broadcast and scatter, receive buffer of reduce and
 *     gather); it is accessible from the communicator's threads, and written ones are not read-only;</li>
 * <li>an array other than {@code byte[]} has the element size of {@code type} (a {@code float[]} carries
 *     FLOAT32 or INT32, not FLOAT64);</li>
 * <li>send and receive buffer are both host memory or both device buffers;</li>
 * <li>they do not overlap, except in place (below).</li>
 * </ul>
 *
 * <h2>In place</h2>
 * As in NCCL, an operation runs in place when the send buffer is at a particular spot in the receive buffer:
 * {@code send == recv} for all-reduce, broadcast, reduce; {@code send == recv + rank * sendCount} elements for
 * all-gather and gather (root); {@code recv == send + rank * recvCount} elements for reduce-scatter and scatter
 * (root). Pass the same buffer twice, or a {@link Buffer#slice slice} at the in-place position (all-gather:
 * {@code send = recv.slice(rank * sendBytes, sendBytes)}). Any other overlap of send and receive buffers is
 * rejected. All-to-all cannot run in place.
 *
 * <h2>Device buffers</h2>
 * A {@link DeviceBuffer} is memory of a memory domain such as a GPU's (module {@code jccl-gpu-memory}: host and
 * ROCm HIP). Memory that host code can address is used directly. Other buffers are staged: when the operation
 * starts, on the communicator's thread, its input is copied into pinned host memory from the buffer's
 * {@link DeviceBuffer#hostStaging() staging}, the operation runs there on whatever transport connects the ranks
 * (none reads device memory yet), and the output is copied back into the buffer before the future completes.
 * Because the copies happen when the operation runs, not when it is issued, an operation sees what earlier
 * operations wrote into its buffers, as with host memory. A failed device copy fails the operation with the
 * copy's error ({@link ErrorCode#SYSTEM_ERROR} when the device refused; INVALID_USAGE for a buffer freed
 * meanwhile) naming the operation, the domain and the failed call, and breaks the communicator like any other
 * failure (its peers learn of it).
 *
 * <h2>Failure</h2>
 * After an operation fails (a timeout, a mismatch, a peer that went away) the communicator is broken: pending
 * and later operations fail with the same error, which {@link #asyncError()} also reports. Call
 * {@link #abort()} (or {@link #close()}) and build a new one, or {@link #shrink(int...)} it to the ranks that
 * are left.
 *
 * <p>A rank that dies (killed, crashed, its host or network gone) is noticed by the others without any operation
 * waiting for it: a broken control connection is noticed at once, and every rank sends heartbeats to every peer
 * each fifth of {@link CommConfig#PEER_TIMEOUT_MS} (default 20 s), so a peer silent for that long is declared
 * dead. Either way every surviving rank's pending operations fail with {@link ErrorCode#REMOTE_ERROR} naming the
 * rank, its process id and host, and {@link #asyncError()} reports it even when nothing was pending. A rank that
 * {@linkplain #close() closes} says goodbye first, so its departure is not taken for a death. Heartbeats are sent
 * by a JVM-wide daemon thread, so a rank that is merely busy (a long completion callback, a slow first
 * reduction) is not taken for dead; a whole process that stops (a debugger, a stop-the-world pause) longer than
 * the peer timeout is.
 *
 * <p>Communicators are thread-safe: any thread may issue operations; they are queued in arrival order.
 */
public interface Communicator extends AutoCloseable {
    /** Passed as the color to {@link #split(int, int)} by ranks that join no new communicator. */
    int SPLIT_NO_COLOR = -1;

    /**
     * Joins a communicator of {@code size} ranks as {@code rank}. Collective: every rank calls it with the same
     * id and size; it returns when all ranks have joined and are connected.
     *
     * @param id     the id one rank created with {@link UniqueId#create()}
     * @param rank   this rank, 0 to size-1
     * @param size   the number of ranks
     * @param config settings
     * @return the communicator
     * @throws JcclException INVALID_ARGUMENT for bad arguments, TIMEOUT when the ranks don't all arrive within
     *                       the init timeout, REMOTE_ERROR when the rendezvous refuses this rank
     */
    static Communicator init(UniqueId id, int rank, int size, CommConfig config) {
        return CommFactory.init(id, rank, size, config);
    }

    /** @return {@link #init(UniqueId, int, int, CommConfig)} with {@link CommConfig#DEFAULT} */
    static Communicator init(UniqueId id, int rank, int size) {
        return init(id, rank, size, CommConfig.DEFAULT);
    }

    /**
     * Joins the communicator of the job this process was launched in, reading rank, size and rendezvous from the
     * launcher's environment variables: {@code jccl run}, Open MPI's mpirun, PMI (MPICH, Intel MPI), torchrun,
     * Slurm's srun or a Kubernetes indexed Job, detected in that order (see {@link io.jccl.env.LaunchEnvironment}
     * and docs/launching.md). Collective: every rank of the job calls it once.
     *
     * @param config settings
     * @return the communicator
     * @throws JcclException INVALID_ARGUMENT naming the variable and value when one is missing, malformed or in
     *                       conflict with another; TIMEOUT when the other ranks (or rank 0's id file) do not appear
     *                       within the init timeout; otherwise as {@link #init(UniqueId, int, int, CommConfig)}
     */
    static Communicator fromEnvironment(CommConfig config) {
        return io.jccl.env.EnvCommunicator.create(config);
    }

    /** @return {@link #fromEnvironment(CommConfig)} with {@link CommConfig#DEFAULT} */
    static Communicator fromEnvironment() {
        return fromEnvironment(CommConfig.DEFAULT);
    }

    /** @return {@link #local(int, CommConfig)} with {@link CommConfig#DEFAULT} (the in-JVM transport) */
    static List<Communicator> local(int n) {
        return local(n, CommConfig.DEFAULT);
    }

    /**
     * Creates {@code n} ranks in this JVM, each with its own thread, connected by the in-JVM transport.
     *
     * @param n      the number of ranks, at least 1
     * @param config settings (e.g. {@code transport("tcp")} to connect them over loopback TCP instead)
     * @return the communicators, index = rank
     */
    static List<Communicator> local(int n, CommConfig config) {
        return CommFactory.local(n, config);
    }

    /** @return this rank, 0 to {@link #size()}-1 */
    int rank();

    /** @return the number of ranks */
    int size();

    /** @return the effective settings */
    CommConfig.Resolved config();

    /**
     * Allocates memory for this communicator's buffers that its peers can reach directly (NCCL's
     * {@code ncclMemAlloc} followed by window registration; rccl-tests' and {@code jccl perf}'s {@code -R 1}).
     *
     * <p>Where this rank reaches peers through the {@code shm} transport (other JVMs of this host), the memory comes
     * from this rank's registered memory in its shared-memory segment ({@code JCCL_SHM_REGISTERED_BYTES}, default
     * 1 GiB of address space per rank, touched only where allocated), which those peers map: a message sent from it
     * is copied by the receiving rank straight out of its mapping, one copy and no system call, where ordinary memory
     * takes a cross-memory read ({@code process_vm_readv}) or a copy through a ring. Otherwise (every peer in this JVM
     * or on other hosts) it is ordinary native memory, which works the same with one copy more or less.
     *
     * <p>The memory is zeroed, aligned to 4096 bytes, usable by any thread and in any operation of any communicator.
     * It stays valid until {@link #free(MemorySegment)} or until this communicator is closed or aborted (after its
     * operations ended); afterwards an access throws {@link IllegalStateException} instead of reaching memory that
     * was handed out again.
     *
     * @param bytes the size in bytes, at least 1
     * @return the memory
     * @throws JcclException INVALID_ARGUMENT for {@code bytes < 1}; SYSTEM_ERROR when the registered memory has no
     *                       free block that large (the message names {@code JCCL_SHM_REGISTERED_BYTES}); INVALID_USAGE
     *                       after {@link #close()}
     */
    MemorySegment allocate(long bytes);

    /**
     * Frees memory {@link #allocate(long)} returned; the segment can no longer be used. After {@link #close()} it
     * does nothing (closing freed everything).
     *
     * @param segment the segment {@code allocate} returned (not a slice of it)
     * @throws JcclException INVALID_ARGUMENT when the segment is not one this communicator allocated, or was freed
     *                       already
     */
    void free(MemorySegment segment);

    /**
     * Reduces {@code count} elements across all ranks; every rank receives the result.
     *
     * @param send  this rank's input ({@code count} elements)
     * @param recv  where the result goes ({@code count} elements); {@code send} for in place
     * @param count elements per rank
     * @return the pending operation
     */
    CollectiveFuture allReduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op);

    /**
     * Copies {@code count} elements from {@code root}'s {@code send} to every rank's {@code recv}.
     *
     * @param send  the data, read on the root only (may be null elsewhere)
     * @param recv  where the data goes on every rank; the root may pass {@code send} for in place
     * @param count elements
     * @param root  the rank that has the data
     * @return the pending operation
     */
    CollectiveFuture broadcast(Buffer send, Buffer recv, long count, DataType type, int root);

    /**
     * In-place broadcast (NCCL's {@code ncclBcast}): the root's {@code buffer} is copied into everyone's.
     *
     * @param buffer the data on the root, the destination elsewhere
     * @param count  elements
     * @param root   the rank that has the data
     * @return the pending operation
     */
    default CollectiveFuture broadcast(Buffer buffer, long count, DataType type, int root) {
        return broadcast(buffer, buffer, count, type, root);
    }

    /**
     * Reduces {@code count} elements across all ranks into {@code root}'s {@code recv}.
     *
     * @param send  this rank's input
     * @param recv  the result, written on the root only (may be null elsewhere)
     * @param count elements
     * @param root  the rank that receives the result
     * @return the pending operation
     */
    CollectiveFuture reduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op, int root);

    /**
     * Gathers {@code sendCount} elements from every rank into every rank's {@code recv}, in rank order.
     *
     * @param send      this rank's part; {@code recv.slice(rank * sendBytes, sendBytes)} for in place
     * @param recv      {@code size * sendCount} elements
     * @param sendCount elements per rank
     * @return the pending operation
     */
    CollectiveFuture allGather(Buffer send, Buffer recv, long sendCount, DataType type);

    /**
     * Reduces {@code size * recvCount} elements across ranks and leaves block {@code rank} of the result on
     * each rank.
     *
     * @param send      {@code size * recvCount} elements
     * @param recv      this rank's block of the result, {@code recvCount} elements;
     *                  {@code send.slice(rank * recvBytes, recvBytes)} for in place
     * @param recvCount elements per rank
     * @return the pending operation
     */
    CollectiveFuture reduceScatter(Buffer send, Buffer recv, long recvCount, DataType type, ReduceOp op);

    /**
     * Sends block {@code j} of {@code send} to rank {@code j}, and receives rank {@code j}'s block for this rank
     * into block {@code j} of {@code recv}; each block is {@code count} elements.
     *
     * @param send  {@code size * count} elements
     * @param recv  {@code size * count} elements; must not overlap {@code send}
     * @param count elements per block
     * @return the pending operation
     */
    CollectiveFuture allToAll(Buffer send, Buffer recv, long count, DataType type);

    /**
     * All-to-all with a count and a displacement (both in elements) per peer. Rank i's {@code sendCounts[j]}
     * must equal rank j's {@code recvCounts[i]}. The displacement of a block with count 0 is ignored. The arrays
     * are copied. A staged device buffer gets only the received blocks back; bytes between them keep their
     * contents.
     *
     * @param send       the data to send
     * @param sendCounts elements for each rank
     * @param sendDispls where each rank's elements start in {@code send}
     * @param recv       where received data goes; must not overlap {@code send}
     * @param recvCounts elements from each rank
     * @param recvDispls where each rank's elements go in {@code recv}
     * @return the pending operation
     */
    CollectiveFuture allToAllv(Buffer send, long[] sendCounts, long[] sendDispls, Buffer recv, long[] recvCounts,
                               long[] recvDispls, DataType type);

    /**
     * Gathers {@code sendCount} elements from every rank into {@code root}'s {@code recv}, in rank order.
     *
     * @param send      this rank's part
     * @param recv      {@code size * sendCount} elements on the root (may be null elsewhere)
     * @param sendCount elements per rank
     * @param root      the rank that receives
     * @return the pending operation
     */
    CollectiveFuture gather(Buffer send, Buffer recv, long sendCount, DataType type, int root);

    /**
     * Sends block {@code j} of {@code root}'s {@code send} to rank {@code j}.
     *
     * @param send      {@code size * recvCount} elements on the root (may be null elsewhere)
     * @param recv      this rank's block
     * @param recvCount elements per rank
     * @param root      the rank that has the data
     * @return the pending operation
     */
    CollectiveFuture scatter(Buffer send, Buffer recv, long recvCount, DataType type, int root);

    /**
     * Sends {@code count} elements to {@code peer}, which must post a matching {@link #recv}. A send and a
     * receive between the same pair that each side issues in the other order must be in one group
     * ({@link #group(Consumer)}), or they can wait on each other forever.
     *
     * @param buffer the data
     * @param count  elements
     * @param peer   the receiving rank (this rank only within a group that also receives from itself)
     * @return the pending operation
     */
    CollectiveFuture send(Buffer buffer, long count, DataType type, int peer);

    /**
     * Receives {@code count} elements from {@code peer}'s matching {@link #send}.
     *
     * @param buffer where the data goes
     * @param count  elements; must equal the sender's count
     * @param type   element type; must equal the sender's
     * @param peer   the sending rank
     * @return the pending operation
     */
    CollectiveFuture recv(Buffer buffer, long count, DataType type, int peer);
    /**
     * Completes once every rank has called it.
     *
     * @return the pending operation
     */
    CollectiveFuture barrier();

    /**
     * Starts a group: operations this thread issues on this communicator until {@link #groupEnd()} are
     * collected and launched together, so sends and receives between the same ranks cannot wait on each
     * other. Collectives in a group run in the order issued, before the group's sends and receives, which all
     * proceed at once. Groups nest; only the outermost end launches. While a group is open, other threads'
     * operations on this communicator are refused.
     *
     * @throws JcclException INVALID_USAGE when another thread has a group open
     */
    void groupStart();

    /**
     * Ends a group; the outermost end launches the collected operations. An inner end launches nothing.
     *
     * @return for the outermost end, completes when every operation of the group has completed (each also has
     *         its own future); for an inner end, a future that is already complete
     * @throws JcclException INVALID_USAGE without a matching {@link #groupStart()} on this thread; when the
     *                       communicator was closed or aborted while the group was open, or the body of a nested
     *                       {@link #group(Consumer)} threw (then the collected operations are not launched and
     *                       their futures fail with the same error)
     */
    CollectiveFuture groupEnd();

    /**
     * Runs {@code body} between {@link #groupStart()} and {@link #groupEnd()}.
     *
     * <p>If {@code body} throws (an argument error of one of its operations, say), the group is abandoned:
     * nothing it collected is launched, those operations' futures fail with {@link ErrorCode#INVALID_USAGE},
     * and the exception propagates. Inside an outer group, the outer group is abandoned too: its
     * {@link #groupEnd()} throws. (Launching part of a group would leave the peers' matching operations
     * waiting or mismatched.)
     *
     * @param body issues the group's operations on the communicator it is given (this one)
     * @return completes when every operation of the group has completed
     */
    default CollectiveFuture group(Consumer<Communicator> body) {
        groupStart();
        boolean ended = false;
        try {
            body.accept(this);
            ended = true;
            return groupEnd();
        } finally {
            if (!ended) {
                groupEnd();
            }
        }
    }

    /**
     * Splits this communicator (NCCL's {@code ncclCommSplit}): ranks passing the same {@code color} form a new
     * communicator, ordered by {@code key} (ties by this rank). Collective over this communicator.
     *
     * @param color the group to join, or {@link #SPLIT_NO_COLOR} to join none
     * @param key   the ordering key within the group
     * @return the new communicator, or empty for {@link #SPLIT_NO_COLOR}
     */
    Optional<Communicator> split(int color, int key);

    /**
     * Builds a new communicator from this one's ranks minus {@code excludedRanks} (NCCL's {@code ncclCommShrink}),
     * typically after some ranks died: this communicator's connections are not used, so it may be broken or
     * aborted. Collective over the remaining ranks: each calls it with the same excluded ranks (in any order);
     * the excluded ranks do not call it. The remaining ranks keep their order: rank r becomes r minus the number
     * of excluded ranks below r. This communicator is left as it is (abort or close it yourself); it can be shrunk
     * once, and the result can be shrunk again. Pending operations here are not waited for.
     *
     * <p>The new communicator meets through a rendezvous served by the lowest remaining rank on a socket it has
     * held since creation, keyed by a secret derived from this communicator's and the excluded ranks, so ranks
     * that disagree about the excluded ranks cannot meet; they time out.
     *
     * @param excludedRanks ranks to leave out: distinct, in range, not this rank; may be empty (a copy)
     * @return the new communicator, with the same settings as this one
     * @throws JcclException INVALID_ARGUMENT for bad ranks; INVALID_USAGE after {@link #close()}, for a second
     *                       shrink, or from a completion callback; TIMEOUT when the other remaining ranks do not
     *                       all arrive within the init timeout
     */
    Communicator shrink(int... excludedRanks);

    /**
     * Waits until every operation issued so far has completed.
     *
     * @throws JcclException the first failure among them
     */
    void synchronize();

    /**
     * The error that broke this communicator, if any (NCCL's {@code ncclCommGetAsyncError}).
     *
     * @return the error, or empty while healthy
     */
    Optional<JcclException> asyncError();

    /**
     * Stops at once: pending and queued operations fail with {@link ErrorCode#ABORTED}, peers are told, and
     * connections close. Returns within about a second. Idempotent.
     */
    void abort();

    /**
     * Waits for the operations issued so far, then releases the communicator's threads, connections and
     * memory. Later calls fail with INVALID_USAGE. Idempotent.
     */
    @Override
    void close();
}
