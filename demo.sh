#!/usr/bin/env bash
# The parameter-server demo in one command, from a fresh clone with only JDK 17+ and Maven:
#   ./demo.sh              # about 3-4 min on 2 cores; the report goes to demo-report/
#   ./demo.sh --quick      # about 30 s
#   ./demo.sh --help       # every option
# Builds examples/ps-demo/target/ps-demo.jar when it is missing or older than any source or pom it is
# built from, then runs `java -jar examples/ps-demo/target/ps-demo.jar demo "$@"`.
set -euo pipefail

cd "$(dirname "$0")"
JAR=examples/ps-demo/target/ps-demo.jar

command -v java >/dev/null 2>&1 || { echo "demo.sh: java not found; install JDK 17 or later" >&2; exit 2; }
version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
if [ -z "$version" ] || [ "${version%%.*}" -lt 17 ] 2>/dev/null; then
  echo "demo.sh: java ${version:-of unknown version} found; the demo needs JDK 17 or later" >&2
  exit 2
fi

stale() {
  [ -f "$JAR" ] || return 0
  # any pom or source of the modules the jar is built from that is newer than the jar
  [ -n "$(find pom.xml backpressure reactor-rdma rsocket-transport-rdma examples/ps-demo \
          \( -name target -prune \) -o \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$JAR" -print -quit)" ]
}

if stale; then
  command -v mvn >/dev/null 2>&1 || { echo "demo.sh: mvn not found; install Maven 3.8 or later" >&2; exit 2; }
  echo "demo.sh: building $JAR (mvn -B -q -DskipTests -pl examples/ps-demo -am package) ..."
  mvn -B -q -DskipTests -pl examples/ps-demo -am package
fi

exec java -jar "$JAR" demo "$@"
