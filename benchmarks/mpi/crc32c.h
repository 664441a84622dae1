/*
 * CRC32C (Castagnoli, the checksum MetaRoCE's packets carry) for the C floors, as fast as this CPU computes it: the
 * SSE4.2 crc32 instruction on three interleaved streams (one stream waits on the instruction's 3-cycle latency),
 * the three partial CRCs joined by multiplication modulo the polynomial — the method of the JDK's own intrinsic,
 * which JCCL's Java side uses. A floor that checksummed slower than JCCL can would not be a floor.
 * Needs -msse4.2 (or -march=native on a CPU that has it).
 */
#ifndef JCCL_BENCH_CRC32C_H
#define JCCL_BENCH_CRC32C_H

#include <nmmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u   /* reflected */

/* a * b modulo the polynomial, both as reflected polynomials (x^0 is the top bit). */
static uint32_t crc32c_multiply(uint32_t a, uint32_t b) {
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

/* x^(8 * bytes) modulo the polynomial: what a CRC is multiplied by when `bytes` more bytes follow its data. */
static uint32_t crc32c_shift_of(size_t bytes) {
    uint32_t result = 1u << 31;    /* x^0 */
    uint32_t power = 1u << 23;     /* x^8: one byte */
    for (size_t n = bytes; n != 0; n >>= 1) {
        if (n & 1) {
            result = crc32c_multiply(power, result);
        }
        power = crc32c_multiply(power, power);
    }
    return result;
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

/* Continues a finished CRC32C over `bytes` more bytes (start with 0), three streams where it pays. */
static uint32_t crc32c_update(uint32_t crc, const void *data, size_t bytes) {
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

/* The bit-at-a-time definition, to check the fast one against. */
static uint32_t crc32c_reference(const void *data, size_t bytes) {
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
