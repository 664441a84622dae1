/*
 * cma_floor: what a 2-rank all-reduce between two processes costs when each reads the other's memory with Linux
 * cross-memory attach (process_vm_readv), with no library in the way. Two forked processes (the ranks), each pinned
 * to its own CPU, each with its own private buffers, exchange their buffer addresses through a shared page and run:
 *
 *   direct P  each reduces its half of the vector: the peer's input half read in pieces of P bytes into a bounce
 *             buffer, folded with its own input into its result; barrier; the peer's reduced half read straight
 *             into its own result; barrier. Every byte crosses once, half of them just written by the peer (the
 *             split of the in-JVM direct all-reduce, done across processes).
 *   whole     each reads the peer's whole input into a scratch buffer with one call and reduces the whole vector
 *             itself; barrier.
 *   rd P      each reads the peer's whole input in pieces of P bytes through the bounce buffer, folding each into
 *             its result at once (JCCL's single-copy recursive doubling); in place a piece is overwritten only once
 *             the peer has read it.
 *
 * Out of place and in place alternate with the variants, ROUNDS times; the fastest round of each counts, as in
 * placement_floor.c (which gives the same for two threads sharing memory: the floor without the system call). The
 * in-place "whole" row is timing only: its ranks overwrite what the peer may still be reading.
 *
 * Build: cc -O3 -march=native -std=c11 -Wall -Wextra -o benchmarks/target/mpi/cma_floor benchmarks/mpi/cma_floor.c
 * Usage: cma_floor [-n iters] [-w warmup] [-r rounds] size...   (sizes: multiples of 256, optional K, M or G)
 * Output: one line per size and variant: the mean microseconds per all-reduce of its fastest round.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define RANKS FLOOR_RANKS
#define VARIANTS 7
static const size_t PIECES[] = {16 << 10, 64 << 10, 256 << 10, 0, 64 << 10, 128 << 10, 256 << 10};
static const char *NAMES[VARIANTS] = {"direct 16K", "direct 64K", "direct 256K", "whole", "rd 64K", "rd 128K",
        "rd 256K"};
#define WHOLE 3

typedef struct {
    SpinBarrier barrier;
    pid_t pid[RANKS];
    uintptr_t send[RANKS];
    uintptr_t recv[RANKS];
    _Atomic int ready;
    _Atomic long pieces_read[RANKS];   /* rd in place: pieces of the peer's input a rank has read, ever */
    double result[2][VARIANTS];   /* [in_place][variant], written by rank 0 */
} Shared;

static void read_peer(pid_t pid, void *local, uintptr_t remote, size_t bytes) {
    while (bytes > 0) {
        struct iovec l = {local, bytes};
        struct iovec r = {(void *) remote, bytes};
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            perror("cma_floor: process_vm_readv");
            exit(1);
        }
        local = (char *) local + n;
        remote += (uintptr_t) n;
        bytes -= (size_t) n;
    }
}

static void one(Shared *sh, int rank, int variant, int in_place, size_t count, float *send, float *recv,
        float *scratch, int *local_sense) {
    int peer = RANKS - 1 - rank;
    pid_t pid = sh->pid[peer];
    float *in = in_place ? recv : send;
    uintptr_t peer_in = in_place ? sh->recv[peer] : sh->send[peer];
    if (variant > WHOLE) {
        /* rd P: the peer's whole input in pieces through an L2-sized bounce buffer, each folded into the result at
         * once; in place a piece is overwritten only once the peer has read it. */
        size_t piece = PIECES[variant] / sizeof(float);
        for (size_t at = 0; at < count; at += piece) {
            size_t n = count - at < piece ? count - at : piece;
            read_peer(pid, scratch, peer_in + at * sizeof(float), n * sizeof(float));
            long done = atomic_fetch_add(&sh->pieces_read[rank], 1) + 1;
            if (in_place) {
                while (atomic_load(&sh->pieces_read[peer]) < done) {
                    __builtin_ia32_pause();
                }
            }
            for (size_t i = 0; i < n; i++) {
                recv[at + i] = in[at + i] + scratch[i];
            }
        }
        spin_barrier(&sh->barrier, local_sense);
        return;
    }
    if (variant == WHOLE) {
        read_peer(pid, scratch, peer_in, count * sizeof(float));
        for (size_t i = 0; i < count; i++) {
            recv[i] = in[i] + scratch[i];
        }
        spin_barrier(&sh->barrier, local_sense);
        return;
    }
    size_t half = count / RANKS;
    size_t mine = (size_t) rank * half;
    size_t theirs = (size_t) peer * half;
    size_t piece = PIECES[variant] / sizeof(float);
    for (size_t at = mine; at < mine + half; at += piece) {
        size_t n = mine + half - at < piece ? mine + half - at : piece;
        read_peer(pid, scratch, peer_in + at * sizeof(float), n * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            recv[at + i] = in[at + i] + scratch[i];
        }
    }
    spin_barrier(&sh->barrier, local_sense);
    read_peer(pid, recv + theirs, sh->recv[peer] + theirs * sizeof(float), half * sizeof(float));
    spin_barrier(&sh->barrier, local_sense);
}

static void run_rank(Shared *sh, int rank, size_t size, int iters, int warmup, int rounds) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(rank, &set);
    sched_setaffinity(0, sizeof set, &set);   /* best effort: unpinned still measures */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
    size_t count = size / sizeof(float);
    float *send;
    float *recv;
    float *scratch;
    if (posix_memalign((void **) &send, 4096, size) != 0 || posix_memalign((void **) &recv, 4096, size) != 0
            || posix_memalign((void **) &scratch, 4096, size) != 0) {
        fprintf(stderr, "cma_floor: cannot allocate %zu bytes\n", size);
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        send[i] = (float) (rank + 1);
        recv[i] = 0.0f;
        scratch[i] = 0.0f;
    }
    sh->pid[rank] = getpid();
    sh->send[rank] = (uintptr_t) send;
    sh->recv[rank] = (uintptr_t) recv;
    int local_sense = 0;
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < RANKS) {
        __builtin_ia32_pause();
    }
    for (int round = 0; round < rounds; round++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int v = 0; v < VARIANTS; v++) {
                for (int it = 0; it < warmup; it++) {
                    one(sh, rank, v, in_place, count, send, recv, scratch, &local_sense);
                }
                spin_barrier(&sh->barrier, &local_sense);
                double start = seconds_now();
                for (int it = 0; it < iters; it++) {
                    one(sh, rank, v, in_place, count, send, recv, scratch, &local_sense);
                }
                double us = (seconds_now() - start) * 1e6 / iters;
                if (rank == 0 && (round == 0 || us < sh->result[in_place][v])) {
                    sh->result[in_place][v] = us;
                }
                spin_barrier(&sh->barrier, &local_sense);
            }
        }
    }
}

int main(int argc, char **argv) {
    FloorArgs f = {.program = "cma_floor", .iters = 1000, .warmup = 200, .rounds = 3, .multiple = 256,
        .rule = "a multiple of 256 bytes, optional K, M or G"};
    int printed = 0;
    size_t size;
    int read;
    for (int a = 1; (read = floor_next_size(&f, argc, argv, &a, &size)) > 0;) {
        Shared *sh = floor_shared_zeroed(sizeof *sh, "cma_floor");
        pid_t child = floor_fork("cma_floor");
        if (child == 0) {
            run_rank(sh, 1, size, f.iters, f.warmup, f.rounds);
            _exit(0);
        }
        run_rank(sh, 0, size, f.iters, f.warmup, f.rounds);
        if (floor_wait_rank1(child, "cma_floor") != 0) {
            return 1;
        }
        if (!printed) {
            printf("# cma_floor: 2 pinned processes, all-reduce of float32 over process_vm_readv, the fastest of %d "
                   "rounds of %d timed after %d warm-up\n", f.rounds, f.iters, f.warmup);
            printf("# %12s %-12s %10s %10s\n", "size(B)", "variant", "oop(us)", "ip(us)");
            printed = 1;
        }
        for (int v = 0; v < VARIANTS; v++) {
            printf("  %12zu %-12s %10.1f %10.1f\n", size, NAMES[v], sh->result[0][v], sh->result[1][v]);
        }
        fflush(stdout);
        munmap(sh, sizeof *sh);
    }
    return floor_exit_status(read, printed, "usage: cma_floor [-n iters] [-w warmup] [-r rounds] size...");
}
