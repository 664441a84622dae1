#!/usr/bin/env bash
# Allocation on the data path, shown with JDK Flight Recorder: runs `jccl bench collective` (2 rank JVMs by
# default, over MetaRoCE) with a recording in every rank JVM, then counts the jdk.ObjectAllocationSample events of
# the threads that move data — the communicator's executor (jccl-comm*) and the transport's driver
# (jccl-metaroce*) — from --after-s seconds into each recording (buffers are allocated once per size, at the start
# of it). JFR samples allocations (weighted by size), so zero events over a long steady run means nothing is being
# allocated there at any rate that matters; the caller-side and driver-side byte counts are also asserted exactly
# by MetaRoceTransportConformanceTest and SteadyStateAllocationTest.
#
# Usage: benchmarks/jfr-allocation.sh [--after-s S] [bench collective options...]
#   default: -np 2 --bytes 8M --iters 2000 --warmup 50
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
after_s=5
if [ "${1:-}" = "--after-s" ]; then
  after_s="$2"
  shift 2
fi
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
  args=(-np 2 --bytes 8M --iters 2000 --warmup 50)
fi
out="$here/benchmarks/target/jfr"
rm -rf "$out"
mkdir -p "$out"
JAVA_HOME="$("$here/scripts/find-jdk.sh")"
export JCCL_JAVA_OPTS="${JCCL_JAVA_OPTS:-} -XX:StartFlightRecording=filename=$out/rank-%p.jfr,settings=profile"
"$here/jccl" bench collective "${args[@]}"
echo
echo "# jdk.ObjectAllocationSample events on data-path threads, after the first ${after_s} s of each recording"
for f in "$out"/*.jfr; do
  "$JAVA_HOME/bin/jfr" print --events jdk.ObjectAllocationSample "$f" | awk -v after="$after_s" -v file="$(basename "$f")" '
    /startTime = / { split($3, t, ":"); secs = t[1] * 3600 + t[2] * 60 + t[3]; if (first == "") first = secs }
    /objectClass = / { cls = $3 }
    /eventThread = / {
      name = $0; sub(/.*eventThread = "/, "", name); sub(/".*/, "", name)
      if (name ~ /^jccl-(comm|metaroce)/) {
        total[name]++
        if (secs - first >= after) { late[name]++; classes[name] = classes[name] " " cls }
      }
    }
    END {
      n = 0
      for (th in total) { printf "%s %-34s samples: %4d in all, %4d after warm-up%s\n", file, th, total[th], late[th] + 0, (late[th] ? " (" classes[th] " )" : ""); n++ }
      if (n == 0) printf "%s no samples on data-path threads at all\n", file
    }'
done
