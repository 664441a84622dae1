#!/usr/bin/env bash
# The 8-byte all-reduce between two processes of this host in the steady state, three ways side by side, alternating
# REPS times (default 3): Open MPI's vader (mpirun --mca btl self,vader, -w 20000 -n 1000000), the floor a JVM
# reaches (io.jccl.bench.ShmExchangeFloor: one shared cache line per rank, nothing else; its last of 5 repetitions
# of 1,000,000) and JCCL's shm transport (io.jccl.bench.AllReduceWindows 8 1000000 2 ip-first under jccl run: the
# last of four windows of 1,000,000 calls, mean and median). Prints the medians, spreads and ratios.
#
# usage: benchmarks/mpi/small-floor.sh [--reps N]
# Measure only on a quiet machine (load average below 1, nothing else running). Needs Open MPI
# (scripts/install-openmpi.sh). Exit status: 0 done, 1 a run failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="${2:?--reps needs a number}"; shift 2 ;;
    -h|--help) sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "small-floor.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$reps" in ''|*[!0-9]*|0) echo "small-floor.sh: --reps must be a positive number" >&2; exit 2 ;; esac

# shellcheck source=prepare.sh
. "$here/prepare.sh"
prepare_mpi_and_jccl small-floor.sh
jdk="$("$root/scripts/find-jdk.sh")"
if ! (cd "$root" && JAVA_HOME="$jdk" ./mvnw -q -B -pl benchmarks -am package -DskipTests >/dev/null); then
  echo "small-floor.sh: building the benchmarks failed (./mvnw -pl benchmarks -am package)" >&2
  exit 1
fi
java="$jdk/bin/java"
classes="$root/benchmarks/target/classes"

echo "# small-floor.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$reps repetitions, vader / JVM floor / JCCL shm alternating"
vader=() floor=() jmean=() jmedian=()
for ((i = 1; i <= reps; i++)); do
  v="$(mpirun -np 2 --mca btl self,vader --allow-run-as-root "$mpi_bin" -w 20000 -n 1000000 8 \
    | awk '!/^#/ && NF >= 8 { print $5 }')"
  f="$("$java" -cp "$classes" io.jccl.bench.ShmExchangeFloor 1000000 5 | awk '{ print $NF }')"
  line="$("$root/jccl" run -np 2 -x JCCL_NET=shm -cp "$classes" -- io.jccl.bench.AllReduceWindows 8 1000000 2 ip-first \
    2>/dev/null | grep '^\[0\]')"
  last="${line##*|}"   # the last window: " oop mean M median D p90 ..."
  m="$(awk '{ for (k = 1; k < NF; k++) if ($k == "mean") print $(k + 1) }' <<< "$last")"
  d="$(awk '{ for (k = 1; k < NF; k++) if ($k == "median") print $(k + 1) }' <<< "$last")"
  if [ -z "$v" ] || [ -z "$f" ] || [ -z "$m" ] || [ -z "$d" ]; then
    echo "small-floor.sh: repetition $i failed (vader '$v', floor '$f', JCCL '$line')" >&2
    exit 1
  fi
  echo "# repetition $i: vader $v µs, JVM floor $f µs, JCCL shm mean $m median $d µs"
  vader+=("$v") floor+=("$f") jmean+=("$m") jmedian+=("$d")
done
stats() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%s %s %s", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
read -r vm vlo vhi <<< "$(stats "${vader[@]}")"
read -r fm flo fhi <<< "$(stats "${floor[@]}")"
read -r mm mlo mhi <<< "$(stats "${jmean[@]}")"
read -r dm dlo dhi <<< "$(stats "${jmedian[@]}")"
echo
echo "| 8-byte all-reduce, 2 processes, steady state | µs, median | spread | / vader |"
echo "|---|---:|---|---:|"
awk -v v="$vm" 'BEGIN { printf "| Open MPI vader | %s | %s-%s | 1 |\n", v, ARGV[1], ARGV[2] }' "$vlo" "$vhi"
awk -v v="$vm" -v x="$fm" 'BEGIN { printf "| JVM floor (ShmExchangeFloor) | %s | %s-%s | %.2f |\n", x, ARGV[1], ARGV[2], x / v }' "$flo" "$fhi"
awk -v v="$vm" -v x="$mm" 'BEGIN { printf "| JCCL shm, mean of the call times | %s | %s-%s | %.2f |\n", x, ARGV[1], ARGV[2], x / v }' "$mlo" "$mhi"
awk -v v="$vm" -v x="$dm" 'BEGIN { printf "| JCCL shm, median call | %s | %s-%s | %.2f |\n", x, ARGV[1], ARGV[2], x / v }' "$dlo" "$dhi"
