#!/usr/bin/env bash
# Multi-process all-reduce, JCCL against Open MPI, in one run on this host: builds benchmarks/mpi/allreduce_perf,
# runs it under `mpirun -np N --mca btl BTL`, then `./jccl bench collective -np N --net NET` with the same
# sizes and iteration counts, prints both tables and, per size, both times, both bus bandwidths and their ratio,
# with the targets: sizes up to 4 KiB (latency) JCCL time <= 2x MPI's; up to 8 MiB JCCL busbw >= RATIO x MPI's;
# at the largest size (64 MiB and up) >= 90% of JCCL's own peak.
#
# usage: benchmarks/mpi/compare.sh [--net NAME] [--btl LIST] [--ratio R] [-np N] [--bytes 1M,8M,64M] [--iters N]
#                                  [--warmup N] [--strict] [-- more jccl bench collective options]
#   --net     the JCCL transport (default metaroce); tcp works everywhere, shm between JVMs of one host
#   --btl     Open MPI's byte transfer layers (default self,tcp; self,vader for its shared-memory transport)
#   --ratio   the busbw target up to 8 MiB, JCCL/MPI (default 1.2)
#   --strict  exit 3 when a target is missed (the default exits 0 once both runs gave exact results)
#   --same-host  issue 15's whole set of same-host measures and targets in one run instead (shm, registered shm,
#                tcp, out-of-place vs in-place, cold start, the README's 4-rank command): runs benchmarks/mpi/same-host.sh
#                with the options that follow (--reps N, --only LIST, --quick, --steady)
#   --placed     the steady-state same-host measures told apart by where the host ran the two vCPUs (near or far
#                apart): runs benchmarks/mpi/placed.sh with the options that follow (--reps N, --only LIST, --period MS)
# Environment: MPIRUN_ARGS adds mpirun options (e.g. "--bind-to none"); MPICC picks the MPI compiler wrapper.
# Exit status: 0 done, 1 a run failed or Open MPI is missing (scripts/install-openmpi.sh), 2 bad usage, 3 see --strict.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../options.sh
. "$here/../options.sh"

net=metaroce
btl=self,tcp
ratio=1.2
np=2
bytes=1M,8M,64M
iters=20
warmup=5
strict=0
extra=()
if [ "${1:-}" = --same-host ]; then
  shift
  exec "$here/same-host.sh" "$@"
fi
if [ "${1:-}" = --placed ]; then
  shift
  exec "$here/placed.sh" "$@"
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --net) net="${2:?--net needs a name}"; shift 2 ;;
    --btl) btl="${2:?--btl needs a list, e.g. self,vader}"; shift 2 ;;
    --ratio) ratio="${2:?--ratio needs a number}"; shift 2 ;;
    -np) np="${2:?-np needs a number}"; shift 2 ;;
    --bytes) bytes="${2:?--bytes needs sizes}"; shift 2 ;;
    --iters) iters="${2:?--iters needs a number}"; shift 2 ;;
    --warmup) warmup="${2:?--warmup needs a number}"; shift 2 ;;
    --strict) strict=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) show_help 21 ;;
    *) usage_error "unknown option '$1' (try --help)" ;;
  esac
done

"$here/build.sh"
bin="$root/benchmarks/target/mpi/allreduce_perf"
if [ ! -x "$bin" ] || ! command -v mpirun >/dev/null 2>&1; then
  echo "compare.sh: Open MPI is needed (mpicc, mpirun): run scripts/install-openmpi.sh" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086  # MPIRUN_ARGS is a list of words
mpi_cmd=(mpirun -np "$np" --mca btl "$btl" --allow-run-as-root ${MPIRUN_ARGS:-} "$bin" -n "$iters" -w "$warmup"
  ${bytes//,/ })
jccl_cmd=("$root/jccl" bench collective -np "$np" --net "$net" --bytes "$bytes" --iters "$iters" --warmup "$warmup"
  "${extra[@]}")

echo "## Open MPI: ${mpi_cmd[*]}"
if ! "${mpi_cmd[@]}" | tee "$work/mpi.txt"; then
  echo "compare.sh: the MPI run failed (see above)" >&2
  exit 1
fi
echo
echo "## JCCL: ${jccl_cmd[*]}"
if ! "${jccl_cmd[@]}" | tee "$work/jccl.txt"; then
  echo "compare.sh: the JCCL run failed (see above)" >&2
  exit 1
fi

echo
echo "## Comparison: busbw, $np processes on $(hostname), float32 sum; JCCL over $net, $(mpirun --version 2>/dev/null \
  | head -n 1) over btl $btl"
# Data lines of both tables: size(B) count type redop time(us) algbw busbw #wrong.
set +e
awk -v strict="$strict" -v want="$ratio" '
  FNR == 1 { file++ }
  /^#/ || NF < 8 { next }
  file == 1 { mpi[$1] = $7; mpit[$1] = $5 }
  file == 2 { jccl[$1] = $7; jcclt[$1] = $5; order[++n] = $1; if ($7 > peak) peak = $7 }
  END {
    printf "# %12s %13s %14s %16s %17s %9s   %s\n", "size(B)", "MPI time(us)", "JCCL time(us)", "MPI busbw(GB/s)",
      "JCCL busbw(GB/s)", "JCCL/MPI", "target"
    missed = 0
    for (i = 1; i <= n; i++) {
      s = order[i]
      if (s <= 4096) {
        # Latency: busbw rounds to 0 here, so compare times (ratio = MPI time / JCCL time, higher is better).
        ratio = (s in mpit && jcclt[s] > 0) ? mpit[s] / jcclt[s] : 0
        ok = ratio >= 0.5
        target = sprintf("time <= 2x MPI: %s", ok ? "met" : "missed")
      } else if (s <= 8 * 1048576) {
        ratio = (s in mpi && mpi[s] > 0) ? jccl[s] / mpi[s] : 0
        ok = ratio >= want
        target = sprintf(">= %sx MPI busbw: %s", want, ok ? "met" : "missed")
      } else if (s >= 64 * 1048576) {
        share = peak > 0 ? jccl[s] / peak : 0
        ok = share >= 0.9
        target = sprintf(">= 90%% of JCCL peak (%.3f): %.0f%%, %s", peak, 100 * share, ok ? "met" : "missed")
      } else {
        ratio = (s in mpi && mpi[s] > 0) ? jccl[s] / mpi[s] : 0
        ok = 1
        target = "-"
      }
      if (s >= 64 * 1048576) ratio = (s in mpi && mpi[s] > 0) ? jccl[s] / mpi[s] : 0
      if (!ok) missed++
      printf "  %12d %13s %14s %16s %17s %9.2f   %s\n", s, (s in mpit) ? mpit[s] : "-", jcclt[s],
        (s in mpi) ? mpi[s] : "-", jccl[s], ratio, target
    }
    if (missed > 0) {
      printf "# %d target(s) missed\n", missed
      if (strict) exit 3
    } else {
      printf "# every target met\n"
    }
  }' "$work/mpi.txt" "$work/jccl.txt"
status=$?
exit "$status"
