/*
 * placement_floor: the least memory traffic a 2-rank all-reduce can have, out of place against in place, with no
 * library in the way. Two threads (the ranks) share their buffers and run the direct-read all-reduce: each reduces
 * its half of the vector reading both ranks' inputs where they lie, then, after a barrier, copies the other rank's
 * reduced half into its own result. No transport, no staging, no ring: every byte an all-reduce must read or write
 * once, and nothing else. Out of place it reads SEND and writes RECV (4 distinct buffers between the two ranks), in
 * place it reads and writes one buffer per rank (2 buffers): the ratio of the two times is what the host's caches
 * and memory make out of placement alone.
 *
 * A floor is the best the host gives: each thread is pinned to its own CPU (as Open MPI binds its two ranks), and
 * the two placements alternate ROUNDS times, each round timing ITERS all-reduces; the fastest round of each counts.
 *
 * With "-t T", for benchmarks/mpi/placed.sh: after the warm-up, windows of T calls alternate out of place and in
 * place until each has had ITERS calls, printed as "#window START_NS END_NS US_PER_CALL oop|ip" on CLOCK_MONOTONIC
 * (as PlacedAllReduce does), so each window can be told near or far.
 *
 * Usage: placement_floor [-n iters] [-w warmup] [-r rounds] [-t window] size...   (multiples of 64, K, M or G)
 * Output: one line per size: size(B) oop(us) ip(us) oop/ip, the mean per all-reduce of each one's fastest round.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define RANKS FLOOR_RANKS

typedef struct {
    size_t count;          /* floats per buffer */
    float *send[RANKS];
    float *recv[RANKS];
    int in_place;
    int iters;
    SpinBarrier barrier;
} Job;

typedef struct {
    Job *job;
    int rank;
} Rank;

static void *run_rank(void *arg) {
    Rank *me = arg;
    Job *job = me->job;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus >= RANKS) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(me->rank, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);   /* best effort: unpinned still measures */
    }
    size_t half = job->count / RANKS;
    size_t mine = (size_t) me->rank * half;
    size_t theirs = (size_t) (RANKS - 1 - me->rank) * half;
    int peer = RANKS - 1 - me->rank;
    int local_sense = 0;
    float *in0 = job->in_place ? job->recv[0] : job->send[0];
    float *in1 = job->in_place ? job->recv[1] : job->send[1];
    float *out = job->recv[me->rank];
    float *peer_out = job->recv[peer];
    for (int it = 0; it < job->iters; it++) {
        for (size_t i = mine; i < mine + half; i++) {
            out[i] = in0[i] + in1[i];
        }
        spin_barrier(&job->barrier, &local_sense);
        memcpy(out + theirs, peer_out + theirs, half * sizeof(float));
        spin_barrier(&job->barrier, &local_sense);
    }
    return NULL;
}

static void run(Job *job, int iters) {
    job->iters = iters;
    pthread_t threads[RANKS];
    Rank ranks[RANKS];
    for (int r = 0; r < RANKS; r++) {
        ranks[r].job = job;
        ranks[r].rank = r;
        if (pthread_create(&threads[r], NULL, run_rank, &ranks[r]) != 0) {
            fprintf(stderr, "placement_floor: cannot start a thread\n");
            exit(1);
        }
    }
    for (int r = 0; r < RANKS; r++) {
        pthread_join(threads[r], NULL);
    }
}

/* Mean microseconds per all-reduce over iters, after warmup untimed (threads started once per phase). */
static double time_placement(Job *job, int in_place, int warmup, int iters) {
    job->in_place = in_place;
    atomic_store(&job->barrier.arrived, 0);
    atomic_store(&job->barrier.sense, 0);
    run(job, warmup);
    atomic_store(&job->barrier.arrived, 0);
    atomic_store(&job->barrier.sense, 0);
    double start = seconds_now();
    run(job, iters);
    return (seconds_now() - start) * 1e6 / iters;
}

/* Windows of `window` calls alternating out of place and in place, `iters` calls each, after the warm-up. */
static void time_windows(Job *job, int warmup, int iters, int window) {
    time_placement(job, 0, warmup, 1);
    time_placement(job, 1, warmup, 1);
    for (int done = 0; done < iters; done += window) {
        for (int in_place = 0; in_place < 2; in_place++) {
            job->in_place = in_place;
            atomic_store(&job->barrier.arrived, 0);
            atomic_store(&job->barrier.sense, 0);
            long long start = floor_now_ns();
            run(job, window);
            floor_print_window(start, floor_now_ns(), window, in_place);
        }
    }
    fflush(stdout);
}

int main(int argc, char **argv) {
    FloorArgs f = {.program = "placement_floor", .iters = 200, .warmup = 50, .rounds = 5, .takes_window = 1,
        .multiple = 64, .rule = "a multiple of 64 bytes, optional K, M or G"};
    int printed = 0;
    size_t size;
    int read;
    for (int a = 1; (read = floor_next_size(&f, argc, argv, &a, &size)) > 0;) {
        Job job;
        memset(&job, 0, sizeof job);
        job.count = size / sizeof(float);
        for (int r = 0; r < RANKS; r++) {
            if (posix_memalign((void **) &job.send[r], 4096, size) != 0
                    || posix_memalign((void **) &job.recv[r], 4096, size) != 0) {
                fprintf(stderr, "placement_floor: cannot allocate %zu bytes\n", size);
                return 1;
            }
            for (size_t i = 0; i < job.count; i++) {
                job.send[r][i] = (float) (r + 1);
                job.recv[r][i] = 0.0f;
            }
        }
        if (f.window > 0) {
            printf("# placement_floor: %zu bytes, windows of %d calls alternating oop and ip, %d calls each after %d"
                   " warm-up\n", size, f.window, f.iters, f.warmup);
            time_windows(&job, f.warmup, f.iters, f.window);
            for (int r = 0; r < RANKS; r++) {
                free(job.send[r]);
                free(job.recv[r]);
            }
            printed = 1;
            continue;
        }
        if (!printed) {
            printf("# placement_floor: 2 pinned threads, direct-read all-reduce of float32, the fastest of %d rounds "
                   "of %d timed after %d warm-up\n", f.rounds, f.iters, f.warmup);
            printf("# %12s %10s %10s %8s\n", "size(B)", "oop(us)", "ip(us)", "oop/ip");
            printed = 1;
        }
        double oop = 0;
        double ip = 0;
        for (int round = 0; round < f.rounds; round++) {
            double o = time_placement(&job, 0, f.warmup, f.iters);
            double i = time_placement(&job, 1, f.warmup, f.iters);
            oop = round == 0 || o < oop ? o : oop;
            ip = round == 0 || i < ip ? i : ip;
        }
        printf("  %12zu %10.1f %10.1f %8.2f\n", size, oop, ip, oop / ip);
        fflush(stdout);
        for (int r = 0; r < RANKS; r++) {
            free(job.send[r]);
            free(job.recv[r]);
        }
    }
    return floor_exit_status(read, printed,
            "usage: placement_floor [-n iters] [-w warmup] [-r rounds] [-t window] size...");
}
