#!/usr/bin/env bash
# Medium all-reduces over metaroce (4 KiB, 64 KiB, 256 KiB: rendezvous messages, one CTS each, between the eager
# limit and the bulk sizes of placed-bulk.sh) beside Open MPI tcp, alternating REPS times, each run started at load
# below 1 and tagged with the vCPU placement before and after it (core_round_trip: near/far):
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 50 -n 2000 4K 64K 256K
#   ./jccl bench collective -np 2 --net metaroce --bytes 4K,64K,256K --iters 2000 --warmup 50 --warmup-ms 2000
#   and, with BEFORE (another built checkout), its ./jccl the same way.
# Prints one line per run ("mpi|jccl|before T_4K T_64K T_256K PLACEMENT_BEFORE/PLACEMENT_AFTER", µs), then the
# medians (range) per size over all runs, JCCL / MPI as time, and BEFORE / JCCL.
# usage: benchmarks/mpi/metaroce-medium.sh [REPS [BEFORE]]   (default 4). Needs Open MPI and a C compiler.
# shellcheck source=prepare.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$here/prepare.sh"
prepare_comparison 4 "$@"
probe="$root/benchmarks/target/mpi/core_round_trip"
"${CC:-cc}" -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "$probe" "$here/core_round_trip.c"
placement() { "$probe" | awk '{ print $2 }'; }
quiet() { while [ "$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)" != "0" ]; do sleep 3; done; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "# metaroce-medium.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg)"
jccl() {
  (cd "$1" && ./jccl bench collective -np 2 --net metaroce --bytes 4K,64K,256K --iters 2000 --warmup 50 \
    --warmup-ms 2000 | awk '!/^#/ && NF >= 8 { printf "%s ", $5 }')
}
for ((rep = 1; rep <= reps; rep++)); do
  quiet; p=$(placement)
  t=$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 50 -n 2000 4K 64K 256K \
      | awk '!/^#/ && NF >= 5 { printf "%s ", $5 }')
  echo "mpi $t$p/$(placement)" | tee -a "$out"
  quiet; p=$(placement); t=$(jccl "$root"); echo "jccl $t$p/$(placement)" | tee -a "$out"
  if [[ -n "$before" ]]; then
    quiet; p=$(placement); t=$(jccl "$before"); echo "before $t$p/$(placement)" | tee -a "$out"
  fi
done
echo "# medians (range) over all runs, µs: 4 KiB, 64 KiB, 256 KiB"
awk "$(cat "$root/benchmarks/median.awk")"'
  { v1[$1] = v1[$1] " " $2; v2[$1] = v2[$1] " " $3; v3[$1] = v3[$1] " " $4; n[$1]++ }
  END { for (w in n) { m1[w] = median(v1[w]); r1 = lo "-" hi; m2[w] = median(v2[w]); r2 = lo "-" hi
                       m3[w] = median(v3[w]); r3 = lo "-" hi
                       printf "%s (%d): %s (%s) %s (%s) %s (%s)\n", w, n[w], m1[w], r1, m2[w], r2, m3[w], r3 }
        if (m1["mpi"] > 0 && m1["jccl"] > 0) printf "JCCL/MPI time: %.2f %.2f %.2f\n", m1["jccl"] / m1["mpi"], m2["jccl"] / m2["mpi"], m3["jccl"] / m3["mpi"]
        if (m1["before"] > 0 && m1["jccl"] > 0) printf "before/JCCL time: %.2f %.2f %.2f\n", m1["before"] / m1["jccl"], m2["before"] / m2["jccl"], m3["before"] / m3["jccl"] }' "$out"
