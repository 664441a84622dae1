/*
 * crc32c_check: checks crc32c.h against the bit-at-a-time definition (crc32c_reference), each path on its own and
 * crc32c_update, which picks: the three-stream crc32 path always; where this CPU has AVX-512 VPCLMULQDQ the folding
 * path as crc32c_update takes it, folding alone (no crc32 streams) and folding with as many rounds of crc32 streams
 * as the length allows and with a random number of them. Then it prints what each path computes per second.
 * benchmarks/mpi/prepare.sh compiles and runs it (-q) before it builds the floor that checksums.
 *   the check value: "123456789" -> 0xE3069283; the crc32 streams' shifts against crc32c_x_to_the;
 *   every length 0..2048 from a random (unaligned) offset into random data;
 *   lengths around each path's thresholds (256: folding; its 256- and 64-byte steps; 640: the first round of crc32
 *   streams; 2 KiB: CRC32C_STREAMS_MIN; 3 KiB: three streams), at random offsets and 64-byte aligned;
 *   64 KiB, 1 MiB and 4 MiB;
 *   split updates: the CRC of a continued over b is the CRC of ab, at random split points of random lengths.
 * Build: cc -O3 -march=native -std=c11 -Wall -Wextra -Werror -o crc32c_check benchmarks/mpi/crc32c_check.c
 *        (without -march=native: add -msse4.2; the folding path is picked at run time)
 * Usage: crc32c_check [-q] [-x]   -q: checks only, no timing (about 0.6 s); -x: also the time per call of each path
 *        from 64 bytes to 8 KiB (where folding and the crc32 streams start to pay: CRC32C_FOLD_MIN,
 *        CRC32C_STREAMS_MIN; 0.05 s each).
 * Output: one line per check group, then "crc32c PATH SIZE B: X GB/s" per path at 4 KiB, 64 KiB and 1 MiB (0.5 s
 * each; calls independent, as in a loop over CRC32C.update(ByteBuffer) in Java).
 * Exit status 1 (with the path, length and offset on standard error) on any mismatch, 2 for a bad argument.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "floor.h"

#define BIG (4u << 20)

static const struct crc32c_folding *folding;
static unsigned char *data;
static uint64_t random_state = 0x9E3779B97F4A7C15u;
static long checks;

static uint64_t next_random(void) {
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return random_state;
}

static void fail(const char *what, size_t offset, size_t bytes, uint32_t got, uint32_t expected) {
    fprintf(stderr, "crc32c_check: FAILED: %s of %zu bytes at offset %zu gives 0x%08X, the definition 0x%08X\n",
            what, bytes, offset, got, expected);
    exit(1);
}

/* Every path over data[offset, offset + bytes) against `expected` (the definition's CRC of those bytes). */
static void check_against(size_t offset, size_t bytes, uint32_t expected) {
    const unsigned char *p = data + offset;
    uint32_t got = crc32c_update(0, p, bytes);
    if (got != expected) {
        fail("crc32c_update", offset, bytes, got, expected);
    }
    got = crc32c_three_streams(0, p, bytes);
    if (got != expected) {
        fail("the three-stream path", offset, bytes, got, expected);
    }
    if (folding != NULL && bytes >= 256) {
        got = crc32c_folded(0, p, bytes, folding);
        if (got != expected) {
            fail("the folding path", offset, bytes, got, expected);
        }
        size_t most = (bytes - 256) / 384;   /* folding alone, with all the crc32 streams it can take, with some */
        size_t rounds[3] = {0, most, most == 0 ? 0 : 1 + (size_t) (next_random() % most)};
        for (int r = 0; r < 3; r++) {
            got = crc32c_fold_and_streams(0, p, bytes, folding, rounds[r]);
            if (got != expected) {
                char what[96];
                snprintf(what, sizeof what, "the folding path with %zu rounds of crc32 streams", rounds[r]);
                fail(what, offset, bytes, got, expected);
            }
        }
    }
    checks++;
}

static void check(size_t offset, size_t bytes) {
    check_against(offset, bytes, crc32c_reference(data + offset, bytes));
}

/* crc32c_update over a, continued over b (and each path the same way), against the definition over ab. */
static void check_split(size_t offset, size_t bytes, size_t split) {
    const unsigned char *p = data + offset;
    uint32_t expected = crc32c_reference(p, bytes);
    uint32_t got = crc32c_update(crc32c_update(0, p, split), p + split, bytes - split);
    char what[96];
    snprintf(what, sizeof what, "crc32c_update split at %zu", split);
    if (got != expected) {
        fail(what, offset, bytes, got, expected);
    }
    got = crc32c_three_streams(crc32c_three_streams(0, p, split), p + split, bytes - split);
    if (got != expected) {
        snprintf(what, sizeof what, "the three-stream path split at %zu", split);
        fail(what, offset, bytes, got, expected);
    }
    if (folding != NULL && split >= 256 && bytes - split >= 256) {
        got = crc32c_folded(crc32c_folded(0, p, split, folding), p + split, bytes - split, folding);
        if (got != expected) {
            snprintf(what, sizeof what, "the folding path split at %zu", split);
            fail(what, offset, bytes, got, expected);
        }
    }
    checks++;
}

static size_t random_offset(size_t bytes) {
    return (size_t) (next_random() % (BIG + 64 - bytes));
}

enum path { THREE_STREAMS, FOLDING_ALONE, FOLDING_AND_STREAMS, FOLDING };

/* Bytes per nanosecond of a path over `bytes` bytes for about `budget` seconds; calls independent, as the JDK's.
 * FOLDING is crc32c_folded (what crc32c_update takes), FOLDING_AND_STREAMS folding with all the streams it can. */
static double throughput(enum path path, size_t bytes, double budget) {
    const unsigned char *p = data + 64;
    uint32_t sink = 0;
    size_t calls = 0;
    double start = seconds_now();
    double now;
    do {
        for (int k = 0; k < 64; k++) {
            __asm__ volatile("" : : "r"(p) : "memory");   /* the data may have changed: no call is hoisted */
            switch (path) {
                case THREE_STREAMS: sink += crc32c_three_streams(0, p, bytes); break;
                case FOLDING_ALONE: sink += crc32c_fold_and_streams(0, p, bytes, folding, 0); break;
                case FOLDING_AND_STREAMS:
                    sink += crc32c_fold_and_streams(0, p, bytes, folding, (bytes - 256) / 384);
                    break;
                case FOLDING: sink += crc32c_folded(0, p, bytes, folding); break;
            }
        }
        calls += 64;
        now = seconds_now();
    } while (now - start < budget);
    __asm__ volatile("" : : "r"(sink));
    return (double) calls * (double) bytes / ((now - start) * 1e9);
}

int main(int argc, char **argv) {
    int quiet = 0;
    int crossover = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-q") == 0) {
            quiet = 1;
        } else if (strcmp(argv[a], "-x") == 0) {
            crossover = 1;
        } else {
            fprintf(stderr, "usage: crc32c_check [-q] [-x]\n");
            return 2;
        }
    }
    folding = crc32c_folding();
    data = aligned_alloc(64, BIG + 64);
    if (data == NULL) {
        fprintf(stderr, "crc32c_check: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < BIG + 64; i++) {
        data[i] = (unsigned char) (next_random() >> 56);
    }
    printf("crc32c_check: folding path (AVX-512 VPCLMULQDQ) %s, from %d bytes on (crc32 streams beside from %d)\n",
            folding != NULL ? "available" : "NOT available on this CPU: only the three streams checked",
            CRC32C_FOLD_MIN, CRC32C_STREAMS_MIN);

    static const char digits[] = "123456789";
    memcpy(data + 1, digits, 9);
    check_against(1, 9, 0xE3069283u);
    for (size_t i = 1; i < 10; i++) {
        data[i] = (unsigned char) (next_random() >> 56);
    }
    if (crc32c_reference(digits, 9) != 0xE3069283u) {
        fprintf(stderr, "crc32c_check: FAILED: the definition of \"123456789\" is not 0xE3069283\n");
        return 1;
    }
    printf("  \"123456789\" -> 0xE3069283: ok\n");

    if (folding != NULL) {
        for (int i = 0; i < 56; i++) {
            uint32_t expected = crc32c_x_to_the(((uint64_t) 256 << i) - 33);
            if (folding->rounds[i] != expected) {
                fprintf(stderr, "crc32c_check: FAILED: the streams' shift %d is 0x%08X, x^(256 * 2^%d - 33) mod P "
                        "0x%08X\n", i, folding->rounds[i], i, expected);
                return 1;
            }
        }
        printf("  the crc32 streams' shifts against x^n mod P: ok\n");
    }

    for (size_t n = 0; n <= 2048; n++) {
        check(random_offset(n), n);
    }
    printf("  every length 0..2048 from random offsets: ok\n");

    static const size_t thresholds[] = {256, 320, 384, 448, 512, 576, 640, 768, 1024, 1024 + 384, 2048, 3072,
            3 * 1024 + 24, 4096, 8192};
    for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
        for (size_t n = thresholds[t] - 17; n <= thresholds[t] + 80; n++) {
            for (int r = 0; r < 3; r++) {
                check(random_offset(n), n);
            }
            check(0, n);   /* aligned to 64 */
        }
    }
    for (size_t n = 256; n <= 16384; n += 64) {   /* every count of 256-byte steps with every 64-byte tail */
        check(random_offset(n), n);
        check(random_offset(n + 1), n + 1);
        check(random_offset(n + 63), n + 63);
    }
    printf("  lengths around the thresholds (256-byte and 64-byte steps, 3 KiB): ok\n");

    static const size_t large[] = {64u << 10, 1u << 20, 4u << 20};
    for (size_t t = 0; t < sizeof large / sizeof large[0]; t++) {
        size_t n = large[t];
        check(0, n);
        check(n == BIG ? 64 : random_offset(n), n);   /* 4 MiB: the largest offset the buffer allows */
        check(n == BIG ? 1 : random_offset(n - 7), n - 7);
    }
    printf("  64 KiB, 1 MiB and 4 MiB: ok\n");

    for (int r = 0; r < 3000; r++) {
        size_t n = (size_t) (next_random() % (r < 2000 ? 4096 : 70000));
        size_t split = n == 0 ? 0 : (size_t) (next_random() % (n + 1));
        check_split(random_offset(n), n, split);
    }
    for (int r = 0; r < 4; r++) {
        size_t n = 1u << 20;
        check_split(random_offset(n), n, (size_t) (next_random() % (n + 1)));
    }
    printf("  split updates at random points (5004 of them, up to 1 MiB): ok\n");
    printf("crc32c_check: all %ld checks passed\n", checks);

    if (crossover) {
        printf("time per call, ns (three streams | folding alone | folding and crc32 streams):\n");
        for (size_t n = 64; n <= 8192; n = n < 1024 ? n + 64 : n < 2048 ? n + 128 : n * 2) {
            printf("  %5zu B: %7.1f", n, n / throughput(THREE_STREAMS, n, 0.05));
            if (folding != NULL && n >= 256) {
                printf(" | %7.1f", n / throughput(FOLDING_ALONE, n, 0.05));
            }
            if (folding != NULL && n >= 640) {
                printf(" | %7.1f", n / throughput(FOLDING_AND_STREAMS, n, 0.05));
            }
            printf("\n");
        }
    }
    if (!quiet) {
        static const size_t sizes[] = {4096, 64u << 10, 1u << 20};
        for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
            if (folding != NULL) {
                printf("crc32c folding (crc32c_update) %7zu B: %5.1f GB/s\n", sizes[t],
                        throughput(FOLDING, sizes[t], 0.5));
                printf("crc32c folding alone           %7zu B: %5.1f GB/s\n", sizes[t],
                        throughput(FOLDING_ALONE, sizes[t], 0.5));
            }
            printf("crc32c three streams           %7zu B: %5.1f GB/s\n", sizes[t],
                    throughput(THREE_STREAMS, sizes[t], 0.5));
        }
    }
    free(data);
    return 0;
}
