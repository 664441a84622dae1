#!/usr/bin/env bash
# The seeds' figure (issue 17): 64 hosts on a multiplane 3-tier fat tree (a 400 Gbit/s NIC split into P planes of
# 400/P Gbit/s), a ring all-reduce and an all-to-all, throughput against random loss on the last link, MetaRoCE (8
# paths sprayed over the planes) and the RoCEv2 baseline (one path per connection: one plane; with DCQCN, and without
# congestion control as roce-nocc). Throughput: the all-reduce's bus bandwidth; the all-to-all's bytes moved over its
# job time. One jccl run per plane count and workload sweeps the losses and protocols and draws the chart (with the
# published ~86% of lossless at 1% marked) into PLOT_DIR. Virtual time: the figures do not depend on the machine.
#
#   benchmarks/sim/planes-loss.sh [PLANES] [LOSSES] [PROTOCOLS] [ALLREDUCE_BYTES] [PLOT_DIR]
#   e.g. benchmarks/sim/planes-loss.sh "4 8" "0,0.001,0.01,0.02,0.05,0.1" "metaroce,roce,roce-nocc" 16M docs/img
set -euo pipefail
cd "$(dirname "$0")/../.."
planes_list="${1:-4 8}"
losses="${2:-0,0.001,0.01,0.02,0.05,0.1}"
protocols="${3:-metaroce,roce,roce-nocc}"
allreduce_bytes="${4:-16M}"
plot_dir="${5:-target/sim-plots}"
mkdir -p "$plot_dir"
hosts=64
for planes in $planes_list; do
  gbps=$((400 / planes))
  for workload in allreduce alltoall; do
    if [ "$workload" = allreduce ]; then
      args=(allreduce --bytes "$allreduce_bytes")
      name="allreduce-$allreduce_bytes"
    else
      args=(alltoall --flow-bytes 64K)
      name="alltoall-64K"
    fi
    ./jccl sim "${args[@]}" --hosts "$hosts" --planes "$planes" --link-gbps "$gbps" --protocol "$protocols" \
        --loss "$losses" --payload shared --seed 1 --until-us 10000000 --json --no-progress \
        --plot "$plot_dir/planes$planes-$name-loss.png" 2>/dev/null \
      | python3 -c '
import json, sys
base = {}
for line in sys.stdin:
    j = json.loads(line)
    p, loss, gbs = j["protocol"], j["loss"], j["throughputGBps"]
    base.setdefault(p, gbs)
    share = "%.3f" % (gbs / base[p]) if base[p] > 0 else "n/a"
    print("%s planes %d %s loss %g GB/s %.3f job_us %.1f of_lossless %s unfinished %d rate_cuts %d" % (p, j["planes"],
        sys.argv[1], loss, gbs, j["jobUs"], share, j["unfinishedFlows"], j["rateCuts"]))' "$workload" || true
  done
done
