#!/usr/bin/env bash
# Runs io.jccl.examples.djl.DjlDataParallelMlp under `jccl run`, building this module first when needed.
#
#   examples-djl/run-mlp.sh [jccl run options] [-- example options]
#   examples-djl/run-mlp.sh -np 2                        # 2 ranks, the default MLP and data
#   examples-djl/run-mlp.sh -np 1 -- --epochs 3          # single-process baseline
#   examples-djl/run-mlp.sh -np 4 --oversubscribe -- --help
#
# Everything before `--` goes to `jccl run` (docs/launching.md), everything after to the example.
# DJL runs offline: the PyTorch natives come from the pytorch-native-cpu jar on the class path, extracted into
# DJL_CACHE_DIR (default examples-djl/target/djl-cache, about 450 MB), never from the internet.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$module")"
JAVA_HOME="$("$root/scripts/find-jdk.sh")" || exit 1
export JAVA_HOME
stamp="$module/target/.built"
classpath_file="$module/target/run-classpath.txt"

stale() {
  [ -f "$stamp" ] && [ -f "$classpath_file" ] || return 0
  [ -n "$(find "$root" \( -name target -o -name 'target-*' -o -name .git -o -name node_modules \) -prune -o \
      \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$stamp" -print -quit)" ]
}

if stale; then
  echo "run-mlp: building JCCL and the DJL example (first use, or sources changed) ..." >&2
  if ! (cd "$root" && ./mvnw -q -B -DskipTests -pl examples-djl,benchmarks/tools -am package >&2); then
    echo "run-mlp: the build failed; see the Maven output above (or run: ./mvnw -pl examples-djl,benchmarks/tools -am package)" >&2
    exit 1
  fi
  touch "$stamp"
  # That build included ./jccl's own (launcher and benchmarks/tools), so its distribution is up to date too.
  touch "$root/launcher/target/dist/.built"
fi

launcher_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  launcher_args+=("$1")
  shift
done
[ $# -gt 0 ] && shift   # the `--`

export DJL_OFFLINE=true
export DJL_CACHE_DIR="${DJL_CACHE_DIR:-$module/target/djl-cache}"
# DJL probes for CUDA and, on a host with a CUDA runtime but no usable GPU, warns twice per rank; this example
# runs on the CPU.
exec "$root/jccl" run -J -Dorg.slf4j.simpleLogger.log.ai.djl.util.cuda.CudaUtils=error "${launcher_args[@]}" -cp "$module/target/classes:$(cat "$classpath_file")" \
  -- io.jccl.examples.djl.DjlDataParallelMlp "$@"
