#!/usr/bin/env bash
# GPU runbook (issue 25, item 4: the README's main job on a cold start, with quick-first builds). About 3 minutes on one H100.
# One jar, A/B by property: "off" = -Dlobatto.opencl.quickFirst=false (every kernel optimised, as before), "qf" = the
# default (auto: quick first for this small problem), "qf16" = qf with vector bundles of 16. Stage:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine (repository root, .gpu carried):  COMMIT=<sha> bash benchmarks/gpu/cold26.sh
# 1. The README's default job on a cold start (an empty CUDA_CACHE_PATH and an empty kernel cache), VARIANTS (default
#    "off qf qf16") alternated, ROUNDS (3) times each: process wall, the CLI's setup/solve, kernel builds, process lines.
# 2. Warm: the README job with the caches of an off (twice) and of a qf cold run (four times: each loads the quick
#    programs; at b9b6191, where a loaded quick program was upgraded at once, the first of them took 2.2 s).
# 3. Upgrades on the README job: qf with -Dlobatto.opencl.upgradeAfter=1000000 (every solve kernel swaps mid-solve):
#    the same iterations and errors.
# 4. 32^3 (above the quick-first size: auto builds optimised), off and qf once each after a fill: nothing changes.
# COLD_ONLY=1 stops after part 1. Writes $OUT/cold26-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
logs=$(mktemp -d)
mkdir -p "$OUT"
p() { # label, JVM options, poisson arguments...
  local label=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$logs/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|kernel builds|quick-first|process:)|WARNING|SEVERE|Exception|warnings generated" "$logs/$label.log" | head -8
}
opts() { # variant -> JVM options
  case $1 in
    off) echo "-Dlobatto.opencl.quickFirst=false" ;;
    qf) echo "" ;;
    qf16) echo "-Dlobatto.aparapi.vectorBundle=16" ;;
  esac
}
echo "== 1. cold README job at $COMMIT"
declare -A keep
for i in $(seq 1 "${ROUNDS:-3}"); do
  for v in ${VARIANTS:-off qf qf16}; do
    cache=$(mktemp -d); cuda=$(mktemp -d)
    keep[$v]="$cache $cuda"
    CUDA_CACHE_PATH=$cuda p "readme-cold-$v-$i" "-Dlobatto.cache.dir=$cache $(opts $v)"
  done
done
if [ "${COLD_ONLY:-0}" = 1 ]; then        # part 1 only
  tar czf "$OUT/cold26-$COMMIT.tgz" -C "$logs" .
  exit 0
fi
echo "== 2. warm README job on the caches of the last cold runs"
for i in 1 2 3 4; do
  for v in off qf; do
    [ $v = off ] && [ $i -gt 2 ] && continue
    set -- ${keep[$v]}
    CUDA_CACHE_PATH=$2 p "readme-warm-$v-$i" "-Dlobatto.cache.dir=$1 $(opts $v)"
  done
done
echo "== 3. qf with upgrades mid-solve (upgradeAfter 1e6 work-items)"
cache=$(mktemp -d); cuda=$(mktemp -d)
CUDA_CACHE_PATH=$cuda p readme-upgrade "-Dlobatto.cache.dir=$cache -Dlobatto.opencl.upgradeAfter=1000000"
echo "== 4. 32^3, warm, off and qf"
p fill32 "-Xmx60g" -N 7 -e 32,32,32 > /dev/null
for v in off qf; do
  p "p32-$v" "-Xmx60g $(opts $v)" -N 7 -e 32,32,32
done
tar czf "$OUT/cold26-$COMMIT.tgz" -C "$logs" .
