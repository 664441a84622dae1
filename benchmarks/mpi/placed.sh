#!/usr/bin/env bash
# JCCL against Open MPI within one host, 2 ranks, fp32 sum all-reduce, told apart by where the host ran the two vCPUs.
#
# Why: on the 2-vCPU VMs this project is measured on, the hypervisor runs the two vCPUs either on cores that share a
# last-level cache (a cache line's round trip between them about 70 ns) or on cores that do not (about 340 ns), and
# switches every few seconds to minutes. A 1 MiB call costs about five times as much in the second placement, in
# Open MPI and in JCCL alike, so a whole run's mean says more about the mix of placements it met than about either
# library. Here benchmarks/mpi/core_round_trip --watch looks at the placement every PERIOD ms while each run times its
# calls in windows (allreduce_perf -t, io.jccl.bench.PlacedAllReduce), and every window is counted under the placement
# that held from the look before it to the look after it (near, far; windows across a switch are left out).
#
# Measures (MPI, JCCL and any floor in turns, REPS times each, steady state: long warm-ups):
#   shm8 shm1m shm8m     --mca btl self,vader   against JCCL_NET=shm (8 B, 1 MiB, 8 MiB)
#   shmreg1m shmreg8m    vader                  against shm with buffers from Communicator.allocate
#   tcp8 tcp1m tcp8m     --mca btl self,tcp     against JCCL_NET=tcp
# JCCL's windows alternate out of place and in place (the same host for both); MPI's are out of place. The report
# gives per measure and placement the median µs per call over the windows of all repetitions (their count and
# interquartile range), JCCL out of place against MPI as issue 15 states its targets (time ratios for 8 B, bandwidth
# ratios otherwise), and JCCL's out-of-place / in-place time. shm1m and shm8m also run the copy floor
# (benchmarks/mpi/ring_floor.c: two pinned C processes doing the ring's copies through shared memory and nothing
# else, windows alternating out of place and in place), shmreg1m and shmreg8m the direct-read floor
# (placement_floor.c: two pinned threads reading each other's buffers in place, as registered buffers allow): a second
# table sets their out-of-place / in-place time per placement beside JCCL's, the least each design can have here.
#
# usage: benchmarks/mpi/placed.sh [--reps N] [--only LIST] [--period MS] [--jccl-env KEY=VALUE]...
#   --reps   repetitions (default 3)          --only  comma-separated measures (default all)
#   --period ms between placement looks (default 10)
#   --jccl-env  an environment variable for JCCL's ranks (jccl run -x), e.g. JCCL_SOCKET_DUPLEX=0; may repeat
# Measure only on a quiet machine (load average below 1). Needs Open MPI (scripts/install-openmpi.sh) and a C compiler.
# Exit status: 0 done (targets met or not), 1 a run failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../options.sh
. "$here/../options.sh"
reps=3
period=10
only=shm8,shm1m,shm8m,shmreg1m,shmreg8m,tcp8,tcp1m,tcp8m
jccl_env=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="${2:?--reps needs a number}"; shift 2 ;;
    --only) only="${2:?--only needs a list}"; shift 2 ;;
    --period) period="${2:?--period needs milliseconds}"; shift 2 ;;
    --jccl-env)
      [[ "${2:-}" == JCCL_*=* ]] || usage_error "--jccl-env needs JCCL_NAME=VALUE, not '${2:-}'"
      jccl_env+=(-x "$2"); shift 2 ;;
    -h|--help) show_help 28 ;;
    *) usage_error "unknown option '$1' (try --help)" ;;
  esac
done
need_positive --reps "$reps"
case "$period" in ''|*[!0-9]*|0) usage_error "--period must be a positive number of milliseconds" ;; esac
all=" shm8 shm1m shm8m shmreg1m shmreg8m tcp8 tcp1m tcp8m "
IFS=',' read -r -a measures <<< "$only"
for m in "${measures[@]}"; do
  [[ "$all" == *" $m "* ]] || usage_error "unknown measure '$m' (known:$all)"
done

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl placed.sh
build_benchmarks placed.sh
probe="$root/benchmarks/target/mpi/core_round_trip"
if ! "${CC:-cc}" -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "$probe" "$here/core_round_trip.c"; then
  echo "placed.sh: compiling benchmarks/mpi/core_round_trip.c failed (CC=${CC:-cc})" >&2
  exit 1
fi
copy_floor="$root/benchmarks/target/mpi/ring_floor"
direct_floor="$root/benchmarks/target/mpi/placement_floor"
for floor in ring_floor placement_floor; do
  if ! "${CC:-cc}" -O3 -march=native -std=c11 -Wall -Wextra -Werror -pthread -o "$root/benchmarks/target/mpi/$floor" \
      "$here/$floor.c"; then
    echo "placed.sh: compiling benchmarks/mpi/$floor.c failed (CC=${CC:-cc})" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
watcher=""
cleanup() { [ -z "$watcher" ] || kill -TERM "$watcher" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
windows="$work/windows"   # measure side placement us tag

# The calls of each measure: size, transport, MPI's warm-up/timed/window, JCCL's warm-up/timed/window (JCCL's JIT
# needs more warm-up than C; its window alternates, so it times twice the calls for the same out-of-place windows).
plan() {
  case "$1" in
    shm8|tcp8)   echo "8 $([ "$1" = shm8 ] && echo shm || echo tcp)" ;;
    shm1m|shmreg1m|tcp1m) echo "1M $([[ "$1" == tcp* ]] && echo tcp || echo shm)" ;;
    shm8m|shmreg8m|tcp8m) echo "8M $([[ "$1" == tcp* ]] && echo tcp || echo shm)" ;;
  esac
}
iters() {  # measure -> "mpi_warmup mpi_timed mpi_window jccl_warmup jccl_timed jccl_window"
  case "$1" in
    shm8)  echo "20000 200000 20000 300000 400000 20000" ;;
    tcp8)  echo "2000 20000 2000 100000 40000 2000" ;;
    *1m)   echo "2000 10000 200 20000 20000 200" ;;
    *8m)   echo "200 1000 20 2000 2000 20" ;;
  esac
}

watch_start() { "$probe" --watch "$period" > "$work/looks" & watcher=$!; }
watch_stop() { kill -TERM "$watcher"; wait "$watcher" || true; watcher=""; }
join() {  # measure side output-file
  awk -f "$here/placement-join.awk" "$work/looks" "$3" \
    | awk -v m="$1" -v s="$2" '$1 == "near" || $1 == "far" { print m, s, $1, $2, $3 }' >> "$windows"
}

echo "# placed.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$(mpirun --version 2>/dev/null | head -n 1), $reps repetitions, MPI and JCCL in turns, placement looked at every" \
  "$period ms${jccl_env[*]:+, JCCL ranks with ${jccl_env[*]}}"
# One side of measure $m (mpi, jccl or floor), its windows joined to the placement looks taken while it ran.
run_one() {
  watch_start
  case "$1" in
    mpi)
      if ! mpirun -np 2 --mca btl "$btl" --allow-run-as-root ${MPIRUN_ARGS:-} "$mpi_bin" -w "$mw" -n "$mn" -t "$mt" \
          "$size" > "$work/out"; then
        echo "placed.sh: the MPI run of $m failed" >&2; exit 1
      fi ;;
    jccl)
      extra=()
      [[ "$m" == shmreg* ]] && extra=(registered)
      if ! "$root/jccl" run -np 2 -x "JCCL_NET=$net" "${jccl_env[@]}" -cp "$root/benchmarks/target/classes" -- \
          io.jccl.bench.PlacedAllReduce "$size" "$jw" "$jn" "$jt" alternate "${extra[@]}" > "$work/out" 2>&1; then
        echo "placed.sh: the JCCL run of $m failed:" >&2; tail -n 20 "$work/out" >&2; exit 1
      fi ;;
    floor)
      if ! "$floor" -w "$jw" -n "$((jn / 2))" -t "$jt" "$size" > "$work/out"; then
        echo "placed.sh: the floor ($(basename "$floor")) of $m failed" >&2; exit 1
      fi ;;
  esac
  watch_stop
  join "$m" "$1" "$work/out"
}

for ((rep = 1; rep <= reps; rep++)); do
  for m in "${measures[@]}"; do
    read -r size net <<< "$(plan "$m")"
    read -r mw mn mt jw jn jt <<< "$(iters "$m")"
    btl=$([ "$net" = shm ] && echo self,vader || echo self,tcp)
    echo "# repetition $rep of $reps: $m" >&2
    floor=""
    case "$m" in shm1m|shm8m) floor="$copy_floor" ;; shmreg1m|shmreg8m) floor="$direct_floor" ;; esac
    sides=(mpi jccl)
    [ -z "$floor" ] || sides+=(floor)
    in_turn "${sides[@]}"
  done
done

# Per measure and placement: median and quartiles of the windows' µs per call, each side (JCCL's out of place and in
# place apart), then the ratios.
echo
echo "| measure | placement | Open MPI µs/call (windows; p25-p75) | JCCL out of place | JCCL in place | JCCL / MPI (target) | oop / ip (target <= 1.1) |"
echo "|---|---|---|---|---|---|---|"
quartiles() {  # values on stdin -> "median count p25 p75" or nothing
  sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s %d %s %s", v[int((NR + 1) / 2)], NR, v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
}
windows_stats() {  # measure side placement [tag] -> quartiles of the matching windows' µs per call, or nothing
  awk -v m="$1" -v s="$2" -v p="$3" -v t="${4:-}" '$1 == m && $2 == s && $3 == p && (t == "" || $5 == t) { print $4 }' \
    "$windows" | quartiles
}
cell() { if [ -n "$1" ]; then echo "$1 ($2; $3-$4)"; else echo "no windows"; fi; }
for m in "${measures[@]}"; do
  for placement in near far; do
    read -r mm mc m25 m75 <<< "$(windows_stats "$m" mpi "$placement")" || true
    read -r jm jc j25 j75 <<< "$(windows_stats "$m" jccl "$placement" oop)" || true
    read -r im ic i25 i75 <<< "$(windows_stats "$m" jccl "$placement" ip)" || true
    [ -n "${mm:-}" ] || [ -n "${jm:-}" ] || continue
    case "$m" in
      shm8) kind=time cmp="<=" target=2 ;;
      tcp8) kind=time cmp="<=" target=1 ;;
      shm1m|shm8m) kind=busbw cmp=">=" target=1.0 ;;
      *) kind=busbw cmp=">=" target=1.2 ;;
    esac
    ratio="-"
    if [ -n "${mm:-}" ] && [ -n "${jm:-}" ]; then
      # busbw ratio = MPI time / JCCL time (same size, same bus factor)
      ratio="$(awk -v j="$jm" -v m="$mm" -v k="$kind" -v c="$cmp" -v t="$target" 'BEGIN {
        x = k == "time" ? j / m : m / j; ok = c == "<=" ? x <= t : x >= t
        printf "%.2f %s (%s %s): %s", x, k, c, t, ok ? "met" : "missed" }')"
    fi
    oi="-"
    [ -n "${jm:-}" ] && [ -n "${im:-}" ] && oi="$(awk -v a="$jm" -v b="$im" 'BEGIN {
      printf "%.2f: %s", a / b, a / b <= 1.1 ? "met" : "missed" }')"
    echo "| $m | $placement | $(cell "${mm:-}" "${mc:-}" "${m25:-}" "${m75:-}") | $(cell "${jm:-}" "${jc:-}" "${j25:-}" "${j75:-}")" \
      "| $(cell "${im:-}" "${ic:-}" "${i25:-}" "${i75:-}") | $ratio | $oi |"
    mm="" jm="" im=""
  done
done

if awk '$2 == "floor" { found = 1 } END { exit !found }' "$windows"; then
  echo
  echo "| measure | placement | floor out of place µs (windows) | floor in place | floor oop / ip | JCCL oop / ip |"
  echo "|---|---|---|---|---|---|"
  for m in shm1m shm8m shmreg1m shmreg8m; do
    for placement in near far; do
      read -r f_oop f_oop_n _ <<< "$(windows_stats "$m" floor "$placement" oop)" || true
      read -r f_ip f_ip_n _ <<< "$(windows_stats "$m" floor "$placement" ip)" || true
      read -r jm _ <<< "$(windows_stats "$m" jccl "$placement" oop)" || true
      read -r im _ <<< "$(windows_stats "$m" jccl "$placement" ip)" || true
      [ -n "${f_oop:-}" ] && [ -n "${f_ip:-}" ] || { f_oop="" f_ip="" jm="" im=""; continue; }
      jr="-"
      [ -n "${jm:-}" ] && [ -n "${im:-}" ] && jr="$(awk -v a="$jm" -v b="$im" 'BEGIN { printf "%.2f", a / b }')"
      echo "| $m | $placement | $f_oop ($f_oop_n) | $f_ip ($f_ip_n) | $(awk -v a="$f_oop" -v b="$f_ip" 'BEGIN { printf "%.2f", a / b }') | $jr |"
      f_oop="" f_ip="" jm="" im=""
    done
  done
fi
