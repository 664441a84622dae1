#!/usr/bin/env bash
# The 8-byte all-reduce between two processes of this host in the steady state, three ways side by side, REPS times
# (default 3) in turns (each repetition starts one run later in the list), over shared memory and over loopback TCP:
#   Open MPI        mpirun --mca btl self,vader (or self,tcp) allreduce_perf -w W -n N 8
#   the JVM floor   io.jccl.bench.ShmExchangeFloor (one shared cache line per rank) or TcpExchangeFloor (one
#                   connection, non-blocking busy-polled reads): 8 bytes each way and nothing else; the last of its
#                   repetitions
#   JCCL            io.jccl.bench.AllReduceWindows 8 N 2 ip-first under jccl run with JCCL_NET=shm (or tcp): the last
#                   of four windows, mean and median call
# N is 1,000,000 calls for shared memory, 200,000 for TCP. Prints the medians, spreads and ratios to Open MPI.
#
# usage: benchmarks/mpi/small-floor.sh [--reps N] [--only shm|tcp]
# Measure only on a quiet machine (load average below 1, nothing else running). Needs Open MPI
# (scripts/install-openmpi.sh). Exit status: 0 done, 1 a run failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
reps=3
only=shm,tcp
# shellcheck source=../options.sh
. "$here/../options.sh"
parse_options 14 --reps=reps --only=only -- "$@"
need_positive --reps "$reps"
case "$only" in shm|tcp|shm,tcp|tcp,shm) ;; *) usage_error "--only must be shm or tcp" ;; esac

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl small-floor.sh
build_benchmarks small-floor.sh
java="$jdk/bin/java"
classes="$root/benchmarks/target/classes"

echo "# small-floor.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$reps repetitions, Open MPI / JVM floor / JCCL in turns"

field() {  # the number after WORD in TEXT
  awk -v w="$1" '{ for (k = 1; k < NF; k++) if ($k == w) print $(k + 1) }' <<< "$2"
}

# One run of NAME (mpi, floor or jccl) for the net measure() is at; its result goes to that run's list.
run_one() {
  local v f line last m d
  case "$1" in
    mpi)
      v="$(mpirun -np 2 --mca btl "$btl" --allow-run-as-root "$mpi_bin" -w $((calls / 5)) -n "$calls" 8 \
        | awk '!/^#/ && NF >= 8 { print $5 }')"
      check_results "$net repetition $rep: $label printed no time" "$v"
      echo "# $net repetition $rep: $label $v µs"
      mpi+=("$v") ;;
    floor)
      f="$("$java" -cp "$classes" "io.jccl.bench.$floor_class" "$floor_n" "$floor_reps" | awk '{ print $NF }')"
      check_results "$net repetition $rep: the JVM floor printed no time" "$f"
      echo "# $net repetition $rep: JVM floor $f µs"
      floor+=("$f") ;;
    jccl)
      line="$("$root/jccl" run -np 2 -x JCCL_NET="$net" -cp "$classes" -- io.jccl.bench.AllReduceWindows 8 "$calls" 2 \
        ip-first 2>/dev/null | grep '^\[0\]')"
      last="${line##*|}"   # the last window: " oop mean M median D p90 ..."
      m="$(field mean "$last")"
      d="$(field median "$last")"
      check_results "$net repetition $rep: JCCL printed no times ('$line')" "$m" "$d"
      echo "# $net repetition $rep: JCCL mean $m median $d µs"
      jmean+=("$m") jmedian+=("$d") ;;
  esac
}

measure() {  # net btl calls floor-class floor-exchanges floor-reps mpi-label
  net="$1" btl="$2" calls="$3" floor_class="$4" floor_n="$5" floor_reps="$6" label="$7"
  mpi=() floor=() jmean=() jmedian=()
  in_turns mpi floor jccl   # each repetition starts one run later in the list (prepare.sh)
  local vm vlo vhi fm flo fhi mm mlo mhi dm dlo dhi
  read -r vm vlo vhi <<< "$(stats "${mpi[@]}")"
  read -r fm flo fhi <<< "$(stats "${floor[@]}")"
  read -r mm mlo mhi <<< "$(stats "${jmean[@]}")"
  read -r dm dlo dhi <<< "$(stats "${jmedian[@]}")"
  rows+=("$(awk -v v="$vm" -v lo="$vlo" -v hi="$vhi" -v l="$label" 'BEGIN { printf "| %s | %s | %s-%s | 1 |", l, v, lo, hi }')")
  rows+=("$(awk -v v="$vm" -v x="$fm" -v lo="$flo" -v hi="$fhi" -v c="$floor_class" \
    'BEGIN { printf "| JVM floor (%s) | %s | %s-%s | %.2f |", c, x, lo, hi, x / v }')")
  rows+=("$(awk -v v="$vm" -v x="$mm" -v lo="$mlo" -v hi="$mhi" -v n="$net" \
    'BEGIN { printf "| JCCL %s, mean of the call times | %s | %s-%s | %.2f |", n, x, lo, hi, x / v }')")
  rows+=("$(awk -v v="$vm" -v x="$dm" -v lo="$dlo" -v hi="$dhi" -v n="$net" \
    'BEGIN { printf "| JCCL %s, median call | %s | %s-%s | %.2f |", n, x, lo, hi, x / v }')")
}

rows=()
if [[ ",$only," == *",shm,"* ]]; then
  measure shm self,vader 1000000 ShmExchangeFloor 1000000 5 "Open MPI vader"
fi
if [[ ",$only," == *",tcp,"* ]]; then
  measure tcp self,tcp 200000 TcpExchangeFloor 200000 4 "Open MPI tcp"
fi
echo
echo "| 8-byte all-reduce, 2 processes, steady state | µs, median | spread | / Open MPI |"
echo "|---|---:|---|---:|"
printf '%s\n' "${rows[@]}"
