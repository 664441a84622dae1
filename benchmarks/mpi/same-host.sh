#!/usr/bin/env bash
# Within one host, JCCL against Open MPI (issue 15's measures), side by side: every measure runs MPI and JCCL in turns
# (MPI first in odd repetitions, JCCL in even ones), REPS times (default 3), and the report gives per measure the
# median and spread (min-max) of each and the ratio of the medians against the target. fp32 sum all-reduce; 2 ranks
# (each a process) unless said otherwise.
#
#   shm 8 B time          jccl perf --transport shm -w 2000 -n 5000   vs mpirun --mca btl self,vader   target <= 2x
#   shm 1 MiB, 8 MiB busbw  (-w 100 -n 200)                          vs vader                        target >= 1.0x
#   shm -R 1 1 MiB, 8 MiB   (buffers the communicator allocated)     vs vader                        target >= 1.2x
#   tcp 8 B time                                                      vs mpirun --mca btl self,tcp    target <= 1.0x
#   tcp 1 MiB, 8 MiB busbw                                            vs tcp                          target >= 1.2x
#   out-of-place / in-place time at 1 MiB and 8 MiB (shm)                                           target <= 1.1
#   cold start: 8 MiB busbw with default flags / with -w 300 -n 50 (shm)                            target >= 0.67
#   README command, 4 ranks on this host: 8 B time, 8 MiB busbw    vs mpirun -np 4 --oversubscribe vader
#                                                                   targets <= 4x and >= 0.8x
#
# usage: benchmarks/mpi/same-host.sh [--reps N] [--only LIST] [--quick | --steady]
#   --only   comma-separated subset of: shm,shmreg,tcp,cold,readme (default all; shm,shmreg,tcp with --steady)
#   --quick  fewer iterations (a smoke run, not a measurement)
#   --steady the steady state instead of issue 15's short runs: 8 B with -w 300000 -n 1000000, 1 MiB with -w 20000
#            -n 10000, 8 MiB with -w 2000 -n 1000 (in runs of their own), both sides (what the data paths do once the
#            JVMs' JIT has finished; fewer calls still carried its stalls); about 15 minutes
# Measure only on a quiet machine (load average below 1, nothing else running); the script prints the load first.
# Needs Open MPI (scripts/install-openmpi.sh). Exit status: 0 done (whether targets are met or not), 1 a run failed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../options.sh
. "$here/../options.sh"
reps=3
only=shm,shmreg,tcp,cold,readme
quick=0
steady=0
only_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="${2:?--reps needs a number}"; shift 2 ;;
    --only) only="${2:?--only needs a list}"; only_given=1; shift 2 ;;
    --quick) quick=1; shift ;;
    --steady) steady=1; shift ;;
    -h|--help) show_help 24 ;;
    *) usage_error "unknown option '$1' (try --help)" ;;
  esac
done
need_positive --reps "$reps"
want() { [[ ",$only," == *",$1,"* ]]; }

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl same-host.sh

small_iters=(-w 2000 -n 5000)
large_iters=(-w 100 -n 200)
readme_iters=(-w 5 -n 20)
if [ "$quick" = 1 ]; then
  small_iters=(-w 100 -n 200)
  large_iters=(-w 5 -n 10)
fi
mid_iters=("${large_iters[@]}")   # 1 MiB; the short runs time 1 MiB and 8 MiB in one run, as issue 15 defines them
if [ "$steady" = 1 ]; then
  # Long enough that the JIT of both rank JVMs is done before the timing starts: -w 2000 at 1 MiB was not.
  small_iters=(-w 300000 -n 1000000)
  mid_iters=(-w 20000 -n 10000)
  large_iters=(-w 2000 -n 1000)
  [ "$only_given" = 1 ] || only=shm,shmreg,tcp   # cold start and the README command are defined by their short runs
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
results="$work/results.tsv"   # measure <tab> rep <tab> value

# 1 MiB and 8 MiB, MPI or JCCL (their output lines appended): one run with the short runs' counts, two in steady state.
large() {  # mpi|jccl args... (the sizes are added)
  local side="$1"; shift
  if [ "${mid_iters[*]}" = "${large_iters[*]}" ]; then
    if [ "$side" = mpi ]; then mpi "$@" "${large_iters[@]}" 1M 8M; else jccl "$@" -b 1M -e 8M -f 8 "${large_iters[@]}"; fi
  elif [ "$side" = mpi ]; then
    mpi "$@" "${mid_iters[@]}" 1M && mpi "$@" "${large_iters[@]}" 8M
  else
    jccl "$@" -b 1M -e 1M "${mid_iters[@]}" && jccl "$@" -b 8M -e 8M "${large_iters[@]}"
  fi
}

# MPI: prints "size time busbw" per data line.
mpi() {  # np btl iters... -- sizes...
  local np="$1" btl="$2"; shift 2
  local extra=()
  [ "$np" -gt 2 ] && extra=(--oversubscribe)
  mpirun -np "$np" "${extra[@]}" --mca btl "$btl" --allow-run-as-root ${MPIRUN_ARGS:-} "$mpi_bin" "$@" \
    | awk '!/^#/ && NF >= 8 { print $1, $5, $7 }'
}
# JCCL: prints "size oop_time oop_busbw ip_time ip_busbw" per data line.
jccl() {  # jccl perf options...
  "$root/jccl" perf all_reduce "$@" | awk '!/^#/ && NF >= 13 { print $1, $6, $8, $10, $12 }'
}
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$results"; }
field() { awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$3"; }
# The 1 MiB and 8 MiB busbw in one side's output FILE, recorded as PREFIX.1M.busbw and PREFIX.8M.busbw.
record_large() {  # prefix file
  record "$1.1M.busbw" "$rep" "$(field 1048576 3 "$2")"
  record "$1.8M.busbw" "$rep" "$(field 8388608 3 "$2")"
}
# Each side of a measure is a function of its own; in_turn (prepare.sh) runs MPI's first in odd repetitions and JCCL's
# in even ones.
run_one() { "$1"; }
# 2 ranks, MPI over BTL and JCCL over TRANSPORT: the 8 B time and the 1 MiB and 8 MiB busbw, recorded under NAME
# (JCCL's large sizes stay in $work/j).
two_ranks() {  # name btl transport
  pair_name="$1" pair_btl="$2" pair_transport="$3"
  in_turn two_ranks_mpi two_ranks_jccl
}
two_ranks_mpi() {
  mpi 2 "$pair_btl" "${small_iters[@]}" 8 > "$work/m"; record "mpi.$pair_name.8B.us" "$rep" "$(field 8 2 "$work/m")"
  large mpi 2 "$pair_btl" > "$work/m"
  record_large "mpi.$pair_name" "$work/m"
}
two_ranks_jccl() {
  jccl -np 2 -b 8 -e 8 "${small_iters[@]}" --transport "$pair_transport" > "$work/j"
  record "jccl.$pair_name.8B.us" "$rep" "$(field 8 2 "$work/j")"
  large jccl -np 2 --transport "$pair_transport" > "$work/j"
  record_large "jccl.$pair_name" "$work/j"
}
shmreg_mpi() { large mpi 2 self,vader > "$work/m"; record_large mpi.shmreg "$work/m"; }
shmreg_jccl() { large jccl -np 2 --transport shm -R 1 > "$work/j"; record_large jccl.shmreg "$work/j"; }
cold_run() { jccl -np 2 -b 8M -e 8M --transport shm > "$work/c"; record jccl.cold.8M.busbw "$rep" "$(field 8388608 3 "$work/c")"; }
warm_run() {
  jccl -np 2 -b 8M -e 8M -w 300 -n 50 --transport shm > "$work/c"
  record jccl.warm.8M.busbw "$rep" "$(field 8388608 3 "$work/c")"
}
readme_mpi() {
  mpi 4 self,vader "${readme_iters[@]}" 8 8M > "$work/m"
  record mpi.readme.8B.us "$rep" "$(field 8 2 "$work/m")"
  record mpi.readme.8M.busbw "$rep" "$(field 8388608 3 "$work/m")"
}
readme_jccl() {
  jccl -np 4 -b 8 -e 64M -f 4 > "$work/r"
  record jccl.readme.8B.us "$rep" "$(field 8 2 "$work/r")"
  record jccl.readme.8M.busbw "$rep" "$(field 8388608 3 "$work/r")"
}

echo "# same-host.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$(mpirun --version 2>/dev/null | head -n 1), $reps repetitions, MPI and JCCL in turns" \
  "$([ "$steady" = 1 ] && echo "(steady state: ${small_iters[*]} at 8 B, ${mid_iters[*]} at 1 MiB, ${large_iters[*]} at 8 MiB)")"

for ((rep = 1; rep <= reps; rep++)); do
  echo "# repetition $rep of $reps" >&2
  if want shm; then
    two_ranks shm self,vader shm
    record jccl.shm.1M.oop_over_ip "$rep" "$(awk '$1 == 1048576 { printf "%.3f", $2 / $4 }' "$work/j")"
    record jccl.shm.8M.oop_over_ip "$rep" "$(awk '$1 == 8388608 { printf "%.3f", $2 / $4 }' "$work/j")"
  fi
  if want shmreg; then
    if "$root/jccl" perf --help 2>&1 | grep -q -- '-R'; then
      in_turn shmreg_mpi shmreg_jccl
    else
      echo "# shmreg skipped: this jccl perf has no -R (registered buffers)" >&2
    fi
  fi
  if want tcp; then
    two_ranks tcp self,tcp tcp
  fi
  if want cold; then
    in_turn cold_run warm_run
  fi
  if want readme; then
    in_turn readme_mpi readme_jccl
  fi
done

# Medians and spreads (sort, no gawk needed), then the ratios against the targets.
summary="$work/summary.tsv"   # measure <tab> median <tab> min <tab> max
for key in $(cut -f1 "$results" | sort -u); do
  mapfile -t vals < <(awk -F'\t' -v k="$key" '$1 == k && $3 != "" { print $3 }' "$results" | sort -g)
  n=${#vals[@]}
  [ "$n" -eq 0 ] && continue
  if (( n % 2 )); then median=${vals[$(( n / 2 ))]}; else
    median=$(awk -v a="${vals[$(( n / 2 - 1 ))]}" -v b="${vals[$(( n / 2 ))]}" 'BEGIN { print (a + b) / 2 }'); fi
  printf '%s\t%s\t%s\t%s\n' "$key" "$median" "${vals[0]}" "${vals[$(( n - 1 ))]}" >> "$summary"
done
echo
echo "| measure | median | spread (min-max) |"
echo "|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s-%s |\n", $1, $2, $3, $4 }' "$summary"
echo
echo "| ratio of medians | value | target | |"
echo "|---|---|---|---|"
ratio() {  # name numerator-key denominator-key(or -) comparison target
  awk -F'\t' -v name="$1" -v a="$2" -v b="$3" -v cmp="$4" -v t="$5" '
    { med[$1] = $2 }
    END {
      if (!(a in med)) exit
      if (b == "-") x = med[a]; else { if (!(b in med) || med[b] == 0) exit; x = med[a] / med[b] }
      ok = cmp == "<=" ? x <= t : x >= t
      printf "| %s | %.2f | %s %s | %s |\n", name, x, cmp, t, ok ? "met" : "missed"
    }' "$summary"
}
ratio "shm 8 B: JCCL time / vader time" jccl.shm.8B.us mpi.shm.8B.us "<=" 2
ratio "shm 1 MiB busbw: JCCL / vader" jccl.shm.1M.busbw mpi.shm.1M.busbw ">=" 1.0
ratio "shm 8 MiB busbw: JCCL / vader" jccl.shm.8M.busbw mpi.shm.8M.busbw ">=" 1.0
ratio "shm -R 1, 1 MiB busbw: JCCL / vader" jccl.shmreg.1M.busbw mpi.shmreg.1M.busbw ">=" 1.2
ratio "shm -R 1, 8 MiB busbw: JCCL / vader" jccl.shmreg.8M.busbw mpi.shmreg.8M.busbw ">=" 1.2
ratio "tcp 8 B: JCCL time / MPI tcp time" jccl.tcp.8B.us mpi.tcp.8B.us "<=" 1.0
ratio "tcp 1 MiB busbw: JCCL / MPI tcp" jccl.tcp.1M.busbw mpi.tcp.1M.busbw ">=" 1.2
ratio "tcp 8 MiB busbw: JCCL / MPI tcp" jccl.tcp.8M.busbw mpi.tcp.8M.busbw ">=" 1.2
ratio "out-of-place / in-place time, 1 MiB (shm)" jccl.shm.1M.oop_over_ip - "<=" 1.1
ratio "out-of-place / in-place time, 8 MiB (shm)" jccl.shm.8M.oop_over_ip - "<=" 1.1
ratio "cold start: 8 MiB busbw, default flags / -w 300 -n 50" jccl.cold.8M.busbw jccl.warm.8M.busbw ">=" 0.67
ratio "README 4 ranks, 8 B: JCCL time / vader time" jccl.readme.8B.us mpi.readme.8B.us "<=" 4
ratio "README 4 ranks, 8 MiB busbw: JCCL / vader" jccl.readme.8M.busbw mpi.readme.8M.busbw ">=" 0.8
