/**
 * Exact verification of collectives, in the manner of nccl-tests: inputs generated from (seed, rank, index)
 * and chosen per type and reduction so that every correct result is exactly representable whatever the order
 * of reduction, and the expected output of every rank computed independently of JCCL's kernels. Used by the
 * tests, by {@code jccl selftest} and by the perf tools.
 */
package io.jccl.check;
