#!/usr/bin/env bash
# Where the rank JVMs' threads spend a steady stretch of fp32 sum all-reduces over metaroce: per thread, the CPU time
# it ran, the time it was runnable but waited for a core (run queue), how often it went to sleep (wake-ups) and how
# often it was preempted, from /proc/PID/task/TID/{schedstat,status}. The window is one timed round of
#   ./jccl run -np 2 -x JCCL_NET=metaroce [-x ENV=VALUE ...] -cp benchmarks/target/classes -- \
#       io.jccl.bench.CallTimeHistogram SIZE CALLS 3
# (round 1: after round 0 warmed the JIT, before round 2). Per thread name (both ranks summed, per second of the
# window): "run" and "wait" in ms/s, "sleeps" and "preempted" per second; then the round's call time as the
# benchmark printed it. The issue's goal is one busy thread per rank: every other thread's wake-up takes a core from
# a spinning caller, and in this guest a context switch costs tens of microseconds (pvm_irq_enable in
# finish_task_switch leads a helper thread's profile).
#
# usage: benchmarks/mpi/rank-threads.sh SIZE CALLS [ENV=VALUE ...]
#   e.g. benchmarks/mpi/rank-threads.sh 1M 10000 JCCL_METAROCE_THREADING=invoker
# Measure at load below 1, with no other jccl job running. Needs Linux /proc with schedstat and a built
# benchmarks module (./jccl builds it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: rank-threads.sh SIZE CALLS [ENV=VALUE ...]" >&2
  exit 2
fi
size="$1"; calls="$2"; shift 2
if ! [[ "$calls" =~ ^[1-9][0-9]*$ ]]; then
  echo "rank-threads.sh: CALLS must be a positive whole number, not '$calls'" >&2
  exit 2
fi
xs=()
for kv in "$@"; do
  if ! [[ "$kv" =~ ^[A-Z_][A-Z0-9_]*=.*$ ]]; then
    echo "rank-threads.sh: '$kv' is not ENV=VALUE" >&2
    exit 2
  fi
  xs+=(-x "$kv")
done
if [ ! -f "$root/benchmarks/target/classes/io/jccl/bench/CallTimeHistogram.class" ]; then
  echo "rank-threads.sh: benchmarks/target/classes has no CallTimeHistogram; build first (./jccl --help)" >&2
  exit 1
fi
log="$(mktemp)"; before="$(mktemp)"; after="$(mktemp)"
trap 'rm -f "$log" "$before" "$after"' EXIT
# One line per thread of both rank JVMs: pid-tid name run_ns wait_ns voluntary_switches involuntary_switches. Bash
# builtins only: forking a process per thread would itself take the cores from the ranks it measures.
snapshot() {
  local pid t pids name run_ns wait_ns key value voluntary involuntary
  pids="$(pgrep -f io.jccl.cli.run.RankMain || true)"
  if [ "$(wc -w <<< "$pids")" != 2 ]; then
    echo "rank-threads.sh: expected the 2 rank JVMs of this run, found: ${pids:-none} (another jccl job running?)" >&2
    kill "$job" 2> /dev/null || true
    exit 1
  fi
  for pid in $pids; do
    for t in /proc/"$pid"/task/*; do
      # A thread that ended meanwhile is skipped.
      { read -r name < "$t/comm" && read -r run_ns wait_ns _ < "$t/schedstat"; } 2> /dev/null || continue
      voluntary=0; involuntary=0
      while read -r key value; do
        case "$key" in
          voluntary_ctxt_switches:) voluntary=$value ;;
          nonvoluntary_ctxt_switches:) involuntary=$value ;;
        esac
      done < "$t/status" 2> /dev/null || continue
      printf '%s-%s %s %s %s %s %s\n' "$pid" "${t##*/}" "${name// /_}" "$run_ns" "$wait_ns" "$voluntary" "$involuntary"
    done
  done
}
# Blocks until the benchmark prints a line matching $1 (tail follows the log and ends with the benchmark, so a
# benchmark that fails or ends first fails this instead of hanging; grep returns at the line, the tail left behind
# ends at the log's next line); no polling beside the ranks.
await_line() {
  if ! grep -q -m 1 "$1" < <(tail --pid="$job" -n +1 -F "$log" 2> /dev/null); then
    echo "rank-threads.sh: the benchmark ended before '$1':" >&2
    cat "$log" >&2
    exit 1
  fi
}
echo "# rank-threads.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg), $size x $calls, ${*:-defaults}"
(cd "$root" && exec ./jccl run -np 2 -x JCCL_NET=metaroce "${xs[@]}" -cp benchmarks/target/classes -- \
  io.jccl.bench.CallTimeHistogram "$size" "$calls" 3) > "$log" 2>&1 &
job=$!
await_line '\] round 0: .*mean'
start=$(date +%s.%N); snapshot > "$before"
await_line '\] round 1: .*mean'
end=$(date +%s.%N); snapshot > "$after"
wait "$job" || { echo "rank-threads.sh: the benchmark failed:" >&2; cat "$log" >&2; exit 1; }
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
printf '%-18s %10s %10s %10s %10s\n' thread "run ms/s" "wait ms/s" "sleeps/s" "preempt/s"
awk -v s="$seconds" '
  NR == FNR { run[$1] = $3; wait[$1] = $4; vol[$1] = $5; inv[$1] = $6; next }
  ($1 in run) {
    name = $2; sub(/[0-9]+$/, "", name)   # ranks and numbered threads together: jccl-comm0-r1 -> jccl-comm0-r
    r[name] += ($3 - run[$1]) / 1e6 / s; w[name] += ($4 - wait[$1]) / 1e6 / s
    v[name] += ($5 - vol[$1]) / s; n[name] += ($6 - inv[$1]) / s
  }
  END { for (k in r) if (r[k] >= 1 || w[k] >= 1 || v[k] >= 10) printf "%-18s %10.1f %10.1f %10.0f %10.0f\n", k, r[k], w[k], v[k], n[k] }
' "$before" "$after" | sort -k2 -n -r
grep -o 'round 1: .*' "$log" | head -2
