#!/usr/bin/env bash
# Runs a command beside N CPU-bound busy loops, as CI and reviewers run the tests beside other work:
#   scripts/under-load.sh [-n N] [-r REPEAT] -- command args...
# The command runs REPEAT times (default 1) in a row and the script stops at the first failure. N defaults to 2
# (two CPU-bound processes on this 2-core machine). Exits with the command's status.
set -euo pipefail
loops=2
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    -n) loops="$2"; shift 2 ;;
    -r) repeat="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n N] [-r REPEAT] -- command args..." >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ] || ! [[ "$loops" =~ ^[0-9]+$ ]] || ! [[ "$repeat" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [-n N] [-r REPEAT] -- command args... (N >= 0 busy loops, REPEAT >= 1 runs)" >&2
  exit 2
fi
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for ((i = 0; i < loops; i++)); do
  ( while :; do :; done ) &
  pids+=("$!")
done
echo "under-load: $loops busy loop(s) running (pids ${pids[*]:-none})" >&2
for ((run = 1; run <= repeat; run++)); do
  echo "under-load: run $run of $repeat: $*" >&2
  start=$(date +%s)
  status=0
  "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "under-load: run $run FAILED (exit $status) after $(( $(date +%s) - start )) s" >&2
    exit "$status"
  fi
  echo "under-load: run $run passed in $(( $(date +%s) - start )) s" >&2
done
