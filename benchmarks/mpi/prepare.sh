# Sourced by the same-host benchmarks (same-host.sh, small-floor.sh) after $root and $here are set:
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
