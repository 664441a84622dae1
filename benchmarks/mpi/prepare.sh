# Sourced by the benchmarks beside Open MPI (same-host.sh, placed.sh, small-floor.sh, tcp-bulk.sh, oversubscribed.sh,
# udp-floor.sh, metaroce-small.sh, placed-bulk.sh, metaroce-medium.sh; spin-settings.sh for in_turns) after $root and
# $here are set:
#   prepare_mpi_and_jccl NAME
# builds benchmarks/target/mpi/allreduce_perf (sets mpi_bin), checks that Open MPI is installed, lets mpirun run as
# root, and builds JCCL (and its AOT cache) before anything is timed. Exits 1, naming NAME, when Open MPI is missing.
prepare_mpi_and_jccl() {
  local name="$1"
  "$here/build.sh" >/dev/null
  mpi_bin="$root/benchmarks/target/mpi/allreduce_perf"
  if [ ! -x "$mpi_bin" ] || ! command -v mpirun >/dev/null 2>&1; then
    echo "$name: Open MPI is needed (mpicc, mpirun): run scripts/install-openmpi.sh" >&2
    exit 1
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  "$root/jccl" version >/dev/null
}

# prepare_comparison DEFAULT_REPS [REPS [BEFORE]]: what the scripts that take REPS and another checkout BEFORE do first
# (udp-floor.sh, placed-bulk.sh, metaroce-small.sh): sets reps (DEFAULT_REPS when REPS is empty or not given) and
# before, checks them (check_reps_and_before), then prepare_mpi_and_jccl; messages name the script.
prepare_comparison() {
  local name="${BASH_SOURCE[-1]##*/}"
  reps="${2:-$1}"
  before="${3:-}"
  check_reps_and_before "$name" "$reps" "$before"
  prepare_mpi_and_jccl "$name"
}

# prepare_placement: compiles benchmarks/mpi/core_round_trip.c and defines placement (prints "near" or "far": where
# the host runs the two vCPUs now) and quiet (waits until the 1-minute load average is below 1), for the scripts that
# tag each run by placement and start it on a quiet host (placed-bulk.sh, metaroce-medium.sh, metaroce-small.sh).
prepare_placement() {
  probe="$root/benchmarks/target/mpi/core_round_trip"
  mkdir -p "$(dirname "$probe")"
  "${CC:-cc}" -O2 -std=c11 -Wall -Wextra -Werror -pthread -o "$probe" "$here/core_round_trip.c"
  placement() { "$probe" | awk '{ print $2 }'; }
  quiet() { while [ "$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)" != "0" ]; do sleep 3; done; }
}

# check_reps_and_before NAME REPS BEFORE: exits 2, naming NAME, unless REPS is a positive number and BEFORE is empty
# or another checkout of JCCL with an executable ./jccl (the build compared against).
check_reps_and_before() {
  case "$2" in ''|*[!0-9]*|0) echo "$1: REPS must be a positive number" >&2; exit 2 ;; esac
  if [[ -n "$3" && ! -x "$3/jccl" ]]; then
    echo "$1: BEFORE '$3' is not a JCCL checkout (no executable $3/jccl)" >&2
    exit 2
  fi
}

# build_udp_exchange_floor NAME: compiles and runs benchmarks/mpi/crc32c_check.c (the CRC32C of the checked floor,
# crc32c.h, against its definition: checks only, about a second), then compiles benchmarks/mpi/udp_exchange_floor.c
# (sets floor to the binary); exits 1, naming NAME, when either does not compile or the check fails.
build_udp_exchange_floor() {
  local check="$root/benchmarks/target/mpi/crc32c_check" out
  floor="$root/benchmarks/target/mpi/udp_exchange_floor"
  mkdir -p "$(dirname "$floor")"
  if ! "${CC:-cc}" -O3 -march=native -std=c11 -Wall -Wextra -Werror -o "$check" "$here/crc32c_check.c"; then
    echo "$1: compiling benchmarks/mpi/crc32c_check.c failed (CC=${CC:-cc})" >&2
    exit 1
  fi
  if ! out="$("$check" -q 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "$1: benchmarks/mpi/crc32c_check failed: crc32c.h computes a wrong CRC32C, no floor is measured with it" >&2
    exit 1
  fi
  if ! "${CC:-cc}" -O3 -march=native -std=c11 -Wall -Wextra -Werror -o "$floor" "$here/udp_exchange_floor.c"; then
    echo "$1: compiling benchmarks/mpi/udp_exchange_floor.c failed (CC=${CC:-cc})" >&2
    exit 1
  fi
}

# build_benchmarks NAME: builds the benchmark classes (sets jdk to the JDK used); exits 1, naming NAME, on failure.
build_benchmarks() {
  jdk="$("$root/scripts/find-jdk.sh")"
  if ! (cd "$root" && JAVA_HOME="$jdk" ./mvnw -q -B -pl benchmarks -am package -DskipTests >/dev/null); then
    echo "$1: building the benchmarks failed (./mvnw -pl benchmarks -am package)" >&2
    exit 1
  fi
}

# in_turn NAME...: calls run_one NAME for every name given, repetition $rep starting $rep - 1 names later in the list,
# so that over as many repetitions as names every run takes every slot (back to back, the same code read up to 1.7x
# slower in the second of two slots, docs/performance.md).
in_turn() {
  local names=("$@") i
  for ((i = 0; i < ${#names[@]}; i++)); do
    run_one "${names[(i + rep - 1) % ${#names[@]}]}"
  done
}

# in_turns NAME...: in_turn NAME... for $rep from 1 to $reps; after each repetition after_rep, when the script defines
# one.
in_turns() {
  for ((rep = 1; rep <= reps; rep++)); do
    in_turn "$@"
    if declare -F after_rep >/dev/null; then after_rep; fi
  done
}

# stats VALUE...: prints the median, the smallest and the largest value.
stats() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%s %s %s", a[int((NR + 1) / 2)], a[1], a[NR] }'; }

# check_results MESSAGE VALUE...: exits 1 with "SCRIPT: MESSAGE" on standard error when a VALUE is empty (a run
# printed nothing the script could read).
check_results() {
  local message="$1" value
  shift
  for value in "$@"; do
    if [ -z "$value" ]; then
      echo "${BASH_SOURCE[-1]##*/}: $message" >&2
      exit 1
    fi
  done
}
