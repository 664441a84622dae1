#!/usr/bin/env bash
# The 8-byte all-reduce with more ranks than cores (4 processes on this host's cores, as the README's command runs
# them), in the steady state, three ways side by side, REPS times (default 3) in turns (each repetition starts one run
# later in the list):
#   Open MPI                  mpirun -np 4 --oversubscribe --mca btl self,vader allreduce_perf -w 20000 -n 20000 8
#   JCCL, blocking at once    io.jccl.bench.CallTimeHistogram 8 20000 4 under jccl run -np 4, JCCL_YIELD_US=0 (a
#                             waiting caller hands over and blocks as soon as nothing progresses)
#   JCCL, default             the same with the automatic JCCL_YIELD_US (200 µs of yielding with fewer cores than
#                             ranks)
# JCCL's figure is the mean call of the last of four rounds of 20,000 calls (the JIT of four JVMs on two cores goes on
# through the first ones). Prints the medians, spreads and ratios to Open MPI.
#
# --net tcp runs both over TCP instead (Open MPI btl self,tcp; JCCL_NET=tcp).
#
# usage: benchmarks/mpi/oversubscribed.sh [--reps N] [--ranks N] [--net shm|tcp]
# Measure only on a quiet machine (load average below 1, nothing else running). Needs Open MPI
# (scripts/install-openmpi.sh). Exit status: 0 done, 1 a run failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
reps=3
ranks=4
net=shm
# shellcheck source=../options.sh
. "$here/../options.sh"
parse_options 17 --reps=reps --ranks=ranks --net=net -- "$@"
need_positive --reps "$reps"
case "$ranks" in ''|*[!0-9]*|0|1) usage_error "--ranks must be a number of at least 2" ;; esac
case "$net" in
  shm) btl=vader; jccl_net=() ;;
  tcp) btl=tcp; jccl_net=(-x JCCL_NET=tcp) ;;
  *) usage_error "--net must be shm or tcp, not '$net'" ;;
esac

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl oversubscribed.sh
build_benchmarks oversubscribed.sh
classes="$root/benchmarks/target/classes"
calls=20000

echo "# oversubscribed.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, $ranks ranks, load" \
  "$(cut -d' ' -f1-3 /proc/loadavg), $reps repetitions, $net, Open MPI / JCCL blocking / JCCL default in turns"

jccl_mean() {  # JCCL_YIELD_US value, or "auto": prints the last round's mean call in µs
  local env=()
  [ "$1" = auto ] || env=(-x "JCCL_YIELD_US=$1")
  "$root/jccl" run -np "$ranks" "${jccl_net[@]}" "${env[@]}" -cp "$classes" -- io.jccl.bench.CallTimeHistogram 8 "$calls" 4 2>/dev/null \
    | awk '/^\[0\] round 3:/ { for (k = 1; k < NF; k++) if ($k == "mean") print $(k + 1) }'
}

mpi=() blocking=() default=()
run_one() {
  local v
  case "$1" in
    mpi)
      v="$(mpirun -np "$ranks" --oversubscribe --mca btl "self,$btl" --allow-run-as-root "$mpi_bin" -w "$calls" \
        -n "$calls" 8 | awk '!/^#/ && NF >= 8 { print $5 }')"
      check_results "repetition $rep: Open MPI printed no time" "$v"
      echo "# repetition $rep: Open MPI $v µs"
      mpi+=("$v") ;;
    blocking)
      v="$(jccl_mean 0)"
      check_results "repetition $rep: JCCL (blocking at once) printed no time" "$v"
      echo "# repetition $rep: JCCL blocking at once $v µs"
      blocking+=("$v") ;;
    default)
      v="$(jccl_mean auto)"
      check_results "repetition $rep: JCCL (default) printed no time" "$v"
      echo "# repetition $rep: JCCL default $v µs"
      default+=("$v") ;;
  esac
}
in_turns mpi blocking default   # each repetition starts one run later in the list (prepare.sh)

read -r vm vlo vhi <<< "$(stats "${mpi[@]}")"
echo
echo "| 8-byte all-reduce, $ranks processes on $(nproc) cores, steady state | µs, median | spread | / Open MPI |"
echo "|---|---:|---|---:|"
echo "| Open MPI $btl (--oversubscribe) | $vm | $vlo-$vhi | 1 |"
row() {  # label values...
  local label="$1"; shift
  read -r m lo hi <<< "$(stats "$@")"
  awk -v l="$label" -v m="$m" -v lo="$lo" -v hi="$hi" -v v="$vm" 'BEGIN { printf "| %s | %s | %s-%s | %.2f |\n", l, m, lo, hi, m / v }'
}
row "JCCL, JCCL_YIELD_US=0 (block at once)" "${blocking[@]}"
row "JCCL, default (yield 200 µs, then block)" "${default[@]}"
