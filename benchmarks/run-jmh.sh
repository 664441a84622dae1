#!/usr/bin/env bash
# Runs the JCCL JMH benchmarks. Build first (from the repository root):
#   ./mvnw -q -B -pl benchmarks -am package -DskipTests
# then e.g.:
#   benchmarks/run-jmh.sh -f 1 -wi 3 -w 1s -i 5 -r 1s
#   benchmarks/run-jmh.sh Float32SumVsCBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
# Arguments go to JMH (org.openjdk.jmh.Main; -h lists them). The JVMs get the flags from target/jvm.options,
# which the build derives from the parent pom's jccl.jvmFlags: the host JVM on its command line, and forked JVMs
# inherit the host's flags (JMH's default); if you pass -jvmArgs (which replaces that inheritance) the script
# prepends the flags with -jvmArgsPrepend. GB/s is each benchmark's "bytes" secondary result (bytes/ns).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/target"
if [[ ! -f "$target/benchmarks.jar" || ! -f "$target/jvm.options" ]]; then
  echo "run-jmh.sh: $target/benchmarks.jar missing; build it: ./mvnw -q -B -pl benchmarks -am package -DskipTests" >&2
  exit 1
fi
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
read -r -a flags < "$target/jvm.options"
prepend=()
for arg in "$@"; do
  if [[ "$arg" == "-jvmArgs" ]]; then
    prepend=(-jvmArgsPrepend "${flags[*]}")
  fi
done
exec "$java" "${flags[@]}" -jar "$target/benchmarks.jar" "${prepend[@]}" "$@"
