#!/usr/bin/env bash
# The Beam module's pipeline tests on real engines: Beam's Flink job server
# (Flink in the job server's JVM, --flink-master=[local]), its Spark 3 job
# server (--spark-master-url=local[2]) and a standalone Prism job server,
# each reached by --runner=universal with the workers in the test process
# (--environment_type=LOOPBACK). Eval must equal the library exactly and
# training stay within 5 % of one machine, as on Prism in-process.
#
# Maven Central serves no job server jar (the shaded beam-runners-*-job-server)
# of a recent release; the job servers are the same drivers run from their
# runner jars and dependencies, resolved by Maven at BEAM_JAVA_VERSION, the
# newest release whose runner jars all resolve there, and kept in
# $CVAR_CACHE (default ~/.cache/cvar) and ~/.m2 between runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

BEAM_JAVA_VERSION=2.62.0
FLINK_VERSION=1.19
SPARK_VERSION=3.5.0
cache="${CVAR_CACHE:-$HOME/.cache/cvar}/beam-jobservers/$BEAM_JAVA_VERSION"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# classpath NAME DEPENDENCIES…: the jars of the dependencies (group:artifact:version),
# resolved once into the cache.
classpath() {
  local name=$1 dir="$cache/$1"
  shift
  if [ ! -f "$dir/.complete" ]; then
    mkdir -p "$tmp/$name"
    {
      echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
      echo "<groupId>local</groupId><artifactId>$name</artifactId><version>1</version><dependencies>"
      local d g a v
      for d in "$@"; do
        IFS=: read -r g a v <<<"$d"
        echo "<dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version></dependency>"
      done
      echo '</dependencies></project>'
    } >"$tmp/$name/pom.xml"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$tmp/$name" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$dir/lib") >&2
    touch "$dir/.complete"
  fi
  echo "$dir/lib/*"
}

# await PORT NAME LOG: waits until the job server just started listens on PORT.
await() {
  local i
  for i in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then break; fi
    sleep 1
  done
  echo "$2 did not listen on port $1:"; tail -50 "$3"; return 1
}

# The pipeline tests, compiled once, run against each job server.
(cd beam && go test -c -o "$tmp/cvarbeam.test" ./cvarbeam)
tests='TestEvaluate|TestTrain|TestTune|TestSharedWorkFolder'
# ontest NAME PORT LOG [ARGS…]: ARGS go to the test binary; -bundles-at-once=N
# makes the evaluation's reading step show N bundles at once (Flink is asked
# for --parallelism=N, Spark's local[2] gives 2).
ontest() {
  local name=$1 port=$2 log=$3
  shift 3
  printf '\n--- the pipeline tests on %s\n' "$name"
  if ! (cd beam/cvarbeam && "$tmp/cvarbeam.test" -test.run "$tests" -test.count 1 -test.v "$@" \
    --runner=universal --endpoint="localhost:$port" --environment_type=LOOPBACK >"$tmp/$name.out" 2>&1); then
    grep -v '^time=.*level=INFO' "$tmp/$name.out" | tail -60
    echo "the job server's log:"; tail -60 "$log"
    return 1
  fi
  grep -E '^(--- |ok|PASS|FAIL)|(train|bundles)_test.go' "$tmp/$name.out"
}

flink=$(classpath flink "org.apache.beam:beam-runners-flink-$FLINK_VERSION:$BEAM_JAVA_VERSION" org.slf4j:slf4j-simple:1.7.36)
java -cp "$flink" org.apache.beam.runners.flink.FlinkJobServerDriver --flink-master='[local]' \
  --job-port=18099 --artifact-port=18098 --expansion-port=0 >"$tmp/flink.log" 2>&1 &
pids+=($!)
await 18099 "Flink's job server" "$tmp/flink.log"
ontest flink 18099 "$tmp/flink.log" -bundles-at-once=2 --parallelism=2
kill "${pids[-1]}"

spark=$(classpath spark "org.apache.beam:beam-runners-spark-3:$BEAM_JAVA_VERSION" \
  "org.apache.spark:spark-core_2.12:$SPARK_VERSION" "org.apache.spark:spark-streaming_2.12:$SPARK_VERSION" \
  "org.apache.spark:spark-sql_2.12:$SPARK_VERSION")
# Spark 3.5 on Java 17 opens these packages to itself (its own launcher does).
java --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED \
  -cp "$spark" org.apache.beam.runners.spark.SparkJobServerDriver --spark-master-url='local[2]' \
  --job-port=18199 --artifact-port=18198 --expansion-port=0 >"$tmp/spark.log" 2>&1 &
pids+=($!)
await 18199 "Spark's job server" "$tmp/spark.log"
ontest spark 18199 "$tmp/spark.log" -bundles-at-once=2
kill "${pids[-1]}"

(cd beam && go build -o "$tmp/prism" github.com/apache/beam/sdks/v2/go/cmd/prism)
"$tmp/prism" -job_port 18073 -serve_http=false >"$tmp/prism.log" 2>&1 &
pids+=($!)
await 18073 "Prism's job server" "$tmp/prism.log"
ontest prism 18073 "$tmp/prism.log"
