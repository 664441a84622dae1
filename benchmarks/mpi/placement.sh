#!/usr/bin/env bash
# Out of place against in place, 2 ranks on this host, steady state, three sides alternating REPS times (default 3):
#   the floor   benchmarks/mpi/placement_floor.c: two threads run the direct-read all-reduce over shared buffers
#               (each reduces its half reading both inputs in place, then copies the other's half): every byte an
#               all-reduce must read or write once, nothing else; what the host's caches and memory make of
#               placement alone (out of place, 4 distinct buffers; in place, 2)
#   Open MPI    mpirun --mca btl self,vader allreduce_perf [-i] (-i: MPI_IN_PLACE)
#   JCCL        ./jccl perf all_reduce -np 2 --transport shm (its out-of-place and in-place columns)
# at 1 MiB (-w 20000 -n 10000) and 8 MiB (-w 2000 -n 1000), as same-host.sh --steady. Prints each side's out-of-place
# time / in-place time, the median of the repetitions' ratios and their spread (issue 15 asks JCCL for at most 1.10).
#
# usage: benchmarks/mpi/placement.sh [--reps N]
# Measure only on a quiet machine (load average below 1, nothing else running). Needs Open MPI
# (scripts/install-openmpi.sh) and a C compiler (cc). Exit status: 0 done, 1 a run failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
reps=3
# shellcheck source=../options.sh
. "$here/../options.sh"
parse_options 14 --reps=reps -- "$@"
need_positive --reps "$reps"

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl placement.sh
floor_bin="$root/benchmarks/target/mpi/placement_floor"
mkdir -p "$(dirname "$floor_bin")"
if ! "${CC:-cc}" -O3 -march=native -std=c11 -Wall -Wextra -Werror -pthread -o "$floor_bin" \
    "$root/benchmarks/mpi/placement_floor.c"; then
  echo "placement.sh: compiling benchmarks/mpi/placement_floor.c failed (CC=${CC:-cc})" >&2
  exit 1
fi

echo "# placement.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$reps repetitions, floor / Open MPI vader / JCCL shm alternating"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) exit 1; printf "%.3f", a / b }'; }
mpi_time() {  # size [-i]
  mpirun -np 2 --mca btl self,vader --allow-run-as-root "$mpi_bin" ${2:-} "${@:3}" "$1" | awk '!/^#/ && NF >= 8 { print $5 }'
}
declare -A ratios
for ((i = 1; i <= reps; i++)); do
  for size in 1M 8M; do
    if [ "$size" = 1M ]; then iters=(-w 20000 -n 10000); else iters=(-w 2000 -n 1000); fi
    read -r f_oop f_ip <<< "$("$floor_bin" -w 200 -n 2000 "$size" | awk '!/^#/ { print $2, $3 }')"
    m_oop="$(mpi_time "$size" "" "${iters[@]}")"
    m_ip="$(mpi_time "$size" -i "${iters[@]}")"
    read -r j_oop j_ip <<< "$("$root/jccl" perf all_reduce -np 2 -b "$size" -e "$size" "${iters[@]}" --transport shm \
      | awk '!/^#/ && NF >= 13 { print $6, $10 }')"
    if ! fr="$(ratio "${f_oop:-}" "${f_ip:-}")" || ! mr="$(ratio "$m_oop" "$m_ip")" \
        || ! jr="$(ratio "${j_oop:-}" "${j_ip:-}")"; then
      echo "placement.sh: repetition $i at $size failed (floor '${f_oop:-}' '${f_ip:-}', MPI '$m_oop' '$m_ip'," \
        "JCCL '${j_oop:-}' '${j_ip:-}')" >&2
      exit 1
    fi
    echo "# repetition $i, $size: floor $f_oop / $f_ip µs = $fr; Open MPI $m_oop / $m_ip = $mr; JCCL $j_oop / $j_ip = $jr"
    ratios[floor.$size]+="$fr " ratios[mpi.$size]+="$mr " ratios[jccl.$size]+="$jr "
  done
done

echo
echo "| out-of-place time / in-place time, 2 ranks | 1 MiB, median (spread) | 8 MiB, median (spread) |"
echo "|---|---:|---:|"
for side in floor mpi jccl; do
  case "$side" in
    floor) label="the floor (placement_floor: direct-read all-reduce, 2 threads)" ;;
    mpi) label="Open MPI vader" ;;
    jccl) label="JCCL shm" ;;
  esac
  # shellcheck disable=SC2086 # the ratios are space-separated numbers
  read -r a alo ahi <<< "$(stats ${ratios[$side.1M]})"
  # shellcheck disable=SC2086
  read -r b blo bhi <<< "$(stats ${ratios[$side.8M]})"
  echo "| $label | $a ($alo–$ahi) | $b ($blo–$bhi) |"
done
