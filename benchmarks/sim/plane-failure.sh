#!/usr/bin/env bash
# A plane failed mid-run (issue 17): 64 hosts, a 400 Gbit/s NIC split into 4 planes of 100 Gbit/s, a permutation of
# 16 MiB flows, plane 0 down at 100 us; throughput over time in 5 us buckets, for MetaRoCE (8 paths over the 4 planes)
# and the RoCEv2 baseline (one path per connection, in plane 0). Prints per protocol the job time, the unfinished flows,
# the throughput before the failure, its dip, the time until it is back to 90% of the remaining planes' share, and
# the timeline (Gbit/s, all hosts together) around the failure. Virtual time: the figures do not depend on the machine.
#
#   benchmarks/sim/plane-failure.sh [PLANE] [AT]       e.g. benchmarks/sim/plane-failure.sh 0 100us
set -euo pipefail
cd "$(dirname "$0")/../.."
plane="${1:-0}"
at="${2:-100us}"
for protocol in metaroce roce; do
  ./jccl sim permutation --hosts 64 --planes 4 --link-gbps 100 --flow-bytes 16M --protocol "$protocol" --payload shared \
      --fail "plane:$plane@$at" --timeline-us 5 --until-us 20000 --seed 1 --json --no-progress 2>/dev/null \
    | python3 -c '
import json, sys
j = json.load(sys.stdin)
f = j["failure"]
t = j["timelineGbps"]
line = "%s: unfinished %d job_us %s before_gbps %.0f dip_gbps %.0f recovered_after_us %s" % (sys.argv[1],
    j["unfinishedFlows"], j["jobUs"], f["beforeGbps"], f["dipGbps"], f["recoveredAfterUs"])
print(line)
print("  timeline 75-200 us:", " ".join(str(round(x)) for x in t[15:40]))' "$protocol" || true
done
