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
# Prints per repetition Open MPI's time (µs), each build's out-of-place/in-place times at 8 B and 1 KiB, and the
# floor: one UDP round trip between two busy-polling C processes on loopback (benchmarks/mpi/udp_round_trip.c).
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
echo "# metaroce-small.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg), before = $before"
for ((rep = 1; rep <= reps; rep++)); do
  m="$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 20000 -n 5000 8 1024 \
    | awk '!/^#/ && NF >= 5 { printf "%s B %s us  ", $1, $5 }')"
  echo "rep $rep Open MPI tcp: $m"
  echo "rep $rep floor: $("$floor" -n 50000 -w 5000 -r 1)"
  for side in "$before" "$root"; do
    settle=()
    if (cd "$side" && ./jccl perf --help 2>&1 | grep -q -- --settle_rounds); then settle=(-W 50); fi
    j="$(cd "$side" && ./jccl perf all_reduce -np 2 -b 8 -e 1K -f 128 -w 100000 "${settle[@]}" -n 20000 --transport metaroce \
      | awk '$1 == 8 || $1 == 1024 { printf "%s B %s/%s us  ", $1, $6, $10 }')"
    echo "rep $rep $side (out of place/in place): $j"
  done
done
