#!/usr/bin/env bash
# Medium all-reduces over metaroce (4, 16, 64 and 256 KiB: around the eager limit, one payload of the connection,
# 64,976 bytes on loopback, and up to the bulk sizes of placed-bulk.sh) beside Open MPI tcp, alternating REPS times
# (in turns: every run takes every slot), each run started at load below 1 and tagged with the vCPU placement before
# and after it (core_round_trip: near/far):
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 50 -n 2000 4K 16K 64K 256K
#   ./jccl bench collective -np 2 --net metaroce --bytes 4K,16K,64K,256K --iters 2000 --warmup 50 --warmup-ms 2000
#   and, with BEFORE (another built checkout), its ./jccl the same way.
# Prints one line per run ("mpi|jccl|before T_4K T_16K T_64K T_256K PLACEMENT_BEFORE/PLACEMENT_AFTER", µs), then the
# medians (range) per size over all runs, JCCL / MPI as time, and BEFORE / JCCL.
# usage: benchmarks/mpi/metaroce-medium.sh [REPS [BEFORE]]   (default 4). Needs Open MPI and a C compiler.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_comparison 4 "$@"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
prepare_placement
echo "# metaroce-medium.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg)"
jccl() {
  (cd "$1" && ./jccl bench collective -np 2 --net metaroce --bytes 4K,16K,64K,256K --iters 2000 --warmup 50 \
    --warmup-ms 2000 | awk '!/^#/ && NF >= 8 { printf "%s ", $5 }')
}
run_one() {
  local p t
  quiet; p=$(placement)
  case "$1" in
    mpi) t=$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 50 -n 2000 4K 16K 64K 256K \
           | awk '!/^#/ && NF >= 5 { printf "%s ", $5 }') ;;
    jccl) t=$(jccl "$root") ;;
    before) t=$(jccl "$before") ;;
  esac
  echo "$1 $t$p/$(placement)" | tee -a "$out"
}
runs=(mpi jccl)
[[ -z "$before" ]] || runs+=(before)
in_turns "${runs[@]}"   # every run takes every slot: a fixed order measured the order (docs/performance.md)
echo "# medians (range) over all runs, µs: 4 KiB, 16 KiB, 64 KiB, 256 KiB"
awk "$(cat "$root/benchmarks/median.awk")"'
  { for (i = 2; i <= 5; i++) v[$1, i] = v[$1, i] " " $i; n[$1]++ }
  END { for (w in n) { line = w " (" n[w] "):"
                       for (i = 2; i <= 5; i++) { m[w, i] = median(v[w, i]); line = line " " m[w, i] " (" lo "-" hi ")" }
                       print line }
        if (n["mpi"] && n["jccl"]) { line = "JCCL/MPI time:"
          for (i = 2; i <= 5; i++) line = line sprintf(" %.2f", m["jccl", i] / m["mpi", i]); print line }
        if (n["before"] && n["jccl"]) { line = "before/JCCL time:"
          for (i = 2; i <= 5; i++) line = line sprintf(" %.2f", m["before", i] / m["jccl", i]); print line } }' "$out"
