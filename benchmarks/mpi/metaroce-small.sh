#!/usr/bin/env bash
# Small all-reduces over metaroce, two builds of JCCL side by side with Open MPI tcp, alternating REPS times:
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 20000 -n 5000 8 1024
#   BEFORE/jccl and ./jccl perf all_reduce -np 2 -b 8 -e 1K -f 128 -w 100000 -W 50 -n 20000 --transport metaroce
# (-W 50: after the warm-up, rounds until every rank's JIT has been quiet for 200 ms; without it the JIT's
# recompiling after the barrier fell into the first size's timed window and doubled the 8 B time. A BEFORE build
# without -W runs without it.)
# (100,000 warm-up calls: the JIT needs thousands before the 8 B times settle; at 2,000 the first size measured
# was up to 2.5x slower, and at 20,000 the C2 compiler threads still took a third of both cores while the calls
# were timed: perf sched showed them taking turns with the ranks' callers.)
# Prints per repetition Open MPI's time (µs), each build's out-of-place/in-place times at 8 B and 1 KiB (tagged by
# vCPU placement before/after, benchmarks/mpi/core_round_trip.c), and the floor: one UDP round trip between two
# busy-polling C processes on loopback (benchmarks/mpi/udp_round_trip.c); then the medians. Every run starts at load
# below 1, and each repetition starts one run later in the list Open MPI, floor, JCCL, BEFORE (every run takes
# every slot once in four repetitions).
#
# usage: benchmarks/mpi/metaroce-small.sh BEFORE_CHECKOUT [REPS]
#   BEFORE_CHECKOUT  another checkout of JCCL (e.g. `git worktree add /tmp/old COMMIT`); its ./jccl builds itself
# Measure only on a quiet machine (load average below 1). Needs Open MPI (scripts/install-openmpi.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_comparison 3 "${2:-}" "${1:?usage: metaroce-small.sh BEFORE_CHECKOUT [REPS]}"
floor="$root/benchmarks/target/mpi/udp_round_trip"
if ! "${CC:-cc}" -O2 -std=c11 -Wall -Wextra -Werror -o "$floor" "$here/udp_round_trip.c"; then
  echo "metaroce-small.sh: compiling benchmarks/mpi/udp_round_trip.c failed (CC=${CC:-cc})" >&2
  exit 1
fi
prepare_placement
# -W 50 for a build whose perf knows it (asked once per build: each ask starts a JVM).
settle_root=(); settle_before=()
if (cd "$root" && ./jccl perf --help 2>&1 | grep -q -- --settle_rounds); then settle_root=(-W 50); fi
if (cd "$before" && ./jccl perf --help 2>&1 | grep -q -- --settle_rounds); then settle_before=(-W 50); fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "# metaroce-small.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg), before = $before"
run_one() {
  local side settle p j m
  case "$1" in
    mpi)
      quiet
      m="$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 20000 -n 5000 8 1024 \
        | awk '!/^#/ && NF >= 5 { printf "%s B %s us  ", $1, $5 }')"
      echo "rep $rep Open MPI tcp: $m" | tee -a "$out" ;;
    floor) echo "rep $rep floor: $("$floor" -n 50000 -w 5000 -r 1)" ;;
    jccl|before)
      side="$root"; settle=("${settle_root[@]}")
      if [[ "$1" == before ]]; then side="$before"; settle=("${settle_before[@]}"); fi
      quiet
      p="$(placement)"
      j="$(cd "$side" && ./jccl perf all_reduce -np 2 -b 8 -e 1K -f 128 -w 100000 "${settle[@]}" -n 20000 \
        --transport metaroce | awk '$1 == 8 || $1 == 1024 { printf "%s B %s/%s us  ", $1, $6, $10 }')"
      echo "rep $rep $1 $side ($p/$(placement); out of place/in place): $j" | tee -a "$out" ;;
  esac
}
in_turns mpi floor jccl before
echo "# medians (ranges) over $reps repetitions, us"
awk "$(cat "$root/benchmarks/median.awk")"'
  / Open MPI tcp: / { mpi8 = mpi8 " " $8; mpi1k = mpi1k " " $12 }
  $3 == "jccl" || $3 == "before" {
    for (i = 1; i <= NF; i++) {
      if ($(i + 1) != "B") continue
      split($(i + 2), t, "/")
      v[$3, $i, "o"] = v[$3, $i, "o"] " " t[1]
      v[$3, $i, "i"] = v[$3, $i, "i"] " " t[2]
    }
  }
  END {
    printf "Open MPI tcp: 8 B %.2f (%s-%s)", median(mpi8), lo, hi
    printf ", 1 KiB %.2f (%s-%s)\n", median(mpi1k), lo, hi
    for (k = 1; k <= 2; k++) {
      tag = k == 1 ? "jccl" : "before"
      if (v[tag, 8, "o"] == "") continue
      printf "%s: 8 B %.2f (%s-%s)", tag, median(v[tag, 8, "o"]), lo, hi
      printf " / %.2f (%s-%s)", median(v[tag, 8, "i"]), lo, hi
      printf ", 1 KiB %.2f / %.2f", median(v[tag, 1024, "o"]), median(v[tag, 1024, "i"])
      printf "; 8 B out of place / Open MPI %.2f\n", median(v[tag, 8, "o"]) / median(mpi8)
    }
  }' "$out"
