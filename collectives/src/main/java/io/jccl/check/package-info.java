/**
 * Exact verification of collectives, in the manner of nccl-tests: inputs generated from (seed, rank, index)
 * and chosen per type and reduction so that every correct result is exactly representable whatever the order
 * of reduction, and the expected output of every rank computed independently of JCCL's kernels (only the fp16,
 * bf16 and fp8 codecs are shared). {@link io.jccl.check.CollectiveCalls} issues a checked collective through the
 * public API, in NCCL's in-place layouts too. {@link io.jccl.check.Workload} draws a reproducible random
 * sequence of operations and {@link io.jccl.check.WorkloadRank} runs and checks one rank's side of it (soak tests,
 * simulators). {@link io.jccl.check.JitQuiet} tells a benchmark or an allocation test when this JVM's JIT has
 * settled. Used by the tests, by {@code jccl selftest}, {@code jccl perf}, {@code jccl bench} and {@code jccl soak}.
 */
package io.jccl.check;
