/*
 * CRC32C (Castagnoli, the checksum MetaRoCE's packets carry) for the C floors, at least as fast as JCCL's Java side
 * computes it (java.util.zip.CRC32C, a JDK intrinsic): a floor that checksummed slower than JCCL would not be a
 * floor. crc32c_update(crc, data, bytes) continues a finished CRC32C (start with 0) and picks at run time:
 *   where the CPU has AVX-512 F, VL, BW and VPCLMULQDQ (crc32c_folding), from CRC32C_FOLD_MIN = 256 bytes on:
 *     folding by carry-less multiplication, four 512-bit accumulators 256 bytes at a time, reduced to 128 bits and
 *     through two crc32 instructions (crc32c_fold_and_streams; the method of Intel's "Fast CRC Computation for
 *     Generic Polynomials Using PCLMULQDQ", derived before struct crc32c_folding), and from CRC32C_STREAMS_MIN =
 *     2 KiB on, beside the folding, the crc32 instruction on four streams over the last third of the bytes (the
 *     carry-less multiplies keep their port busy and leave the crc32 unit idle; the registers are joined by
 *     multiplication modulo the polynomial);
 *   otherwise, and below 256 bytes: the SSE4.2 crc32 instruction, one stream, or from 3 KiB on three interleaved
 *     streams joined by multiplication (crc32c_three_streams; one stream waits on the instruction's 3-cycle latency).
 * Every folding constant is computed from the polynomial at first use (x^n mod P: crc32c_x_to_the), none is written
 * out. benchmarks/mpi/crc32c_check.c checks every path against the bit-at-a-time definition (crc32c_reference);
 * prepare.sh runs it before it builds the floor that checksums.
 * Measured here (AMD EPYC, Zen 4, 2 vCPUs; GB/s at 4 KiB / 64 KiB / 1 MiB, each call independent; crc32c_check, and
 * for the JDK a loop over CRC32C.update(ByteBuffer) of a direct buffer, Temurin 25, after warm-up):
 *   crc32c_update: folding and crc32 streams          72 / 84 / 84
 *   JDK 25 intrinsic                                   54 / 56 / 56
 *   folding alone                                      57 / 58 / 57
 *   three crc32 streams (this header's method before)  21 / 28 / 29   (half the JDK's rate)
 * and per call (crc32c_check -x) folding alone takes 5.4 ns at 256 bytes, where the crc32 instruction takes 10.9, and
 * the crc32 streams beside it start to pay between 1.7 and 2 KiB (33.5 against 35.7 ns at 2 KiB): the thresholds.
 * Needs -msse4.2 (or -march=native on a CPU that has it); the folding path carries its own target attribute, so it
 * is compiled (and picked where the CPU has it) without -march=native too.
 */
#ifndef JCCL_BENCH_CRC32C_H
#define JCCL_BENCH_CRC32C_H

#include <immintrin.h>
#include <nmmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u   /* reflected */

/* Buffers from this many bytes on are folded with VPCLMULQDQ where the CPU has it, and from CRC32C_STREAMS_MIN on
 * with crc32 streams beside (where each pays: crc32c_check -x). */
#define CRC32C_FOLD_MIN 256
#define CRC32C_STREAMS_MIN 2048

/* a * b modulo the polynomial, both as reflected polynomials (x^0 is the top bit). */
static inline uint32_t crc32c_multiply(uint32_t a, uint32_t b) {
    uint32_t m = 1u << 31;
    uint32_t product = 0;
    for (;;) {
        if (a & m) {
            product ^= b;
            if ((a & (m - 1)) == 0) {
                break;
            }
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ CRC32C_POLY : b >> 1;
    }
    return product;
}

/* x^n modulo the polynomial, reflected as crc32c_multiply has it (square and multiply). */
static inline uint32_t crc32c_x_to_the(uint64_t n) {
    uint32_t result = 1u << 31;    /* x^0 */
    uint32_t power = 1u << 30;     /* x^1 */
    for (; n != 0; n >>= 1) {
        if (n & 1) {
            result = crc32c_multiply(power, result);
        }
        power = crc32c_multiply(power, power);
    }
    return result;
}

/* x^(8 * bytes) modulo the polynomial: what a CRC is multiplied by when `bytes` more bytes follow its data. */
static inline uint32_t crc32c_shift_of(size_t bytes) {
    return crc32c_x_to_the((uint64_t) bytes * 8);
}

/* The raw register after `bytes` bytes from `crc` (no pre- or post-inversion), one stream. */
static inline uint32_t crc32c_raw(uint32_t crc, const unsigned char *p, size_t bytes) {
    uint64_t c = crc;
    for (; bytes >= 8; bytes -= 8, p += 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
    }
    uint32_t c32 = (uint32_t) c;
    for (; bytes > 0; bytes--, p++) {
        c32 = _mm_crc32_u8(c32, *p);
    }
    return c32;
}

/* Continues a finished CRC32C over `bytes` more bytes (start with 0) with the crc32 instruction alone, three streams
 * where it pays: the path of CPUs without VPCLMULQDQ (crc32c_update picks). */
static inline uint32_t crc32c_three_streams(uint32_t crc, const void *data, size_t bytes) {
    const unsigned char *p = data;
    uint32_t c = ~crc;
    if (bytes >= 3 * 1024) {
        size_t third = bytes / 3 / 8 * 8;
        uint64_t a = c;
        uint64_t b = 0;
        uint64_t d = 0;
        const unsigned char *pb = p + third;
        const unsigned char *pd = p + 2 * third;
        for (size_t i = 0; i < third; i += 8) {
            uint64_t wa;
            uint64_t wb;
            uint64_t wd;
            memcpy(&wa, p + i, 8);
            memcpy(&wb, pb + i, 8);
            memcpy(&wd, pd + i, 8);
            a = _mm_crc32_u64(a, wa);
            b = _mm_crc32_u64(b, wb);
            d = _mm_crc32_u64(d, wd);
        }
        /* The registers are linear in their data: a's part moves past b's and d's bytes, b's past d's. */
        static size_t cached_third;
        static uint32_t cached_shift;
        if (third != cached_third) {
            cached_shift = crc32c_shift_of(third);
            cached_third = third;
        }
        uint32_t shift = cached_shift;
        c = crc32c_multiply(shift, crc32c_multiply(shift, (uint32_t) a) ^ (uint32_t) b) ^ (uint32_t) d;
        p += 3 * third;
        bytes -= 3 * third;
    }
    return ~crc32c_raw(c, p, bytes);
}

/*
 * Folding (the method of Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", reflected). The
 * CRC register after a message M of m bits, from register C, is (C x^m + M x^32) mod P; so C XORed into the message's
 * first 32 bits and the register started at 0 give the same CRC, and any stretch of the message can be replaced by
 * a shorter polynomial congruent to it modulo P once it is moved to where it ends. A 128-bit lane of data, loaded
 * little-endian, holds bit i as the coefficient of x^(127-i) (the first byte's lowest bit is the highest power): its
 * low quadword is H (times x^64), its high quadword L, both 64-bit reflected polynomials. Moved D bits further,
 *     (H x^64 + L) x^D  =  H x^(64+D) + L x^D  ≡  H (x^(64+D) mod P) + L (x^D mod P)        (mod P),
 * each product under 96 bits, so it fits the 128-bit lane D bits on and is XORed into the data there. A carry-less
 * multiply of two 64-bit reflected operands gives its 127 bits one place low in a 128-bit reflected result (a times
 * b times x), and a 32-bit reflected remainder r in a quadword's low half is r x^32 as a 64-bit reflected operand;
 * so the constants are r = x^(D+31) mod P against H (quadword 0) and r = x^(D-33) mod P against L (quadword 1).
 * crc32c_folding computes them from the polynomial at first use, for D = 2048 (the main loop: four 512-bit
 * accumulators, 256 bytes on), 1536, 1024, 512 (the four into one, and one accumulator 64 bytes on), 384, 256 and
 * 128 (a 512-bit accumulator's four lanes into its last). The 128 bits left are the message's last 16 bytes with the
 * register at 0: two crc32 instructions reduce them to the register (M x^32 mod P, no Barrett step needed), and
 * the crc32 instruction goes on over the bytes that did not fill 64.
 */
struct crc32c_folding {
    uint64_t by2048[2];
    uint64_t by1536[2];
    uint64_t by1024[2];
    uint64_t by512[2];
    uint64_t lanes[8];     /* lane 0 by 384, lane 1 by 256, lane 2 by 128, lane 3 kept (0: its products vanish) */
    uint32_t rounds[56];   /* x^(256 * 2^i - 33) mod P: the crc32 streams' shifts (crc32c_fold_and_streams) */
};

static inline void crc32c_fold_constants(uint64_t k[2], unsigned bits) {
    k[0] = crc32c_x_to_the(bits + 31);
    k[1] = crc32c_x_to_the(bits - 33);
}

/* The folding constants, or NULL where this CPU cannot fold with 512-bit VPCLMULQDQ (then crc32c_update uses the
 * three streams; so it does, in other threads, while the first to call computes them). */
static inline const struct crc32c_folding *crc32c_folding(void) {
    static struct crc32c_folding folding;
    static int state;   /* 0: nobody has looked, 1: one thread computes, 2: the CPU cannot fold, 3: ready */
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (s == 3) {
        return &folding;
    }
    if (s != 0 || !__atomic_compare_exchange_n(&state, &s, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return NULL;
    }
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")
            || !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("vpclmulqdq")
            || !__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.2")) {
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
        return NULL;
    }
    crc32c_fold_constants(folding.by2048, 2048);
    crc32c_fold_constants(folding.by1536, 1536);
    crc32c_fold_constants(folding.by1024, 1024);
    crc32c_fold_constants(folding.by512, 512);
    crc32c_fold_constants(folding.lanes, 384);
    crc32c_fold_constants(folding.lanes + 2, 256);
    crc32c_fold_constants(folding.lanes + 4, 128);
    /* x^(2n - 33) = x^(n - 33) x^(n - 33) x^33; crc32c_check compares each with crc32c_x_to_the */
    uint32_t x33 = crc32c_x_to_the(33);
    folding.rounds[0] = crc32c_x_to_the(256 - 33);
    for (int i = 1; i < 56; i++) {
        folding.rounds[i] = crc32c_multiply(crc32c_multiply(folding.rounds[i - 1], folding.rounds[i - 1]), x33);
    }
    __atomic_store_n(&state, 3, __ATOMIC_RELEASE);
    return &folding;
}

/* The folding path's instructions (sse4.2 and pclmul besides the AVX-512 ones, for a build without -march=native). */
#define CRC32C_FOLDING_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,vpclmulqdq,pclmul,sse4.2")))

/* x moved on by the distance of k, XORed into data. */
CRC32C_FOLDING_TARGET static inline __m512i crc32c_fold(__m512i x, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11),
            data, 0x96);
}

CRC32C_FOLDING_TARGET static inline __m512i crc32c_broadcast(const uint64_t k[2]) {
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) k));
}

/* a b x^33 mod P: a and b in a quadword's low half are a x^32 and b x^32, their carry-less product is a b x^65 in
 * 128 reflected bits, all in the low quadword, which as a message of 8 bytes is a b x; crc32 from 0 multiplies by
 * x^32 and reduces. So a x^n = crc32c_multiply_x33(a, x^(n - 33) mod P), and numbers of the form x^(n - 33)
 * multiply to x^(n + m - 33). */
CRC32C_FOLDING_TARGET static inline uint32_t crc32c_multiply_x33(uint32_t a, uint32_t b) {
    __m128i product = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int) a), _mm_cvtsi32_si128((int) b), 0x00);
    return (uint32_t) _mm_crc32_u64(0, (uint64_t) _mm_cvtsi128_si64(product));
}

/*
 * Continues a finished CRC32C over `bytes` more bytes, at least 256, by folding; `folding` from crc32c_folding.
 * With `rounds` (at most (bytes - 256) / 384) the crc32 instruction runs beside the carry-less multiplies (which
 * alone keep one port busy and leave the crc32 unit idle): the last 128 * rounds bytes are four crc32 streams of
 * 32 * rounds bytes, 32 bytes of each per 256 bytes folded, and the register after the folded bytes and the
 * streams' registers are joined by multiplication, a register followed by n bytes times x^(8n).
 */
CRC32C_FOLDING_TARGET static uint32_t crc32c_fold_and_streams(uint32_t crc, const void *data, size_t bytes,
        const struct crc32c_folding *folding, size_t rounds) {
    const unsigned char *p = data;
    const size_t stream = 32 * rounds;
    size_t folded = bytes - 4 * stream;
    const unsigned char *q = p + folded;
    uint64_t s0 = 0;
    uint64_t s1 = 0;
    uint64_t s2 = 0;
    uint64_t s3 = 0;
    __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_maskz_set1_epi32(1, (int) ~crc));
    __m512i x1 = _mm512_loadu_si512(p + 64);
    __m512i x2 = _mm512_loadu_si512(p + 128);
    __m512i x3 = _mm512_loadu_si512(p + 192);
    p += 256;
    folded -= 256;
    const __m512i by2048 = crc32c_broadcast(folding->by2048);
    for (size_t i = 0; i < rounds; i++, p += 256, q += 32) {
        x0 = crc32c_fold(x0, by2048, _mm512_loadu_si512(p));
        x1 = crc32c_fold(x1, by2048, _mm512_loadu_si512(p + 64));
        x2 = crc32c_fold(x2, by2048, _mm512_loadu_si512(p + 128));
        x3 = crc32c_fold(x3, by2048, _mm512_loadu_si512(p + 192));
        for (int w = 0; w < 32; w += 8) {
            uint64_t w0;
            uint64_t w1;
            uint64_t w2;
            uint64_t w3;
            memcpy(&w0, q + w, 8);
            memcpy(&w1, q + stream + w, 8);
            memcpy(&w2, q + 2 * stream + w, 8);
            memcpy(&w3, q + 3 * stream + w, 8);
            s0 = _mm_crc32_u64(s0, w0);
            s1 = _mm_crc32_u64(s1, w1);
            s2 = _mm_crc32_u64(s2, w2);
            s3 = _mm_crc32_u64(s3, w3);
        }
    }
    folded -= 256 * rounds;
    for (; folded >= 256; folded -= 256, p += 256) {
        x0 = crc32c_fold(x0, by2048, _mm512_loadu_si512(p));
        x1 = crc32c_fold(x1, by2048, _mm512_loadu_si512(p + 64));
        x2 = crc32c_fold(x2, by2048, _mm512_loadu_si512(p + 128));
        x3 = crc32c_fold(x3, by2048, _mm512_loadu_si512(p + 192));
    }
    const __m512i by512 = crc32c_broadcast(folding->by512);
    __m512i x = crc32c_fold(x0, crc32c_broadcast(folding->by1536),
            crc32c_fold(x1, crc32c_broadcast(folding->by1024), crc32c_fold(x2, by512, x3)));
    for (; folded >= 64; folded -= 64, p += 64) {
        x = crc32c_fold(x, by512, _mm512_loadu_si512(p));
    }
    x = crc32c_fold(x, _mm512_loadu_si512(folding->lanes), _mm512_maskz_mov_epi64(0xC0, x));
    __m256i y = _mm256_xor_si256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
    __m128i z = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    uint64_t c64 = _mm_crc32_u64(0, (uint64_t) _mm_cvtsi128_si64(z));
    c64 = _mm_crc32_u64(c64, (uint64_t) _mm_extract_epi64(z, 1));
    uint32_t c = crc32c_raw((uint32_t) c64, p, folded);
    if (rounds != 0) {
        uint32_t by1 = 0;   /* x^(256 rounds - 33): one stream's bits */
        int first = 1;
        for (size_t r = rounds, i = 0; r != 0; r >>= 1, i++) {
            if (r & 1) {
                by1 = first ? folding->rounds[i] : crc32c_multiply_x33(by1, folding->rounds[i]);
                first = 0;
            }
        }
        uint32_t by2 = crc32c_multiply_x33(by1, by1);
        uint32_t by3 = crc32c_multiply_x33(by2, by1);
        uint32_t by4 = crc32c_multiply_x33(by2, by2);
        c = crc32c_multiply_x33(c, by4) ^ crc32c_multiply_x33((uint32_t) s0, by3)
                ^ crc32c_multiply_x33((uint32_t) s1, by2) ^ crc32c_multiply_x33((uint32_t) s2, by1) ^ (uint32_t) s3;
    }
    return ~c;
}

/* The folding path: crc32c_fold_and_streams with the crc32 streams from CRC32C_STREAMS_MIN bytes on. */
CRC32C_FOLDING_TARGET static inline uint32_t crc32c_folded(uint32_t crc, const void *data, size_t bytes,
        const struct crc32c_folding *folding) {
    return crc32c_fold_and_streams(crc, data, bytes, folding, bytes >= CRC32C_STREAMS_MIN ? (bytes - 256) / 384 : 0);
}

/* Continues a finished CRC32C over `bytes` more bytes (start with 0): folded where the CPU can and it pays, else the
 * crc32 instruction (three streams where that pays). */
static inline uint32_t crc32c_update(uint32_t crc, const void *data, size_t bytes) {
    if (bytes >= CRC32C_FOLD_MIN) {
        const struct crc32c_folding *folding = crc32c_folding();
        if (folding != NULL) {
            return crc32c_folded(crc, data, bytes, folding);
        }
    }
    return crc32c_three_streams(crc, data, bytes);
}

/* The bit-at-a-time definition, to check the fast one against. */
static inline uint32_t crc32c_reference(const void *data, size_t bytes) {
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < bytes; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        }
    }
    return ~c;
}

#endif
