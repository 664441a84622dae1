/*
 * Command-line numbers shared by the C benchmarks here (allreduce_perf.c, placement_floor.c, cma_floor.c).
 */
#ifndef JCCL_BENCH_ARGS_H
#define JCCL_BENCH_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Parses 4096, 512K, 64M, 1G (binary multiples, an optional B after); returns 0 when it is not such a size. */
static size_t parse_size(const char *text) {
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text) {
        return 0;
    }
    int shift = 0;
    if (*end == 'K' || *end == 'k') {
        shift = 10;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        shift = 20;
        end++;
    } else if (*end == 'G' || *end == 'g') {
        shift = 30;
        end++;
    }
    if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end != '\0' || value > (SIZE_MAX >> shift)) {
        return 0;
    }
    return (size_t) value << shift;
}

/* Parses a whole number from min to 1,000,000,000; returns -1 when it is not one. */
static int parse_count(const char *text, int min) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < min || value > 1000000000L) {
        return -1;
    }
    return (int) value;
}

#endif
