/*
 * allreduce_perf: MPI_Allreduce of float32 with MPI_SUM, timed and checked like nccl-tests, for comparing
 * `jccl bench collective` with an MPI library on the same machines. Build with benchmarks/mpi/build.sh; run with
 * e.g. `mpirun -np 2 --mca btl self,tcp benchmarks/target/mpi/allreduce_perf -n 20 -w 5 1M 8M 64M`.
 * `-i` times the in-place form (MPI_IN_PLACE: the result overwrites the input in recv) instead of out of place.
 * `-t W` also reports the timed loop in windows of W calls, as rank 0 saw them: after each size's line, one line
 * `#window START_NS END_NS US_PER_CALL` per window, the times on CLOCK_MONOTONIC (benchmarks/mpi/placed.sh lays them
 * over the CPU placement core_round_trip observed meanwhile).
 *
 * For each size: allocate and fill the buffers once, run the warm-up calls, then a barrier and the timed calls.
 * time(us) is the slowest rank's mean time per call (the timed loop's time reduced with MPI_MAX), algbw is
 * size / time, busbw is algbw * 2(n-1)/n, the all-reduce's nccl-tests bus factor. After the timed loop every rank
 * checks every element of its result; #wrong is the number of wrong elements over all ranks. The inputs are small
 * whole numbers, so the sums are exact in float32 whatever order the library adds them in.
 *
 * Output: '#' comment lines, then one line per size with the columns
 *   size(B) count type redop time(us) algbw(GB/s) busbw(GB/s) #wrong
 * (the same columns, in the same order, as `jccl bench collective`). Exit status 1 when any element was wrong.
 */
#include <mpi.h>

#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_SIZES 64

/* The input of element i on rank r: (r + 1) * (1 + i % 251). Sums over up to 512 ranks stay below 2^24. */
static double monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

static float input(int rank, size_t i) {
    return (float) ((rank + 1) * (int) (1 + i % 251));
}

static float expected(int ranks, size_t i) {
    return (float) (ranks * (ranks + 1) / 2 * (int) (1 + i % 251));
}

static void usage(int rank, const char *message) {
    if (rank == 0) {
        fprintf(stderr, "allreduce_perf: %s\nusage: allreduce_perf [-i] [-n iters] [-w warmup] [-t window] size... "
                "(-i: in place; -t: report windows of that many calls; sizes in bytes, multiples of 4, with an "
                "optional K, M or G suffix)\n", message);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    int ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    int iters = 20;
    int warmup = 5;
    size_t sizes[MAX_SIZES];
    int nsizes = 0;
    int in_place = 0;
    int window = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-i") == 0) {
            in_place = 1;
            continue;
        }
        if ((strcmp(argv[a], "-n") == 0 || strcmp(argv[a], "-w") == 0 || strcmp(argv[a], "-t") == 0)
                && a + 1 < argc) {
            int value = parse_count(argv[a + 1], argv[a][1] == 'w' ? 0 : 1);
            if (value < 0) {
                usage(rank, argv[a][1] == 't' ? "bad window" : "bad iteration count");
                MPI_Finalize();
                return 2;
            }
            *(argv[a][1] == 'n' ? &iters : argv[a][1] == 'w' ? &warmup : &window) = value;
            a++;
            continue;
        }
        size_t size = parse_size(argv[a]);
        if (size == 0 || size % sizeof(float) != 0 || nsizes == MAX_SIZES) {
            usage(rank, nsizes == MAX_SIZES ? "too many sizes" : "bad size");
            MPI_Finalize();
            return 2;
        }
        sizes[nsizes++] = size;
    }
    if (nsizes == 0) {
        sizes[nsizes++] = 1 << 20;
        sizes[nsizes++] = 8 << 20;
        sizes[nsizes++] = 64 << 20;
    }

    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(version, &length);
        char *newline = strchr(version, '\n');
        if (newline != NULL) {
            *newline = '\0';
        }
        printf("# allreduce_perf (MPI_Allreduce, MPI_FLOAT, MPI_SUM, %s): %d processes, %d timed iterations after "
               "%d warm-up\n", in_place ? "in place" : "out of place", ranks, iters, warmup);
        printf("# MPI library: %s\n", version);
        printf("# time: the slowest rank's mean time per call; busbw = algbw * 2(n-1)/n; every element checked\n");
        printf("#\n");
        printf("# %12s %12s %9s %6s %12s %11s %11s %8s\n", "size(B)", "count", "type", "redop", "time(us)",
               "algbw(GB/s)", "busbw(GB/s)", "#wrong");
        fflush(stdout);
    }

    /* -t: the start of every window and the end of the last, on rank 0 */
    int windows = window > 0 ? iters / window : 0;
    double *window_ns = windows > 0 ? malloc(sizeof(double) * (size_t) (windows + 1)) : NULL;
    if (windows > 0 && window_ns == NULL) {
        fprintf(stderr, "allreduce_perf: rank %d cannot allocate the window times\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    long long total_wrong = 0;
    for (int s = 0; s < nsizes; s++) {
        size_t count = sizes[s] / sizeof(float);
        float *send = NULL;
        float *recv = NULL;
        if (count > INT32_MAX || posix_memalign((void **) &send, 64, sizes[s]) != 0
                || posix_memalign((void **) &recv, 64, sizes[s]) != 0) {
            fprintf(stderr, "allreduce_perf: rank %d cannot allocate 2 x %zu bytes (at most %d elements)\n", rank,
                    sizes[s], INT32_MAX);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (size_t i = 0; i < count; i++) {
            send[i] = input(rank, i);
            recv[i] = 0.0f;
        }
        /* In place, the input is recv; each call overwrites it with the sum, so it is filled again before the
           checked call (values growing call by call cost the same: no denormals, at worst infinities). */
        const void *source = in_place ? MPI_IN_PLACE : (const void *) send;
        if (in_place) {
            memcpy(recv, send, sizes[s]);
        }
        for (int i = 0; i < warmup; i++) {
            MPI_Allreduce(source, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (windows > 0 && i % window == 0 && i / window <= windows) {
                window_ns[i / window] = monotonic_ns();
            }
            MPI_Allreduce(source, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
        if (windows > 0 && iters == windows * window) {  /* else the start of the partial window ended the last */
            window_ns[windows] = monotonic_ns();
        }
        double seconds = (MPI_Wtime() - start) / iters;
        if (in_place) {
            memcpy(recv, send, sizes[s]);
            MPI_Allreduce(MPI_IN_PLACE, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }

        long long wrong = 0;
        for (size_t i = 0; i < count; i++) {
            if (recv[i] != expected(ranks, i)) {
                wrong++;
            }
        }
        double slowest = 0;
        long long all_wrong = 0;
        MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double algbw = (double) sizes[s] / slowest / 1e9;
            double busbw = algbw * 2.0 * (ranks - 1) / ranks;
            /* three decimals below 10 us: vader's 8-byte call takes a fraction of a microsecond */
            printf("  %12zu %12zu %9s %6s %12.*f %11.3f %11.3f %8lld\n", sizes[s], count, "float32", "sum",
                   slowest * 1e6 < 10 ? 3 : 1, slowest * 1e6, algbw, busbw, all_wrong);
            for (int w = 0; w < windows; w++) {
                printf("#window %.0f %.0f %.3f\n", window_ns[w], window_ns[w + 1],
                       (window_ns[w + 1] - window_ns[w]) / 1e3 / window);
            }
            fflush(stdout);
            total_wrong += all_wrong;
        }
        free(send);
        free(recv);
    }
    if (rank == 0) {
        printf("#\n");
        if (total_wrong == 0) {
            printf("# All results exact.\n");
        } else {
            printf("# FAILED: %lld wrong elements.\n", total_wrong);
        }
    }
    MPI_Bcast(&total_wrong, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    free(window_ns);
    MPI_Finalize();
    return total_wrong == 0 ? 0 : 1;
}
