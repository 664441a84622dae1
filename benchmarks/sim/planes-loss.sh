#!/usr/bin/env bash
# The seeds' figure (issue 17): 64 hosts on a multiplane 3-tier fat tree (a 400 Gbit/s NIC split into P planes of
# 400/P Gbit/s), a ring all-reduce and an all-to-all, throughput against random loss on the last link, MetaRoCE (8
# paths sprayed over the planes) and the RoCEv2 baseline (one path per connection: one plane). Throughput: the
# all-reduce's bus bandwidth; the all-to-all's bytes moved over its job time. Virtual time: the figures do not depend
# on the machine.
#
#   benchmarks/sim/planes-loss.sh [PLANES] [LOSSES] [PROTOCOLS]
#   e.g. benchmarks/sim/planes-loss.sh "4 8" "0 0.001 0.01 0.02 0.05 0.1" "metaroce roce"
set -euo pipefail
cd "$(dirname "$0")/../.."
planes_list="${1:-4 8}"
losses="${2:-0 0.001 0.01 0.02 0.05 0.1}"
protocols="${3:-metaroce roce}"
hosts=64
for protocol in $protocols; do
  for planes in $planes_list; do
    gbps=$((400 / planes))
    for workload in allreduce alltoall; do
      base=""
      for loss in $losses; do
        if [ "$workload" = allreduce ]; then
          args=(allreduce --bytes 16M)
        else
          args=(alltoall --flow-bytes 64K)
        fi
        json="$(./jccl sim "${args[@]}" --hosts "$hosts" --planes "$planes" --link-gbps "$gbps" --protocol "$protocol" \
            --loss "$loss" --payload shared --seed 1 --until-us 10000000 --json --no-progress 2>/dev/null || true)"
        read -r gbs job unfinished <<<"$(python3 -c '
import json, sys
j = json.loads(sys.argv[1])
if sys.argv[2] == "allreduce":
    gbs = j.get("busBwGBps", 0)
else:
    gbs = j["flows"] * j["flowBytes"] / (j["jobUs"] * 1e3) if j["jobUs"] > 0 else 0
job = j["jobUs"]
print("%.3f %.1f %d" % (gbs, job, j["unfinishedFlows"]))' "$json" "$workload")"
        [ -n "$base" ] || base="$gbs"
        ratio="$(python3 -c "print(f'{$gbs / $base:.3f}' if $base > 0 else 'n/a')")"
        echo "$protocol planes $planes $workload loss $loss GB/s $gbs job_us $job of_lossless $ratio unfinished $unfinished"
      done
    done
  done
done
