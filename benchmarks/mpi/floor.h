/*
 * What the two floor benchmarks share (placement_floor.c: two threads; cma_floor.c: two processes over a shared
 * page): a sense-reversing spin barrier for two ranks, the monotonic clock in seconds, and their -n/-w/-r options.
 */
#ifndef JCCL_BENCH_FLOOR_H
#define JCCL_BENCH_FLOOR_H

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "args.h"

#define FLOOR_RANKS 2

/* A barrier both ranks can reach: in one process's memory or in a shared mapping. Zeroed before first use. */
typedef struct {
    _Atomic int arrived;
    _Atomic int sense;
} SpinBarrier;

static void spin_barrier(SpinBarrier *b, int *local_sense) {
    *local_sense = !*local_sense;
    if (atomic_fetch_add(&b->arrived, 1) == FLOOR_RANKS - 1) {
        atomic_store(&b->arrived, 0);
        atomic_store(&b->sense, *local_sense);
    } else {
        while (atomic_load(&b->sense) != *local_sense) {
            __builtin_ia32_pause();
        }
    }
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

/*
 * Takes "-n ITERS", "-w WARMUP" (0 allowed) or "-r ROUNDS" at argv[*a], moving *a to its value.
 * Returns 1 when taken, 0 when argv[*a] is none of them, -1 when the value is bad (argv[*a + 1] names it).
 */
static int parse_floor_option(int argc, char **argv, int *a, int *iters, int *warmup, int *rounds) {
    const char *arg = argv[*a];
    if (!(strcmp(arg, "-n") == 0 || strcmp(arg, "-w") == 0 || strcmp(arg, "-r") == 0) || *a + 1 >= argc) {
        return 0;
    }
    int value = parse_count(argv[*a + 1], arg[1] == 'w' ? 0 : 1);
    if (value < 0) {
        return -1;
    }
    *(arg[1] == 'n' ? iters : arg[1] == 'w' ? warmup : rounds) = value;
    (*a)++;
    return 1;
}

#endif
