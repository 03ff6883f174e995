#!/usr/bin/env bash
# GPU runbook (issue 25, item 4: the README's main job on a cold start with the backend opened ahead). About 2 minutes on
# one H100. One jar, A/B by property: "ahead" = the default (main opens the backend while picocli reads the arguments),
# "noahead" = -Dlobatto.cli.openAhead=false (the backend opened by the command, as before 205f96e). Stage:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine (repository root, .gpu carried):  COMMIT=<sha> bash benchmarks/gpu/ahead25.sh
# 1. cold README job (an empty CUDA_CACHE_PATH and an empty kernel cache), the variants alternated, ROUNDS (3) times;
# 2. a 67^3 job (-Xmx16g, its own caches), as final25.sh runs before its first-run checks;
# 3. the cold rounds again (ROUNDS_AFTER, 2): does a large job before make a first run slower?
# 4. warm README job, each variant twice on the caches of its last cold run.
# Before each part: the GPU's performance state, clocks and persistence mode, and the host's free memory.
# Writes $OUT/ahead25-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
logs=$(mktemp -d)
mkdir -p "$OUT"
state() {
  echo "-- state: $(nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem,persistence_mode,memory.used,temperature.gpu --format=csv,noheader 2>&1 | head -1); host $(awk '/MemFree|MemAvailable/ {printf "%s %d GB; ", $1, $2/1048576}' /proc/meminfo)"
}
p() { # label, JVM options, poisson arguments...
  local label=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$logs/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|kernel builds|process:)|WARNING|SEVERE|Exception|warnings generated" "$logs/$label.log" | head -8
}
opts() { case $1 in ahead) echo "" ;; noahead) echo "-Dlobatto.cli.openAhead=false" ;; esac; }
declare -A keep
cold() { # part label, rounds
  for i in $(seq 1 "$2"); do
    for v in ${VARIANTS:-ahead noahead}; do
      local cache=$(mktemp -d) cuda=$(mktemp -d)
      keep[$v]="$cache $cuda"
      CUDA_CACHE_PATH=$cuda p "readme-cold-$1-$v-$i" "-Dlobatto.cache.dir=$cache $(opts $v)"
    done
  done
}
echo "ahead25 at $COMMIT: $(date -u +%FT%TZ)"
echo "== 1. cold README job, a fresh machine"; state
cold first "${ROUNDS:-3}"
echo "== 2. 67^3 job"; state
c67=$(mktemp -d); cu67=$(mktemp -d)
CUDA_CACHE_PATH=$cu67 p p67 "-Xmx16g -Dlobatto.cache.dir=$c67" -N 7 -e 67,67,67
echo "== 3. cold README job after the 67^3 job"; state
cold after "${ROUNDS_AFTER:-2}"
echo "== 4. warm README job"; state
for i in 1 2; do
  for v in ahead noahead; do
    set -- ${keep[$v]}
    CUDA_CACHE_PATH=$2 p "readme-warm-$v-$i" "-Dlobatto.cache.dir=$1 $(opts $v)"
  done
done
state
tar czf "$OUT/ahead25-$COMMIT.tgz" -C "$logs" .
