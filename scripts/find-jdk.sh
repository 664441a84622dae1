#!/usr/bin/env bash
# Prints the home of a JDK 25 or newer: $JAVA_HOME if it qualifies, else one under /usr/lib/jvm, else the
# `java` on PATH. Exits 1 with a message naming what it found when there is none.
set -u
major_of() {  # java executable -> major version (e.g. 25), empty if it does not run
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}
qualifies() { local m; m=$(major_of "$1/bin/java"); [ -n "$m" ] && [ "$m" -ge 25 ]; }
seen=()
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  if qualifies "$JAVA_HOME"; then echo "$JAVA_HOME"; exit 0; fi
  seen+=("JAVA_HOME=$JAVA_HOME (Java $(major_of "$JAVA_HOME/bin/java"))")
fi
for home in /usr/lib/jvm/temurin-2[5-9]* /usr/lib/jvm/*-2[5-9]* /usr/lib/jvm/jdk-2[5-9]* /usr/lib/jvm/*; do
  [ -x "$home/bin/java" ] || continue
  if qualifies "$home"; then echo "$home"; exit 0; fi
done
if command -v java >/dev/null 2>&1; then
  home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  if qualifies "$home"; then echo "$home"; exit 0; fi
  seen+=("java on PATH: $home (Java $(major_of "$home/bin/java"))")
fi
echo "JCCL needs a JDK 25 or newer and found none${seen:+ (found: ${seen[*]})}." >&2
echo "Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
exit 1
