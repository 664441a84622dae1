#!/usr/bin/env bash
# Bulk all-reduces over metaroce beside Open MPI tcp and the floor of any UDP design on this host, alternating
# REPS times (2 ranks, float sum, out of place):
#   mpirun -np 2 --mca btl self,tcp allreduce_perf -w 20 -n 100 1M 8M 64M
#   benchmarks/target/mpi/udp_exchange_floor -w 20 -n 100 -r 1 1M 8M 64M   (benchmarks/mpi/udp_exchange_floor.c)
#   ./jccl bench collective -np 2 --net metaroce --bytes 1M,8M,64M --iters 100 --warmup 20 --warmup-ms 5000
# (JCCL warms each size up for 5 s, not compare.sh's default 1 s: at 1 MiB the JIT still compiles after a few
# thousand calls, and the issue's figures are the steady state.)
# The floor is two C processes exchanging their inputs as 65,000-byte UDP datagrams on loopback, received straight
# into the result, then one summing pass: the kernel's copies and the reduction, nothing else. Issue 16's bulk
# target (JCCL >= 1.2x Open MPI's busbw) is within this host where the floor is faster than 1.2x Open MPI.
# Prints per repetition each one's time in µs per size, then per size the medians and ranges and the ratios.
# With BEFORE (the root of another checkout of JCCL, built: e.g. `git worktree add /tmp/old COMMIT` and
# `./mvnw -q -o -DskipTests -pl launcher,benchmarks/tools,examples -am package` there), that build's `./jccl bench
# collective` runs in every repetition too, and its medians are printed beside. Every run starts at load below 1, and
# each repetition starts one run later in the list (Open MPI, floor, JCCL, BEFORE): every run takes every slot.
#
# usage: benchmarks/mpi/udp-floor.sh [REPS [BEFORE]]      (default 3)
# Measure only on a quiet machine (load average below 1). Needs Open MPI (scripts/install-openmpi.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_comparison 3 "$@"
build_udp_exchange_floor udp-floor.sh
prepare_placement   # for quiet: every run starts at load below 1
sizes=(1048576 8388608 67108864)
declare -A times
echo "# udp-floor.sh $(date -u +%Y-%m-%dT%H:%MZ): load $(cut -d' ' -f1-3 /proc/loadavg)"
jccl_times() {   # jccl_times TAG CHECKOUT
  local size us
  while read -r size us; do times[$1,$size]+="$us "; done < <(cd "$2" && ./jccl bench collective -np 2 \
    --net metaroce --bytes 1M,8M,64M --iters 100 --warmup 20 --warmup-ms 5000 \
    | awk '!/^#/ && NF >= 8 { print $1, $5 }')
}
run_one() {
  local size us
  quiet
  case "$1" in
    mpi) while read -r size us; do times[mpi,$size]+="$us "; done < <(mpirun -np 2 --mca btl self,tcp \
           --allow-run-as-root "$mpi_bin" -w 20 -n 100 1M 8M 64M | awk '!/^#/ && NF >= 5 { print $1, $5 }') ;;
    floor) while read -r size us; do times[floor,$size]+="$us "; done < <("$floor" -w 20 -n 100 -r 1 1M 8M 64M \
             | awk '{ print $4, $6 }') ;;
    jccl) jccl_times jccl "$root" ;;
    before) jccl_times before "$before" ;;
  esac
}
after_rep() {
  local size line="rep $rep (us):"
  for size in "${sizes[@]}"; do
    read -r -a m <<< "${times[mpi,$size]}"; read -r -a f <<< "${times[floor,$size]}"
    read -r -a j <<< "${times[jccl,$size]}"
    line+="  $size B: MPI ${m[-1]} floor ${f[-1]} JCCL ${j[-1]}"
    if [[ -n "$before" ]]; then
      read -r -a b <<< "${times[before,$size]}"
      line+=" before ${b[-1]}"
    fi
  done
  echo "$line"
}
runs=(mpi floor jccl)
[[ -z "$before" ]] || runs+=(before)
in_turns "${runs[@]}"
echo "# size: Open MPI tcp, UDP floor, JCCL metaroce: median (min-max) us; MPI/floor and MPI/JCCL (busbw ratios)"
for size in "${sizes[@]}"; do
  # shellcheck disable=SC2086
  read -r mm ml mh <<< "$(stats ${times[mpi,$size]})"
  # shellcheck disable=SC2086
  read -r fm fl fh <<< "$(stats ${times[floor,$size]})"
  # shellcheck disable=SC2086
  read -r jm jl jh <<< "$(stats ${times[jccl,$size]})"
  awk -v s="$size" -v mm="$mm" -v ml="$ml" -v mh="$mh" -v fm="$fm" -v fl="$fl" -v fh="$fh" -v jm="$jm" -v jl="$jl" \
    -v jh="$jh" 'BEGIN { printf "%9d B: MPI %s (%s-%s)  floor %s (%s-%s)  JCCL %s (%s-%s)  floor/MPI busbw %.2f  JCCL/MPI busbw %.2f\n",
      s, mm, ml, mh, fm, fl, fh, jm, jl, jh, mm / fm, mm / jm }'
done
if [[ -n "$before" ]]; then
  echo "# size: JCCL before ($before): median (min-max) us; before/JCCL (speed-up of this build)"
  for size in "${sizes[@]}"; do
    # shellcheck disable=SC2086
    read -r jm _ _ <<< "$(stats ${times[jccl,$size]})"
    # shellcheck disable=SC2086
    read -r bm bl bh <<< "$(stats ${times[before,$size]})"
    awk -v s="$size" -v jm="$jm" -v bm="$bm" -v bl="$bl" -v bh="$bh" \
      'BEGIN { printf "%9d B: before %s (%s-%s)  before/JCCL %.2f\n", s, bm, bl, bh, bm / jm }'
  done
fi
