/** {@code jccl perf}: nccl-tests' {@code *_perf} programs for JCCL, with their flags and output format. */
package io.jccl.cli.perf;
