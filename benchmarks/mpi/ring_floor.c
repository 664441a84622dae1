/*
 * ring_floor: what a 2-rank all-reduce between two processes costs when every byte travels through shared memory by
 * copies, as through a shared-memory transport's rings, with no library in the way: the floor of the design that
 * serves ordinary (private) buffers without cross-memory attach, out of place against in place. Two forked
 * processes (the ranks), each pinned to its own CPU, each with its own private buffers, share one mapping with a
 * channel per direction: SLOTS slots of CHUNK bytes, a sequence word per slot and the reader's count of slots done.
 *
 * One all-reduce (rank r finishes half r of the vector, the peer the other half), pipelined chunk by chunk:
 *   copy chunk k of the peer's half of its input into its channel out;
 *   wait for the peer's chunk k of its own half: result = input + chunk, written both into its result and into the
 *   channel out (the reduced chunk the peer gathers), one pass;
 *   wait for the peer's reduced chunk k of the peer's half, copy it into its result.
 * One out-of-place call after the timing is checked element by element (exit status 1 when wrong).
 * Out of place it reads SEND and writes RECV; in place both are one buffer. Every byte the ring's algorithm must
 * copy, once, and nothing else: no records, no tags, no progress engine.
 *
 * Out of place and in place alternate ROUNDS times per chunk size; the fastest round of each counts, as in
 * placement_floor.c and cma_floor.c. With "-t T", for benchmarks/mpi/placed.sh: 256 KiB chunks only (JCCL's), after
 * the warm-up windows of T calls alternate out of place and in place until each has had ITERS calls, and rank 0
 * prints "#window START_NS END_NS US_PER_CALL oop|ip" per window on CLOCK_MONOTONIC (as PlacedAllReduce does), so
 * each window can be told near or far.
 *
 * Build: cc -O3 -march=native -std=c11 -Wall -Wextra -o benchmarks/target/mpi/ring_floor benchmarks/mpi/ring_floor.c
 * Usage: ring_floor [-n iters] [-w warmup] [-r rounds] [-t window] size...   (multiples of 512 KiB up to 64 MiB, K/M)
 * Output: one line per size and chunk size: the mean microseconds per all-reduce of its fastest round, out of place,
 * in place, and their ratio.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.h"

#define RANKS FLOOR_RANKS
#define SLOTS 16
#define MAX_CHUNK (256 << 10)
#define CHUNK_SIZES 3
static const size_t CHUNKS[CHUNK_SIZES] = {64 << 10, 128 << 10, 256 << 10};

typedef struct {
    _Alignas(64) _Atomic uint64_t seq[SLOTS];    /* message number + 1 of the chunk a slot holds, by the writer */
    _Alignas(64) _Atomic uint64_t done;           /* messages the reader has finished with */
    _Alignas(64) uint64_t sent;                   /* the writer's own count (its private line) */
    _Alignas(64) uint64_t taken;                  /* the reader's own count (its private line) */
    _Alignas(4096) char slot[SLOTS][MAX_CHUNK];
} Channel;

typedef struct {
    SpinBarrier barrier;
    _Atomic int ready;
    double result[CHUNK_SIZES][2];   /* [chunk][in_place], written by rank 0 */
    _Alignas(4096) Channel channel[RANKS];   /* channel[r]: written by rank r, read by its peer */
} Shared;

static float *claim(Channel *c) {
    uint64_t m = c->sent;
    while (m >= SLOTS && atomic_load_explicit(&c->done, memory_order_acquire) < m - SLOTS + 1) {
        __builtin_ia32_pause();
    }
    return (float *) c->slot[m % SLOTS];
}

static void publish(Channel *c) {
    uint64_t m = c->sent++;
    atomic_store_explicit(&c->seq[m % SLOTS], m + 1, memory_order_release);
}

static const float *await_chunk(Channel *c) {
    uint64_t m = c->taken;
    while (atomic_load_explicit(&c->seq[m % SLOTS], memory_order_acquire) != m + 1) {
        __builtin_ia32_pause();
    }
    return (const float *) c->slot[m % SLOTS];
}

static void release(Channel *c) {
    uint64_t m = ++c->taken;
    atomic_store_explicit(&c->done, m, memory_order_release);
}

static void one(Shared *sh, int rank, size_t count, size_t chunk, const float *in, float *out) {
    Channel *mine = &sh->channel[rank];
    Channel *theirs = &sh->channel[RANKS - 1 - rank];
    size_t half = count / RANKS;
    const float *in_own = in + (size_t) rank * half;
    const float *in_peer = in + (size_t) (RANKS - 1 - rank) * half;
    float *out_own = out + (size_t) rank * half;
    float *out_peer = out + (size_t) (RANKS - 1 - rank) * half;
    size_t n = chunk / sizeof(float);
    for (size_t at = 0; at < half; at += n) {
        memcpy(claim(mine), in_peer + at, n * sizeof(float));
        publish(mine);
        const float *got = await_chunk(theirs);
        float *fwd = claim(mine);
        for (size_t i = 0; i < n; i++) {
            float v = in_own[at + i] + got[i];
            out_own[at + i] = v;
            fwd[i] = v;
        }
        release(theirs);
        publish(mine);
        memcpy(out_peer + at, await_chunk(theirs), n * sizeof(float));
        release(theirs);
    }
}

/* Windows of `window` calls alternating out of place and in place, `iters` calls each, 256 KiB chunks. */
static void run_windows(Shared *sh, int rank, size_t count, float *send, float *recv, int iters, int warmup,
        int window, int *local_sense) {
    size_t chunk = CHUNKS[CHUNK_SIZES - 1];
    for (int it = 0; it < warmup; it++) {
        one(sh, rank, count, chunk, (it & 1) ? recv : send, recv);
    }
    for (int done = 0; done < iters; done += window) {
        for (int in_place = 0; in_place < 2; in_place++) {
            spin_barrier(&sh->barrier, local_sense);
            long long start = floor_now_ns();
            for (int it = 0; it < window; it++) {
                one(sh, rank, count, chunk, in_place ? recv : send, recv);
            }
            long long end = floor_now_ns();
            if (rank == 0) {
                floor_print_window(start, end, window, in_place);
            }
        }
    }
    if (rank == 0) {
        fflush(stdout);
    }
}

/* One more out-of-place call: every element must be 1 + 2 (each rank's input holds its rank + 1). */
static void check_result(Shared *sh, int rank, size_t count, const float *send, float *recv) {
    one(sh, rank, count, CHUNKS[0], send, recv);
    for (size_t i = 0; i < count; i++) {
        if (recv[i] != 3.0f) {
            fprintf(stderr, "ring_floor: rank %d element %zu is %g, not 3\n", rank, i, (double) recv[i]);
            exit(1);
        }
    }
}

static void run_rank(Shared *sh, int rank, size_t size, int iters, int warmup, int rounds, int window) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(rank, &set);
    sched_setaffinity(0, sizeof set, &set);   /* best effort: unpinned still measures */
    size_t count = size / sizeof(float);
    float *send;
    float *recv;
    if (posix_memalign((void **) &send, 4096, size) != 0 || posix_memalign((void **) &recv, 4096, size) != 0) {
        fprintf(stderr, "ring_floor: cannot allocate %zu bytes\n", size);
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        send[i] = (float) (rank + 1);
        recv[i] = 0.0f;
    }
    int local_sense = 0;
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < RANKS) {
        __builtin_ia32_pause();
    }
    if (window > 0) {
        run_windows(sh, rank, count, send, recv, iters, warmup, window, &local_sense);
        check_result(sh, rank, count, send, recv);
        free(send);
        free(recv);
        return;
    }
    for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < CHUNK_SIZES; c++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                const float *in = in_place ? recv : send;
                for (int it = 0; it < warmup; it++) {
                    one(sh, rank, count, CHUNKS[c], in, recv);
                }
                spin_barrier(&sh->barrier, &local_sense);
                double start = seconds_now();
                for (int it = 0; it < iters; it++) {
                    one(sh, rank, count, CHUNKS[c], in, recv);
                }
                double us = (seconds_now() - start) * 1e6 / iters;
                if (rank == 0 && (round == 0 || us < sh->result[c][in_place])) {
                    sh->result[c][in_place] = us;
                }
                spin_barrier(&sh->barrier, &local_sense);
            }
        }
    }
    check_result(sh, rank, count, send, recv);
    free(send);
    free(recv);
}

int main(int argc, char **argv) {
    FloorArgs f = {.program = "ring_floor", .iters = 1000, .warmup = 200, .rounds = 3, .takes_window = 1,
        .multiple = 2 * MAX_CHUNK, .max = 64 << 20, .rule = "a multiple of 512 KiB up to 64 MiB, optional K or M"};
    int printed = 0;
    size_t size;
    int read;
    for (int a = 1; (read = floor_next_size(&f, argc, argv, &a, &size)) > 0;) {
        Shared *sh = floor_shared_zeroed(sizeof *sh, "ring_floor");
        pid_t child = floor_fork("ring_floor");
        if (child == 0) {
            run_rank(sh, 1, size, f.iters, f.warmup, f.rounds, f.window);
            _exit(0);
        }
        if (f.window > 0) {
            printf("# ring_floor: %zu bytes, 256 KiB chunks, windows of %d calls alternating oop and ip, %d calls each"
                   " after %d warm-up\n", size, f.window, f.iters, f.warmup);
            fflush(stdout);
        }
        run_rank(sh, 0, size, f.iters, f.warmup, f.rounds, f.window);
        if (floor_wait_rank1(child, "ring_floor") != 0) {
            return 1;
        }
        if (f.window > 0) {
            printed = 1;
            munmap(sh, sizeof *sh);
            continue;
        }
        if (!printed) {
            printf("# ring_floor: 2 pinned processes, all-reduce of float32 by copies through shared slots, the "
                   "fastest of %d rounds of %d timed after %d warm-up\n", f.rounds, f.iters, f.warmup);
            printf("# %12s %8s %10s %10s %8s\n", "size(B)", "chunk", "oop(us)", "ip(us)", "oop/ip");
            printed = 1;
        }
        for (int c = 0; c < CHUNK_SIZES; c++) {
            printf("  %12zu %7zuK %10.1f %10.1f %8.2f\n", size, CHUNKS[c] >> 10, sh->result[c][0], sh->result[c][1],
                    sh->result[c][0] / sh->result[c][1]);
        }
        fflush(stdout);
        munmap(sh, sizeof *sh);
    }
    return floor_exit_status(read, printed, "usage: ring_floor [-n iters] [-w warmup] [-r rounds] [-t window] size...");
}
