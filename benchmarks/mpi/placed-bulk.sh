#!/usr/bin/env bash
# Bulk all-reduces over metaroce beside Open MPI tcp, each run tagged with the vCPU placement before and after it
# (benchmarks/mpi/core_round_trip: "near" when the host runs both vCPUs on cores sharing a last-level cache, "far"
# otherwise; a 1 MiB call costs 3-5x more far, in Open MPI and JCCL alike, and the host switches every few seconds
# to minutes, so a mean over mixed placements compares placements, not libraries). Alternates REPS times, each
# repetition starting one run later in this list (so over as many repetitions as runs, each run takes every slot):
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 20 -n 300 1M 8M
#   ./jccl bench collective -np 2 --net metaroce --bytes 1M,8M --iters 300 --warmup 20 --warmup-ms 2000
#   benchmarks/target/mpi/udp_exchange_floor -w 20 -n 300 -r 1 1M 8M      the floor of any all-reduce over UDP here
#   benchmarks/target/mpi/udp_exchange_floor -c -w 20 -n 300 -r 1 1M 8M   the floor of any that checks every byte
#                                            (a CRC32C per datagram on both sides, as issue 16's design; see the .c)
#   and, with BEFORE (another built checkout), its ./jccl the same way.
# Prints one line per run ("mpi|jccl|before TIME_1M TIME_8M PLACEMENT_BEFORE/PLACEMENT_AFTER"), then per size the
# medians over the runs that began and ended near, and JCCL / MPI and either floor / MPI as busbw (what JCCL / MPI
# could reach at best); then the same over the runs that began and ended far.
# usage: benchmarks/mpi/placed-bulk.sh [REPS [BEFORE]]    Measure at load below 1. Needs Open MPI and a C compiler.
#   FLOORS=0 leaves the two floors out (more alternations of Open MPI and the builds in the same minutes).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_comparison 5 "$@"
prepare_placement
build_udp_exchange_floor placed-bulk.sh
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "# placed-bulk.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg)"
jccl() {
  (cd "$1" && ./jccl bench collective -np 2 --net metaroce --bytes 1M,8M --iters 300 --warmup 20 --warmup-ms 2000 \
    | awk '!/^#/ && NF >= 8 { printf "%s ", $5 }')
}
run_one() {
  local p t
  quiet; p=$(placement)
  case "$1" in
    mpi) t=$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 20 -n 300 1M 8M \
           | awk '!/^#/ && NF >= 5 { printf "%s ", $5 }') ;;
    jccl) t=$(jccl "$root") ;;
    before) t=$(jccl "$before") ;;
    floor|checked) t=$("$floor" $([ "$1" = checked ] && echo -c) -w 20 -n 300 -r 1 1M 8M \
           | awk '{ printf "%s ", $6 }') ;;
  esac
  echo "$1 $t$p/$(placement)" | tee -a "$out"
}
# The runs take turns going first: back to back, a run read up to 14% slower in one slot than in another with the same
# code (2026-12-07 21:50 and 21:57: a build read 1.14x and then 0.94x the other one as their order swapped).
runs=(mpi jccl)
[ "${FLOORS:-1}" = 0 ] || runs+=(floor checked)
[[ -z "$before" ]] || runs+=(before)
in_turns "${runs[@]}"
# Medians per placement: runs near at both ends, then runs far at both ends (the host often runs far for many
# minutes; ratios are only taken between runs of the same placement).
for where in near far; do
  echo "# medians over runs $where before and after (count): 1 MiB, 8 MiB us"
  awk -v where="$where" "$(cat "$root/benchmarks/median.awk")"'
    $4 == where "/" where { v1[$1] = v1[$1] " " $2; v8[$1] = v8[$1] " " $3; n[$1]++ }
    END { for (w in n) { m1[w] = median(v1[w]); m8[w] = median(v8[w]); printf "%s (%d): %s %s\n", w, n[w], m1[w], m8[w] }
          if (m1["mpi"] > 0 && m1["jccl"] > 0) printf "JCCL/MPI busbw %s: 1 MiB %.2f, 8 MiB %.2f\n", where, m1["mpi"] / m1["jccl"], m8["mpi"] / m8["jccl"]
          if (m1["mpi"] > 0 && m1["floor"] > 0) printf "UDP floor/MPI busbw %s: 1 MiB %.2f, 8 MiB %.2f\n", where, m1["mpi"] / m1["floor"], m8["mpi"] / m8["floor"]
          if (m1["mpi"] > 0 && m1["checked"] > 0) printf "checked floor/MPI busbw %s: 1 MiB %.2f, 8 MiB %.2f\n", where, m1["mpi"] / m1["checked"], m8["mpi"] / m8["checked"]
          if (m1["before"] > 0 && m1["jccl"] > 0) printf "before/JCCL %s: 1 MiB %.2f, 8 MiB %.2f\n", where, m1["before"] / m1["jccl"], m8["before"] / m8["jccl"] }' "$out"
done
