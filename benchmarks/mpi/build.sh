#!/usr/bin/env bash
# Builds the MPI comparison benchmark benchmarks/target/mpi/allreduce_perf with mpicc. Without mpicc on the PATH
# it prints why it skipped and exits 0, so nothing else depends on MPI (install it: scripts/install-openmpi.sh).
# MPICC=/path/to/mpicc picks another wrapper compiler.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../target/mpi"
mpicc="${MPICC:-mpicc}"
if ! command -v "$mpicc" >/dev/null 2>&1; then
  echo "benchmarks/mpi/build.sh: skipped: '$mpicc' not found (install Open MPI: scripts/install-openmpi.sh)"
  exit 0
fi
mkdir -p "$out"
"$mpicc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -o "$out/allreduce_perf" \
  "$here/allreduce_perf.c"
echo "benchmarks/mpi/build.sh: built $(cd "$out" && pwd)/allreduce_perf"
