#!/usr/bin/env bash
# In-JVM all-reduce (Communicator.local ranks): the direct read (what `auto` runs there) against the ring and
# recursive doubling plans, side by side in one run: `jccl selftest` with --algo auto / ring / rd alternating, REPS
# times, per size and rank count; prints the all-reduce line's time (µs) and busbw (GB/s) of each run, then the
# medians and the ratio direct / best plan (time).
#
# usage: benchmarks/injvm/direct-vs-plans.sh [--reps N] [--ranks "2 4"] [--bytes "8 1M 64M"]
# Measure on a quiet machine (load average below 1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
reps=3
ranks="2 4"
sizes="8 1M 64M"
# shellcheck source=../options.sh
. "$root/benchmarks/options.sh"
parse_options 8 --reps=reps --ranks=ranks --bytes=sizes -- "$@"
"$root/jccl" version >/dev/null
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
echo "# direct-vs-plans.sh $(date -u +%Y-%m-%dT%H:%MZ): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $reps repetitions"
for ((rep = 1; rep <= reps; rep++)); do
  for np in $ranks; do
    for size in $sizes; do
      iters=(-w 200 -n 1000)
      case "$size" in *M) iters=(-w 20 -n 50) ;; esac
      case "$size" in 64M) iters=(-w 5 -n 20) ;; esac
      for algo in auto ring rd; do
        line="$("$root/jccl" selftest -np "$np" --bytes "$size" --algo "$algo" "${iters[@]}" 2>/dev/null \
          | awk '$1 == "allreduce" { print $6, $8; exit }')"
        echo "$np $size $algo $line" | tee -a "$results"
      done
    done
  done
done
echo
echo "| ranks | bytes | direct (auto) µs | ring µs | rd µs | direct / best plan |"
echo "|---|---|---|---|---|---|"
for np in $ranks; do
  for size in $sizes; do
    med() { awk -v n="$np" -v s="$size" -v a="$1" '$1 == n && $2 == s && $3 == a { print $4 }' "$results" | sort -g \
      | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    d="$(med auto)"; r="$(med ring)"; t="$(med rd)"
    echo "| $np | $size | $d | $r | $t | $(awk -v d="$d" -v r="$r" -v t="$t" 'BEGIN { b = r < t ? r : t; printf "%.2f", d / b }') |"
  done
done
