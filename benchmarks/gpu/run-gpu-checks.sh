#!/usr/bin/env bash
# JCCL GPU checks. On a machine with an NVIDIA or AMD GPU: builds gpu-memory (reactor package, tests skipped),
# runs the device conformance tests for the GPU's memory domain (cuda or hip; required, so a broken detection fails
# instead of skipping) and a device-buffer all-reduce benchmark against host buffers (1 MiB to 256 MiB, bus
# bandwidth and the staging overhead), and prints a summary — within a time budget of 290 s, every step under a
# timeout. Without a GPU it prints "no GPU: skipped" and exits 0 before touching Java or Maven, so CPU-only
# machines and CI can call it.
#
# usage: benchmarks/gpu/run-gpu-checks.sh [--domain cuda|hip] [--no-build] [--detect-only] [--max-bytes 256M]
#                                         [--budget-s 290]
#   --domain       skip detection and check this domain (containers often have the driver but no nvidia-smi);
#                  with JCCL_HIP_LIBRARY=.../libhipstub.so, `--domain hip` runs everything on the HIP stub
#   --no-build     use what an earlier run built under gpu-memory/target (e.g. copied to a GPU machine without
#                  Maven or network: target/classes, target/test-classes, target/gpu-checks)
#   --detect-only  print what was detected and exit 0
#   --max-bytes    largest benchmark size, per rank (default 256M; the smallest is 1M)
#   --budget-s     time limit of the whole run in seconds (default 290)
# Maven options (e.g. -o for offline) go in MAVEN_ARGS. Output: gpu-memory/target/gpu-checks/{build,run}.log and
# summary-<domain>.txt.
# exit: 0 passed, or skipped without a GPU; 1 a test failed or a result was wrong; 2 usage or build error;
#       3 the GPU's memory domain is not available to JCCL (the reason is printed); 124 out of time.
#
# Detection and argument parsing use bash builtins only (the tests run this with an empty PATH).
set -uo pipefail

domain=""
no_build=false
detect_only=false
max_bytes="256M"
budget_s=290
usage() {
  echo "usage: $0 [--domain cuda|hip] [--no-build] [--detect-only] [--max-bytes 256M] [--budget-s 290]" >&2
  exit 2
}
while (( $# > 0 )); do
  case "$1" in
    --domain) [[ $# -ge 2 && ( $2 == cuda || $2 == hip ) ]] || usage; domain=$2; shift 2 ;;
    --no-build) no_build=true; shift ;;
    --detect-only) detect_only=true; shift ;;
    --max-bytes) [[ $# -ge 2 && $2 =~ ^[0-9]+[KMG]?$ ]] || usage; max_bytes=$2; shift 2 ;;
    --budget-s) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 60 ]] || usage; budget_s=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
start_s=$SECONDS

# Runs a command under `timeout` when the machine has one (a wedged driver can hang nvidia-smi).
limited() {
  local seconds=$1; shift
  if command -v timeout >/dev/null 2>&1; then timeout --kill-after=5 "$seconds" "$@"; else "$@"; fi
}

first_line() { local s=$1; printf '%s' "${s%%$'\n'*}"; }

# Sets domain and gpu from the vendor tools; explains in why when there is neither.
gpu=""
why=""
detect() {
  local out line
  if command -v nvidia-smi >/dev/null 2>&1; then
    if out=$(limited 20 nvidia-smi -L 2>&1) && [[ $out == *"GPU "* ]]; then
      domain=cuda
      gpu=$(first_line "$out")
      return
    fi
    why+="nvidia-smi found no GPU: $(first_line "$out"); "
  else
    why+="no nvidia-smi; "
  fi
  if command -v rocm-smi >/dev/null 2>&1; then
    if out=$(limited 20 rocm-smi --showproductname 2>&1) && [[ $out == *"GPU["* ]]; then
      domain=hip
      while IFS= read -r line; do
        if [[ $line == *"GPU["* ]]; then gpu=$line; break; fi
      done <<< "$out"
      return
    fi
    why+="rocm-smi found no GPU: $(first_line "$out")"
  elif command -v rocminfo >/dev/null 2>&1; then
    if out=$(limited 20 rocminfo 2>&1) && [[ $out == *"gfx"* ]]; then
      domain=hip
      gpu="an AMD GPU (rocminfo lists a gfx agent)"
      return
    fi
    why+="rocminfo found no GPU agent: $(first_line "$out")"
  else
    why+="no rocm-smi or rocminfo"
  fi
}

if [[ -n $domain ]]; then
  gpu="(--domain $domain: detection skipped)"
else
  detect
fi
if [[ -z $domain ]]; then
  echo "no GPU: skipped ($why)"
  exit 0
fi
echo "detected: $domain: $gpu"
if $detect_only; then
  exit 0
fi

here=${BASH_SOURCE[0]%/*}
[[ $here == "${BASH_SOURCE[0]}" ]] && here=.
root=$(cd "$here/../.." && pwd) || exit 2
cd "$root" || exit 2
target=gpu-memory/target
out=$target/gpu-checks
left_s() { echo $(( budget_s - (SECONDS - start_s) )); }

if ! JAVA_HOME=$(scripts/find-jdk.sh); then
  exit 2
fi
export JAVA_HOME
echo "java: $JAVA_HOME"

if ! $no_build; then
  # Leave at least 90 s for the checks; a warm build takes well under a minute.
  build_s=$(( $(left_s) - 90 ))
  (( build_s > 200 )) && build_s=200
  if (( build_s < 30 )); then
    echo "TIMEOUT: a budget of ${budget_s}s leaves no time to build; use --no-build or a larger --budget-s"
    exit 124
  fi
  mkdir -p "$out"
  echo "building: ./mvnw -q -B -pl gpu-memory -am package -DskipTests -Pgpu-checks (at most ${build_s}s) ..."
  limited "$build_s" ./mvnw -q -B -pl gpu-memory -am package -DskipTests -Djccl.fuzz.skip -Pgpu-checks \
    > "$out/build.log" 2>&1
  rc=$?
  if (( rc == 124 || rc == 137 )); then
    echo "TIMEOUT: the build took over ${build_s}s (log: $out/build.log)"
    exit 124
  elif (( rc != 0 )); then
    echo "the build failed (exit $rc); the end of $out/build.log:"
    tail -n 30 "$out/build.log"
    exit 2
  fi
fi

for needed in "$target/classes" "$target/test-classes" "$out/lib" "$out/jvm.options"; do
  if [[ ! -e $needed ]]; then
    echo "$needed is missing: run without --no-build first (it builds with Maven)"
    exit 2
  fi
done

run_s=$(( $(left_s) - 5 ))
if (( run_s < 30 )); then
  echo "TIMEOUT: no time left for the checks (budget ${budget_s}s)"
  exit 124
fi
read -r -a jvm_flags < "$out/jvm.options"
echo "checks: tests and benchmark for $domain (at most ${run_s}s) ..."
limited "$run_s" "$JAVA_HOME/bin/java" "${jvm_flags[@]}" \
  -cp "$target/test-classes:$target/classes:$out/lib/*" io.jccl.memory.GpuChecks \
  --domain "$domain" --max-bytes "$max_bytes" --out "$out" 2>&1 | tee "$out/run.log"
rc=${PIPESTATUS[0]}
elapsed_s=$(( SECONDS - start_s ))
case $rc in
  0) echo "GPU checks: PASS ($domain, ${elapsed_s}s; $out/summary-$domain.txt)"; exit 0 ;;
  1) echo "GPU checks: FAIL ($domain, ${elapsed_s}s; $out/run.log)"; exit 1 ;;
  2) echo "GPU checks: the $domain memory domain is not available to JCCL (see above), ${elapsed_s}s"; exit 3 ;;
  124|137) echo "TIMEOUT: the checks took over ${run_s}s ($out/run.log)"; exit 124 ;;
  *) echo "GPU checks: the JVM exited with $rc ($out/run.log)"; exit 1 ;;
esac
