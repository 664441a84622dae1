/*
 * The C reference for JCCL's fp32 SUM kernel: the plain loop a C programmer would write, compiled by the
 * benchmarks build with gcc -O3 -march=native -shared -fPIC. The JMH benchmark CReferenceBenchmark calls it
 * through an FFM downcall so one JMH run compares it with the Java kernel on the same buffers and sizes.
 */
#include <stddef.h>

void jccl_ref_sum_f32(const float *restrict a, const float *restrict b, float *restrict dst, size_t count) {
    for (size_t i = 0; i < count; i++) {
        dst[i] = a[i] + b[i];
    }
}
