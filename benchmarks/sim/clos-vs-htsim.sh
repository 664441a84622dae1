#!/usr/bin/env bash
# The simulator's speed on htsim's permutation (issue 17): 2 MiB per flow, 400 Gbit/s links, 4 KiB MTU, a 3-tier fat
# tree, every host sending, MetaRoCE's production engine on every host. htsim (the UEC fork, its UEC model) took on
# this machine kind 15.6 s for 1,024 hosts (12.0 M events, 185 MB), 86.1 s for 3,456 (40.9 M, 860 MB) and 368 s for
# 8,192 (97.6 M, 2.76 GB); the target is two thirds of those times, all flows complete, in no more memory.
#
#   benchmarks/sim/clos-vs-htsim.sh [REPS] [SIZES]     e.g. benchmarks/sim/clos-vs-htsim.sh 3 "1024 3456 8192"
#
# Each run is its own JVM (serial collector, heap capped below what htsim used, so the run proves the bound) under
# /usr/bin/time; one line per run: hosts, wall seconds of the event loop, events, max RSS (KiB), unfinished flows.
# Run it on a quiet machine (load below 1): wall time is the measure.
set -euo pipefail
cd "$(dirname "$0")/../.."
reps="${1:-3}"
sizes="${2:-1024 3456 8192}"
# Heap caps well under htsim's memory (the live data is about 70 MiB at 1,024 hosts and grows with the host count);
# the serial collector keeps the resident size near the live data (the launcher's parallel one is for ranks).
declare -A heap=([1024]=110m [3456]=400m [8192]=1000m)
for rep in $(seq 1 "$reps"); do
  for hosts in $sizes; do
    h="${heap[$hosts]:-2g}"
    out="$(JCCL_JAVA_OPTS="-XX:-UseParallelGC -XX:+UseSerialGC -Xmx$h" /usr/bin/time -f "rss_kib=%M" ./jccl sim permutation --hosts "$hosts" \
        --flow-bytes 2M --link-gbps 400 --mtu 4096 --protocol metaroce --seed "$rep" --json --no-progress 2>&1)"
    json="$(grep '^{' <<<"$out")"
    rss="$(grep -o 'rss_kib=[0-9]*' <<<"$out" | cut -d= -f2)"
    python3 - "$json" "$rss" "$rep" "$h" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
print(f"rep {sys.argv[3]} hosts {j['hosts']} heap<={sys.argv[4]} wall_s {j['wallSeconds']:.2f} events {j['events']} "
      f"max_rss_kib {sys.argv[2]} unfinished {j['unfinishedFlows']} mean_fct_us {j['meanFctUs']:.2f} "
      f"p99_fct_us {j['p99FctUs']:.2f}")
PY
  done
done
