/*
 * What the floor benchmarks share (placement_floor.c: two threads; cma_floor.c and ring_floor.c: two processes over a
 * shared mapping): a sense-reversing spin barrier for two ranks, the monotonic clock, their -n/-w/-r (and -t)
 * options and sizes, the "#window" lines placed.sh lays over the CPU placement, and the shared mapping, fork and
 * wait of the two-process ones. crc32c_check.c and syscall_cost.c take only its clock.
 */
#ifndef JCCL_BENCH_FLOOR_H
#define JCCL_BENCH_FLOOR_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"

#define FLOOR_RANKS 2

/* A barrier both ranks can reach: in one process's memory or in a shared mapping. Zeroed before first use. */
typedef struct {
    _Atomic int arrived;
    _Atomic int sense;
} SpinBarrier;

static inline void spin_barrier(SpinBarrier *b, int *local_sense) {
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

static inline double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

/* The monotonic clock in nanoseconds, as Java's System.nanoTime reads it on Linux (placed.sh joins the two). */
static inline long long floor_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One timed window of `calls` all-reduces, in the format placement-join.awk reads. */
static inline void floor_print_window(long long start_ns, long long end_ns, int calls, int in_place) {
    printf("#window %lld %lld %.3f %s\n", start_ns, end_ns, (double) (end_ns - start_ns) / 1e3 / calls,
            in_place ? "ip" : "oop");
}

/*
 * Takes "-n ITERS", "-w WARMUP" (0 allowed), "-r ROUNDS" or, where window is not NULL, "-t WINDOW" at argv[*a],
 * moving *a to its value. Returns 1 when taken, 0 when argv[*a] is none of them, -1 when the value is bad (then
 * the error is printed, naming the program).
 */
static inline int parse_floor_option(const char *program, int argc, char **argv, int *a, int *iters, int *warmup,
        int *rounds, int *window) {
    const char *arg = argv[*a];
    int is_window = window != NULL && strcmp(arg, "-t") == 0;
    if (!(strcmp(arg, "-n") == 0 || strcmp(arg, "-w") == 0 || strcmp(arg, "-r") == 0 || is_window)
            || *a + 1 >= argc) {
        return 0;
    }
    int value = parse_count(argv[*a + 1], arg[1] == 'w' ? 0 : 1);
    if (value < 0) {
        fprintf(stderr, "%s: bad %s '%s'\n", program, is_window ? "window" : "count", argv[*a + 1]);
        return -1;
    }
    *(arg[1] == 'n' ? iters : arg[1] == 'w' ? warmup : arg[1] == 't' ? window : rounds) = value;
    (*a)++;
    return 1;
}

/* Zeroed memory the next fork()'s child shares; exits with status 1, naming `program`, when it cannot be mapped. */
static inline void *floor_shared_zeroed(size_t bytes, const char *program) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "%s: mmap: ", program);
        perror(NULL);
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}

/* fork(); exits with status 1, naming `program`, when it fails. @return 0 in the child, the child's pid in the parent */
static inline pid_t floor_fork(const char *program) {
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "%s: fork: ", program);
        perror(NULL);
        exit(1);
    }
    return child;
}

/* A floor program's command line: its -n/-w/-r (and -t) values, and what a size must be. */
typedef struct {
    const char *program;
    int iters;
    int warmup;
    int rounds;
    int window;          /* -t, where takes_window */
    int takes_window;
    size_t multiple;     /* a size is a multiple of this */
    size_t max;          /* and at most this (0: no limit) */
    const char *rule;    /* what a size must be, for the error */
} FloorArgs;

/*
 * Reads argv from *a on: the options into args, up to the next size. @return 1 with that size in *size and *a past
 * it, 0 when argv is done, or -1 after printing a bad option or size (naming the program, and the rule for a size).
 */
static inline int floor_next_size(FloorArgs *args, int argc, char **argv, int *a, size_t *size) {
    for (; *a < argc; (*a)++) {
        int option = parse_floor_option(args->program, argc, argv, a, &args->iters, &args->warmup, &args->rounds,
                args->takes_window ? &args->window : NULL);
        if (option < 0) {
            return -1;
        }
        if (option > 0) {
            continue;
        }
        *size = parse_size(argv[*a]);
        if (*size == 0 || *size % args->multiple != 0 || (args->max != 0 && *size > args->max)) {
            fprintf(stderr, "%s: bad size '%s' (%s)\n", args->program, argv[*a], args->rule);
            return -1;
        }
        (*a)++;
        return 1;
    }
    return 0;
}

/* The exit status after the sizes: 2 (bad usage) with the usage line when reading them ended in an error (-1 from
   floor_next_size) or none was measured, else 0. */
static inline int floor_exit_status(int read, int measured, const char *usage) {
    if (read < 0) {
        return 2;
    }
    if (!measured) {
        fprintf(stderr, "%s\n", usage);
        return 2;
    }
    return 0;
}

/* Waits for the rank-1 child. @return 0, or 1 after printing that it failed, naming `program`. */
static inline int floor_wait_rank1(pid_t child, const char *program) {
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: rank 1 failed\n", program);
        return 1;
    }
    return 0;
}

#endif
