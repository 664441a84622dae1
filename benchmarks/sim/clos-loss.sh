#!/usr/bin/env bash
# MetaRoCE's flow completion time under random loss (issue 17): 128 hosts, the 2 MiB permutation of
# clos-vs-htsim.sh, random loss on data packets (on the last link, so the end-to-end rate is the figure), mean FCT
# against the lossless run of the same seed. Virtual time: the figures do not depend on the machine's load.
#
#   benchmarks/sim/clos-loss.sh [SEEDS] [LOSSES] [PROTOCOL]     e.g. benchmarks/sim/clos-loss.sh 5 "0.01 0.1" metaroce
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds="${1:-5}"
losses="${2:-0.01 0.1}"
protocol="${3:-metaroce}"
for seed in $(seq 1 "$seeds"); do
  base="$(./jccl sim permutation --hosts 128 --flow-bytes 2M --protocol "$protocol" --seed "$seed" --json --no-progress 2>/dev/null \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["meanFctUs"])')"
  line="seed $seed lossless_mean_fct_us $base"
  for loss in $losses; do
    m="$(./jccl sim permutation --hosts 128 --flow-bytes 2M --protocol "$protocol" --loss "$loss" --seed "$seed" --json \
        --no-progress 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["meanFctUs"], j["unfinishedFlows"], j["wrongBytes"])')"
    read -r mean unfinished wrong <<<"$m"
    line="$line | loss $loss mean_fct_us $mean ratio $(python3 -c "print(f'{$mean/$base:.3f}')") unfinished $unfinished wrong_bytes $wrong"
  done
  echo "$line"
done
