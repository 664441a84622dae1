#!/usr/bin/env bash
# Where a rank's time goes, call by call: two rank JVMs time an all-reduce of SIZE over and over
# (io.jccl.bench.CallTimeHistogram under ./jccl run, JCCL_NET=$NET, metaroce unless set); after WARMUP_S seconds
# (default 15: the JIT settles) `perf record` takes every system call and every scheduler switch of both JVMs for
# SECONDS, and benchmarks/mpi/syscall_timeline.py prints, per calling thread, where each second went (each system
# call by kind, off the core by who took it, the rest in user space) and an excerpt of both callers' system calls
# side by side (empty readiness polls counted, not listed), so a call's phases can be read off one clock.
# usage: benchmarks/mpi/syscall-timeline.sh [SIZE [SECONDS]]   (SIZE as CallTimeHistogram takes it: 8, 64K, 1M)
#   EVENTS_OUT=FILE keeps the events (perf script's text) for syscall_timeline.py FILE [ROWS] or a closer look;
#   PHASES=108,80 (the CTS and ACK datagram sizes of metaroce) adds the median phases of a bulk exchange call;
#   RANK_ENV="NAME=VALUE ..." sets more variables for the ranks (jccl run -x), e.g. JCCL_METAROCE_THREADING=invoker.
# Needs perf (Debian: linux-perf) and python3, and a built tree (./jccl builds itself). Measure at load below 1;
# recording slows each system call by about a microsecond, so read shares and orders, not absolute call times.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
size="${1:-1M}"
seconds="${2:-1}"
warmup="${WARMUP_S:-15}"
case "$seconds" in ''|*[!0-9.]*) echo "syscall-timeline.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;; esac
case "$warmup" in ''|*[!0-9]*) echo "syscall-timeline.sh: WARMUP_S must be a whole number, not '$warmup'" >&2; exit 2 ;; esac
case "$size" in [0-9]*) ;; *) echo "syscall-timeline.sh: SIZE must be a size (8, 64K, 1M), not '$size'" >&2; exit 2 ;; esac
extra=()
for setting in ${RANK_ENV:-}; do
  case "$setting" in
    *=*) extra+=(-x "$setting") ;;
    *) echo "syscall-timeline.sh: RANK_ENV takes NAME=VALUE words, not '$setting'" >&2; exit 2 ;;
  esac
done
for tool in perf python3; do
  command -v "$tool" >/dev/null || { echo "syscall-timeline.sh: needs $tool (apt-get install linux-perf python3)" >&2; exit 1; }
done
"$root/jccl" version >/dev/null   # builds first when needed, before anything is timed
work="$(mktemp -d)"
run_pid=""
cleanup() {
  [[ -z "$run_pid" ]] || kill -TERM "$run_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# Enough calls per round for a few seconds of rounds whatever the size; the run is stopped once recorded.
calls=3000
case "$size" in *K|*k) [[ "${size%?}" -gt 64 ]] || calls=100000 ;; *M|*m|*G|*g) ;; *) calls=100000 ;; esac
echo "# syscall-timeline.sh $(date -u +%Y-%m-%dT%H:%MZ): ${NET:-metaroce}, $size, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$root/jccl" run -np 2 -x JCCL_NET="${NET:-metaroce}" "${extra[@]}" -cp "$root/benchmarks/target/classes" -- \
  io.jccl.bench.CallTimeHistogram "$size" "$calls" 100000 > "$work/run.log" 2>&1 &
run_pid=$!
sleep "$warmup"
# The rank JVMs: the java processes whose parent is this run's launcher JVM (the job itself or its child).
ranks=$(ps -e -o pid=,ppid=,comm= | awk -v run="$run_pid" '{ parent[$1] = $2; comm[$1] = $3 }
  END { for (p in comm) { l = parent[p]
          if (comm[p] == "java" && comm[l] == "java" && (l == run || parent[l] == run)) { printf "%s%s", sep, p; sep = "," } } }')
if [[ -z "$ranks" ]]; then
  echo "syscall-timeline.sh: no rank JVMs after ${warmup}s; the run said:" >&2
  cat "$work/run.log" >&2
  exit 1
fi
if ! perf record -q -m 4096 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch -p "$ranks" \
    -o "$work/perf.data" -- sleep "$seconds" 2> "$work/perf.err"; then
  echo "syscall-timeline.sh: perf record failed (tracepoints need root or kernel.perf_event_paranoid <= -1):" >&2
  cat "$work/perf.err" >&2
  exit 1
fi
perf script -i "$work/perf.data" -F tid,cpu,time,event,trace 2>/dev/null > "$work/events.txt"
grep '^\[0\] round' "$work/run.log" | grep mean | tail -2 | cut -c1-160 || true
python3 "$here/syscall_timeline.py" "$work/events.txt"
[[ -z "${EVENTS_OUT:-}" ]] || cp "$work/events.txt" "$EVENTS_OUT"
