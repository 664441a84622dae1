#!/usr/bin/env bash
# One MetaRoCE connection against a raw UDP blast and a checked blast (issue 16's "one connection >= 0.7 of a raw
# blast"), alternating the memory the WRITEs come from and go to: as large as the transfer (1 GiB, every byte its
# own, beyond the caches) and a 4 MiB footprint reused in turn (as perftest's bandwidth tests reuse their buffer).
# Each run is one `./jccl bench transport --driver udp --bytes 1G --payload 4096 --paths 1 [--footprint 4M] --json`:
# MetaRoCE, then the raw blast, then the checked blast, in one JVM. Waits for load below 1 before each run.
# Prints one line per run, then per footprint the median and range of MetaRoCE / raw, MetaRoCE / checked and
# checked / raw.
# With BEFORE (another built checkout that has --footprint), its ./jccl runs beside, alternating, tagged "before".
# usage: benchmarks/connection-vs-raw.sh [REPS [BEFORE]]     (REPS default 3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reps="${1:-3}"
before="${2:-}"
[[ -z "$before" || -x "$before/jccl" ]] || { echo "$0: BEFORE '$before' has no ./jccl" >&2; exit 2; }
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [REPS [BEFORE]]  (REPS a positive integer, got '$reps')" >&2; exit 2; }
quiet() { while [ "$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)" != "0" ]; do sleep 3; done; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "# connection-vs-raw.sh $(date -u +%Y-%m-%dT%H:%MZ) $(git -C "$root" rev-parse --short HEAD): load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# footprint  metaroce raw checked (GB/s)  metaroce/raw metaroce/checked checked/raw"
run() {   # run CHECKOUT TAG FOOTPRINT
  local args=(bench transport --driver udp --bytes 1G --payload 4096 --paths 1 --json)
  [[ "$3" == 1G ]] || args+=(--footprint "$3")
  "$1/jccl" "${args[@]}" 2>/dev/null | tr ',' '\n' | awk -v tag="$2" -v fp="$3" -F: '
    { gsub(/[" {}\[\]]/, "", $1); v[$1] = $2 }
    END { printf "%-11s %8.3f %8.3f %8.3f  %6.3f %6.3f %6.3f\n", tag fp, v["goodputBytesPerSec"] / 1e9,
            v["rawUdpBytesPerSec"] / 1e9, v["checkedUdpBytesPerSec"] / 1e9, v["vsRawUdp"], v["vsCheckedUdp"],
            v["checkedVsRawUdp"] }' | tee -a "$out"
}
for ((rep = 1; rep <= reps; rep++)); do
  for footprint in 1G 4M; do
    quiet; run "$root" "" "$footprint"
    if [[ -n "$before" ]]; then quiet; run "$before" before- "$footprint"; fi
  done
done
echo "# medians (ranges) over $reps runs each"
for tag in "" $([[ -n "$before" ]] && echo before-); do
  for footprint in 1G 4M; do
    awk -v fp="$tag$footprint" "$(cat "$root/benchmarks/median.awk")"'
      $1 == fp { r = r " " $5; c = c " " $6; k = k " " $7 }
      END { m = median(r); printf "%s: metaroce/raw %.2f (%s-%s)", fp, m, lo, hi
            m = median(c); printf ", metaroce/checked %.2f (%s-%s)", m, lo, hi
            m = median(k); printf ", checked/raw %.2f (%s-%s)\n", m, lo, hi }' "$out"
  done
done
