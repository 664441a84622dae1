#!/usr/bin/env bash
# JCCL_CPU_BIND=share against none (docs/configuration.md) over metaroce at 2 ranks, with Open MPI tcp beside, one
# build, alternating REPS times (the order of the two settings alternates too):
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 20 -n 300 1M 8M
#   JCCL_CPU_BIND=B ./jccl bench collective -np 2 --net metaroce --bytes 1M,8M --iters 300 --warmup 20 --warmup-ms 2000
#   ./jccl run -np 2 -x JCCL_NET=metaroce -x JCCL_CPU_BIND=B -cp benchmarks/target/classes -- \
#       io.jccl.bench.CallTimeHistogram 8 200000 5      (8 B: the mean of rounds 2-4; rounds 0-1 warm the JIT)
# Prints one line per run tagged by vCPU placement before/after (benchmarks/mpi/core_round_trip.c), then the medians
# (ranges). Each run starts at load below 1.
# usage: benchmarks/mpi/cpu-bind.sh [REPS]    Needs Open MPI (scripts/install-openmpi.sh) and a C compiler.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_comparison 3 "$@"
prepare_placement
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "# cpu-bind.sh $(date -u +%Y-%m-%dT%H:%MZ) $(git -C "$root" rev-parse --short HEAD): load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tag placement 1MiB_us 8MiB_us | tag placement 8B_us"
cd "$root"
for ((rep = 1; rep <= reps; rep++)); do
  quiet; p=$(placement)
  t=$(mpirun -np 2 --mca btl self,tcp --allow-run-as-root "$mpi_bin" -w 20 -n 300 1M 8M \
      | awk '!/^#/ && NF >= 5 { printf "%s ", $5 }')
  echo "bulk mpi $p/$(placement) $t" | tee -a "$out"
  if ((rep % 2)); then order=(share none); else order=(none share); fi
  for bind in "${order[@]}"; do
    quiet; p=$(placement)
    t=$(JCCL_CPU_BIND=$bind ./jccl bench collective -np 2 --net metaroce --bytes 1M,8M --iters 300 --warmup 20 \
        --warmup-ms 2000 | awk '!/^#/ && NF >= 8 { printf "%s ", $5 }')
    echo "bulk $bind $p/$(placement) $t" | tee -a "$out"
  done
  for bind in "${order[@]}"; do
    quiet; p=$(placement)
    t=$(./jccl run -np 2 -x JCCL_NET=metaroce -x JCCL_CPU_BIND="$bind" -cp benchmarks/target/classes -- \
        io.jccl.bench.CallTimeHistogram 8 200000 5 2>&1 \
        | awk '/round [234]: .* mean/ { sub(/ us;.*/, ""); n++; s += $NF } END { if (n == 3) printf "%.2f", s / n }')
    [[ -n "$t" ]] || { echo "cpu-bind.sh: CallTimeHistogram printed no rounds 2-4 (JCCL_CPU_BIND=$bind)" >&2; exit 1; }
    echo "small $bind $p/$(placement) $t" | tee -a "$out"
  done
done
echo "# medians (ranges) over $reps runs each: 1 MiB, 8 MiB us | 8 B us"
awk "$(cat "$root/benchmarks/median.awk")"'
  $1 == "bulk" { a[$2] = a[$2] " " $4; b[$2] = b[$2] " " $5 }
  $1 == "small" { c[$2] = c[$2] " " $4 }
  END {
    for (k in a) { m = median(a[k]); printf "%-5s 1 MiB %.1f (%s-%s)", k, m, lo, hi
                   m = median(b[k]); printf ", 8 MiB %.0f (%s-%s)", m, lo, hi
                   if (k in c) { m = median(c[k]); printf ", 8 B %.2f (%s-%s)", m, lo, hi }
                   printf "\n" }
  }' "$out"
