#!/usr/bin/env bash
# JCCL's JDK AOT cache (JEP 483 classes, JEP 515 method profiles) for ./jccl and every rank JVM it starts.
# Usage: scripts/aot-cache.sh DIST   (DIST: launcher/target/dist; JAVA_HOME: the JDK ./jccl runs)
#
# Prints the JVM options that use the cache, one per line, or nothing when there is none to use. Builds it first
# when it is missing or does not match (another JDK, other jars, other JVM flags): a training run,
# `java -XX:AOTCacheOutput=... io.jccl.cli.Main aot-train`, about half a minute, once per build. The new cache is
# written under a temporary name, checked (a JVM must be able to map it, -XX:AOTMode=on) and only then renamed into
# place, so an interrupted or failed build never leaves a cache that later runs use. A build that fails is not tried
# again until the build changes (delete DIST/jccl.aot.failed to retry); the log is DIST/jccl.aot.log.
#
# JCCL_AOT=0 turns the cache off (nothing is built or printed); 1 (the default) turns it on.
# Exit status: 0, also when there is no cache to use; 2 when JCCL_AOT is neither 0 nor 1.
set -uo pipefail

dist="${1:?usage: scripts/aot-cache.sh DIST}"
case "${JCCL_AOT:-1}" in
  0) exit 0 ;;
  1) ;;
  *) echo "jccl: JCCL_AOT='${JCCL_AOT}' must be 0 (no AOT cache) or 1 (build and use it, the default)" >&2; exit 2 ;;
esac
java="${JAVA_HOME:?JAVA_HOME must name the JDK}/bin/java"
cache="$dist/jccl.aot"
keyfile="$cache.key"
failed="$cache.failed"
log="$cache.log"
# The options that use the cache. -Xlog:aot*=off,cds*=off: a JVM that cannot use it (another JDK, changed jars, a
# heap too large for compressed pointers) runs without it and says nothing (it would say so on standard output).
use_options() { printf '%s\n' "-XX:AOTCache=$cache" "-Xlog:aot*=off,cds*=off"; }

[ -f "$dist/jvm.options" ] || exit 0
read -r -a jvm_flags < "$dist/jvm.options" || true   # (no newline at its end is fine)
shopt -s nullglob
jars=("$dist"/lib/*.jar)
shopt -u nullglob
[ "${#jars[@]}" -gt 0 ] || exit 0

# What the cache depends on, as the JVM checks it: the JDK, the JVM flags, and every jar's name, size and time.
key() {
  echo "java $java"
  grep -E '^(IMPLEMENTOR|JAVA_RUNTIME_VERSION)=' "$JAVA_HOME/release" 2>/dev/null
  echo "flags ${jvm_flags[*]}"
  stat -c '%n %s %Y' "${jars[@]}"
}
want="$(key)"
current() { [ -s "$cache" ] && [ -f "$keyfile" ] && [ "$(cat "$keyfile")" = "$want" ]; }

if current; then use_options; exit 0; fi
if [ -f "$failed" ] && [ "$(cat "$failed")" = "$want" ]; then exit 0; fi

# One build at a time: another ./jccl that finds the lock taken runs without the cache this time.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dist/.jccl.aot.lock" || exit 0
  flock -n 9 || exit 0
  if current; then use_options; exit 0; fi
  rm -f "$cache".tmp.* "$keyfile".tmp.*   # left by a build that was killed (no other build runs)
fi

tmp="$cache.tmp.$$"
trap 'rm -f "$tmp" "$tmp.config" "$keyfile.tmp.$$"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "jccl: building the AOT cache, so that JVMs start warm (once per build, about half a minute;" \
  "JCCL_AOT=0 skips it) ..." >&2
# A clean environment: the training must not join a job or pick up settings of the shell that runs ./jccl.
clean_env=(env -i "PATH=$PATH" "HOME=${HOME:-/}" "JAVA_HOME=$JAVA_HOME")
[ -n "${TMPDIR:-}" ] && clean_env+=("TMPDIR=$TMPDIR")
[ -n "${USER:-}" ] && clean_env+=("USER=$USER")
start=$(date +%s)
ok=0
if "${clean_env[@]}" "$java" "${jvm_flags[@]}" -XX:AOTCacheOutput="$tmp" -cp "$dist/lib/*" io.jccl.cli.Main \
      aot-train >"$log" 2>&1 \
    && [ -s "$tmp" ] \
    && "${clean_env[@]}" "$java" "${jvm_flags[@]}" -XX:AOTCache="$tmp" -XX:AOTMode=on -cp "$dist/lib/*" \
      io.jccl.cli.Main version >>"$log" 2>&1; then
  ok=1
fi
# The cache first, then its key: a build stopped in between leaves a cache whose key does not match, which is not used.
if [ "$ok" = 1 ] && mv -f "$tmp" "$cache" && printf '%s\n' "$want" >"$keyfile.tmp.$$" \
    && mv -f "$keyfile.tmp.$$" "$keyfile"; then
  rm -f "$failed"
  echo "jccl: AOT cache built in $(( $(date +%s) - start )) s: $cache" >&2
  use_options
else
  printf '%s\n' "$want" >"$failed"
  echo "jccl: could not build the AOT cache (see $log); running without it. It is tried again after the next build" \
    "(or delete $failed); JCCL_AOT=0 stops trying." >&2
fi
exit 0
