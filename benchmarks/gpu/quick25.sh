#!/usr/bin/env bash
# GPU runbook (issue 25: what would building every kernel quickly give a cold start, and cost a warm solve?). About 1.5
# minutes on one H100. -Dlobatto.opencl.extraOptions=-cl-opt-disable adds the option to every build (the solve kernels
# too; the setup kernels below 2^21 points have it already). Stage the commit's fat jar:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine (repository root, .gpu carried):  COMMIT=<sha> bash benchmarks/gpu/quick25.sh
# 1. The README's default job on a cold start (an empty CUDA_CACHE_PATH and kernel cache), default and quick, alternated,
#    twice each; then each warm once (its kernel cache from its last cold run).
# 2. 32^3 p-MG, warm, default and quick (one run of each fills its cache first): the solve with quick kernels.
# Writes $OUT/quick25-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
logs=$(mktemp -d)
mkdir -p "$OUT"
Q=-Dlobatto.opencl.extraOptions=-cl-opt-disable
p() { # label, JVM options, poisson arguments...
  local label=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$logs/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|kernel builds|process:)|WARNING|SEVERE|Exception" "$logs/$label.log" | head -8
  grep -E "^(BP3.5 N=7 \(assembled\)|errors|sum of kernels|wall per iteration)" "$logs/$label.log" | head -4
}
declare -A cache
for v in default quick; do cache[$v]=; done
for i in 1 2; do
  for v in default quick; do
    cache[$v]=$(mktemp -d); cuda=$(mktemp -d)
    opt="-Dlobatto.cache.dir=${cache[$v]}"
    [ $v = quick ] && opt="$opt $Q"
    CUDA_CACHE_PATH=$cuda p "readme-cold-$v-$i" "$opt"
  done
done
for v in default quick; do
  opt="-Dlobatto.cache.dir=${cache[$v]}"
  [ $v = quick ] && opt="$opt $Q"
  p "readme-warm-$v" "$opt"
done
p fill32-default -Xmx60g -N 7 -e 32,32,32 > /dev/null
p fill32-quick "-Xmx60g $Q" -N 7 -e 32,32,32 > /dev/null
p p32-default -Xmx60g -N 7 -e 32,32,32
p p32-quick "-Xmx60g $Q" -N 7 -e 32,32,32
tar czf "$OUT/quick25-$COMMIT.tgz" -C "$logs" .
