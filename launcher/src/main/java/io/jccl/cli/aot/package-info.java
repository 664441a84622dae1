/**
 * The JDK AOT cache (JEP 483 and 515) of {@code ./jccl}: the training run that makes it ({@code jccl aot-train},
 * started by {@code scripts/aot-cache.sh}) and the options that pass it on to rank JVMs. See docs/perf.md, "Cold
 * start: the AOT cache".
 */
package io.jccl.cli.aot;
