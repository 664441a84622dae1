#!/usr/bin/env bash
# Cold start of rank JVMs, with and without ./jccl's AOT cache (docs/perf.md, "Cold start"):
#   benchmarks/cold-start.sh [-r ROUNDS] [-b SIZE] [-np N] [--transport NAME]
# Each round runs, one after the other (so that drift in the machine's load hits every variant alike):
#   cold     JCCL_AOT=0 ./jccl perf all_reduce -np N -b SIZE -e SIZE            (nccl-tests' default -w 5 -n 20)
#   cold+aot            ./jccl perf all_reduce -np N -b SIZE -e SIZE            (the same, with the AOT cache)
#   warm                ./jccl perf all_reduce -np N -b SIZE -e SIZE -w 300 -n 50   (the steady state)
#   start, start+aot    wall time of `./jccl perf all_reduce -np N -b 8 -e 8 -w 0 -n 1 -c 0` without / with the
#                       cache: the launcher and N rank JVMs start, join and run one call
#   jvm, jvm+aot        wall time of one JVM with ./jccl's flags running `jccl version` without / with the cache
# and prints every measurement, then the medians: busbw (GB/s) out of place, in place and their mean, the ratio of
# cold and cold+aot to warm (issue 15's target: cold+aot >= 0.67 of warm), and the start-up times in ms.
# ROUNDS defaults to 5, SIZE to 8M, N to 2, the transport to auto. The first call builds JCCL and the cache.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=5
size=8M
np=2
transport=auto
while [ $# -gt 0 ]; do
  case "$1" in
    -r) rounds="$2"; shift 2 ;;
    -b) size="$2"; shift 2 ;;
    -np) np="$2"; shift 2 ;;
    --transport) transport="$2"; shift 2 ;;
    *) echo "usage: $0 [-r ROUNDS] [-b SIZE] [-np N] [--transport NAME]" >&2; exit 2 ;;
  esac
done
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: -r must be a positive number of rounds, got '$rounds'" >&2
  exit 2
fi
jccl="$here/jccl"
dist="$here/launcher/target/dist"

# Builds JCCL and the AOT cache if needed (what that prints goes to standard error).
if ! first="$("$jccl" version 2>&1 >/dev/null)"; then
  echo "$first" >&2
  exit 1
fi
grep -v '^WARNING: Using incubator modules' <<< "$first" >&2 || true
if [ ! -s "$dist/jccl.aot" ]; then
  echo "$0: no AOT cache at $dist/jccl.aot (JCCL_AOT=0 set, or its build failed: see $dist/jccl.aot.log)" >&2
  exit 1
fi
JAVA_HOME="$("$here/scripts/find-jdk.sh")"
read -r -a jvm_flags < "$dist/jvm.options"
mapfile -t aot_flags < <(JCCL_AOT=1 JAVA_HOME="$JAVA_HOME" "$here/scripts/aot-cache.sh" "$dist")
if [ "${#aot_flags[@]}" -eq 0 ]; then
  echo "$0: the AOT cache does not match this build (run ./jccl once to rebuild it)" >&2
  exit 1
fi

perf=(perf all_reduce -np "$np" --transport "$transport" -b "$size" -e "$size" -J)
ms() { echo $(( $(date +%s%N) / 1000000 )); }
declare -A values

# busbw of a run: "out in" from -J's results (out-of-place first).
busbw() {
  local json
  json="$("$@" 2>/dev/null)" || { echo "$0: failed: $*" >&2; exit 1; }
  grep -o '"busbw":[-0-9.eE+]*' <<< "$json" | cut -d: -f2 | head -n 2 | tr '\n' ' '
}
record() {  # name out in
  [ -n "$3" ] || exit 1   # busbw failed and said why
  values[$1.out]+="$2 "
  values[$1.in]+="$3 "
  values[$1.mean]+="$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.4f", (a + b) / 2 }') "
}
timed() {  # name command...: wall ms
  local name="$1" t0
  shift
  t0=$(ms)
  "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 1; }
  values[$name]+="$(( $(ms) - t0 )) "
}
median() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
  else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# cold start: all_reduce -np $np --transport $transport, $size, $rounds rounds; busbw in GB/s (out-of-place in-place)"
for ((r = 1; r <= rounds; r++)); do
  read -r o i <<< "$(busbw env JCCL_AOT=0 "$jccl" "${perf[@]}")"; record cold "$o" "$i"
  read -r o i <<< "$(busbw "$jccl" "${perf[@]}")"; record cold+aot "$o" "$i"
  read -r o i <<< "$(busbw "$jccl" "${perf[@]}" -w 300 -n 50)"; record warm "$o" "$i"
  start_cmd=(perf all_reduce -np "$np" --transport "$transport" -b 8 -e 8 -w 0 -n 1 -c 0 -J)
  timed start env JCCL_AOT=0 "$jccl" "${start_cmd[@]}"
  timed start+aot "$jccl" "${start_cmd[@]}"
  timed jvm "$JAVA_HOME/bin/java" "${jvm_flags[@]}" -cp "$dist/lib/*" io.jccl.cli.Main version
  timed jvm+aot "$JAVA_HOME/bin/java" "${jvm_flags[@]}" "${aot_flags[@]}" -cp "$dist/lib/*" io.jccl.cli.Main version
  printf 'round %d: cold %s %s  cold+aot %s %s  warm %s %s  start %s/%s ms  jvm %s/%s ms\n' "$r" \
    $(for k in cold.out cold.in cold+aot.out cold+aot.in warm.out warm.in start start+aot jvm jvm+aot; do
        v="${values[$k]% }"; echo "${v##* }"; done)
done

echo "#"
printf '# %-10s %10s %10s %10s\n' variant out-place in-place mean
for v in cold cold+aot warm; do
  printf '  %-10s %10s %10s %10s\n' "$v" "$(median "${values[$v.out]}")" "$(median "${values[$v.in]}")" \
    "$(median "${values[$v.mean]}")"
done
ratio() { awk -v a="$(median "${values[$1.$3]}")" -v b="$(median "${values[$2.$3]}")" \
  'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
echo "#"
for v in cold cold+aot; do
  printf '# %-9s / warm: out-of-place %s  in-place %s  mean %s\n' "$v" "$(ratio "$v" warm out)" \
    "$(ratio "$v" warm in)" "$(ratio "$v" warm mean)"
done
printf '# start-up (median ms): launcher + %d ranks to one call %s without the cache, %s with; one JVM (jccl version) %s without, %s with\n' \
  "$np" "$(median "${values[start]}")" "$(median "${values[start+aot]}")" "$(median "${values[jvm]}")" \
  "$(median "${values[jvm+aot]}")"
