#!/usr/bin/env bash
# The automatic spin times, side by side: for each JCCL_SPIN_US/JCCL_IDLE_SPIN_US pair, 2 rank JVMs over shm (and
# tcp for 8 B): cold 8 MiB busbw (default flags), 1 MiB busbw after 100 warm-up calls, 8 B time; the pairs
# run in turns (each repetition starts one pair later), REPS times (default 4). Prints one line per run:
# out-of-place/in-place values.
#
# usage: benchmarks/spin-settings.sh [--reps N] ["SPIN IDLE" ...]   (default pairs: "0 0" "100 50" "20 0")
# Measure on a quiet machine (load average below 1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reps=4
if [ "${1:-}" = --reps ]; then reps="${2:?--reps needs a number}"; shift 2; fi
case "$reps" in ''|*[!0-9]*|0) echo "spin-settings.sh: --reps must be a positive number" >&2; exit 2 ;; esac
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=("0 0" "100 50" "20 0")
# shellcheck source=mpi/prepare.sh
. "$root/benchmarks/mpi/prepare.sh"
"$root/jccl" version >/dev/null
perf() { "$root/jccl" perf all_reduce -np 2 "$@" 2>/dev/null; }
col() { awk -v s="$1" -v a="$2" -v b="$3" '$1 == s { print $a "/" $b }'; }
echo "# spin-settings.sh $(date -u +%Y-%m-%dT%H:%MZ): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $reps repetitions"
# One run of each measure with the spin pair $1 ("SPIN IDLE").
run_one() {
  local spin idle cold mib shm8 tcp8
  read -r spin idle <<< "$1"
  export JCCL_SPIN_US="$spin" JCCL_IDLE_SPIN_US="$idle"
  cold="$(perf -b 8M -e 8M | col 8388608 8 12)"
  mib="$(perf -b 1M -e 1M -w 100 -n 200 | col 1048576 8 12)"
  shm8="$(perf -b 8 -e 8 -w 2000 -n 5000 | col 8 6 10)"
  tcp8="$(perf -b 8 -e 8 -w 2000 -n 5000 --transport tcp | col 8 6 10)"
  echo "spin=$spin/$idle cold8M_busbw $cold 1M_busbw $mib shm8B_us $shm8 tcp8B_us $tcp8 load $(cut -d' ' -f1 /proc/loadavg)"
}
in_turns "${pairs[@]}"   # each repetition starts one pair later (mpi/prepare.sh)
