#!/usr/bin/env bash
# A part of the fabric failed mid-run (issue 17): 64 hosts, a 400 Gbit/s NIC split into 4 planes of 100 Gbit/s, a
# permutation of 16 MiB flows, ELEMENT down at AT (default plane 0 at 100 us; also switch:core0, link:agg3-up1.p2, ...);
# throughput over time in 5 us buckets, for MetaRoCE (8 paths over the 4 planes) and the RoCEv2 baseline (one path per
# connection, in plane 0, DCQCN). Prints per protocol the job time, the unfinished flows, the throughput before the
# failure, its dip, the time until it is back to 90% of what is left (of the remaining planes' share for a plane), and
# the timeline (Gbit/s, all hosts together) around the failure; draws both timelines into PLOT (a PNG).
# Virtual time: the figures do not depend on the machine.
#
#   benchmarks/sim/plane-failure.sh [ELEMENT] [AT] [PLOT]   e.g. benchmarks/sim/plane-failure.sh plane:0 100us docs/img/plane-failure.png
set -euo pipefail
cd "$(dirname "$0")/../.."
element="${1:-plane:0}"
at="${2:-100us}"
plot="${3:-target/sim-plots/failure.png}"
mkdir -p "$(dirname "$plot")"
./jccl sim permutation --hosts 64 --planes 4 --link-gbps 100 --flow-bytes 16M --protocol metaroce,roce --payload shared \
    --fail "$element@$at" --timeline-us 5 --until-us 20000 --seed 1 --json --no-progress --plot "$plot" 2>/dev/null \
  | python3 -c '
import json, sys
at_us = float(sys.argv[1])
for line in sys.stdin:
    j = json.loads(line)
    f = j["failure"]
    t = j["timelineGbps"]
    first = max(0, int(at_us / 5) - 5)
    print("%s: unfinished %d job_us %s before_gbps %.0f dip_gbps %.0f recovered_after_us %s" % (j["protocol"],
        j["unfinishedFlows"], j["jobUs"], f["beforeGbps"], f["dipGbps"], f["recoveredAfterUs"]))
    print("  timeline from %d us:" % (first * 5), " ".join(str(round(x)) for x in t[first:first + 25]))' \
    "$(python3 -c "import sys; t=sys.argv[1]; print(float(t[:-2]) if t.endswith('us') else float(t[:-2])*1000 if t.endswith('ms') else float(t[:-2])/1000)" "$at")" || true
