#!/usr/bin/env bash
# Turns a JMH JSON result (run-jmh.sh ... -rf json -rff FILE) into the Markdown table of docs/perf-kernels.md:
# one row per benchmark and parameter set, GB/s from the "bytes" secondary result (bytes/ns = GB/s), and the
# JCCL/gcc ratio for Float32SumVsCBenchmark. Needs jq.
#   benchmarks/jmh-table.sh benchmarks/target/jmh-result.json
set -euo pipefail
file="${1:-$(dirname "$0")/target/jmh-result.json}"
echo "| benchmark | type | op | size per operand | GB/s (± 99.9% CI) |"
echo "| --- | --- | --- | --- | ---: |"
jq -r '
  def size: (.params.sizeBytes | tonumber) as $b
    | if $b >= 1048576 then "\($b / 1048576) MiB" else "\($b / 1024) KiB" end;
  def r2: (. * 100 | round) / 100;
  .[] | (.benchmark | split(".") | .[-2:] | join(".")) as $name
  | [ $name,
      (.params.type // "FLOAT32"),
      (.params.op // (if ($name | test("Sum")) then "sum" elif ($name | test("gcc")) then "sum" else "?" end)),
      size,
      "\(.secondaryMetrics.bytes.score | r2) ± \(.secondaryMetrics.bytes.scoreError | r2)" ]
  | "| " + join(" | ") + " |"' "$file"
echo
echo "| size per operand | JCCL fp32 SUM GB/s | gcc -O3 -march=native GB/s | JCCL / gcc |"
echo "| --- | ---: | ---: | ---: |"
jq -r '
  def r2: (. * 100 | round) / 100;
  [ .[] | select(.benchmark | test("Float32SumVsCBenchmark")) ]
  | group_by(.params.sizeBytes | tonumber)[]
  | (map(select(.benchmark | endswith(".jccl")))[0].secondaryMetrics.bytes.score) as $j
  | (map(select(.benchmark | endswith(".gcc")))[0].secondaryMetrics.bytes.score // null) as $c
  | (.[0].params.sizeBytes | tonumber) as $b
  | (if $b >= 1048576 then "\($b / 1048576) MiB" else "\($b / 1024) KiB" end) as $size
  | "| \($size) | \($j | r2) | \(if $c then ($c | r2) else "unavailable" end) | \(if $c then ($j / $c | r2) else "-" end) |"' "$file"
