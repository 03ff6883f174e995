#!/usr/bin/env bash
# GPU runbook (issue 25, item 4): the README's main job on no caches at all (CUDA_CACHE_DISABLE=1, an empty kernel cache),
# kernels built in bundles (the default) against one program per kernel (-Dlobatto.opencl.bundles=false), alternated,
# twice each; then the main job at 32^3 with a warm cache twice (its setup and total must stay within 0.5 and 1.0 s).
# About 2 minutes on one H100. Stage the commit's fat jar (./mvnw -q -o -pl benchmarks -am package -DskipTests;
# ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar), then on the GPU machine:  bash benchmarks/gpu/cold25.sh
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/logs"
p() { # label, JVM options, poisson arguments...
  local label=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$OUT/logs/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|kernel builds)|WARNING|SEVERE|Exception|warnings generated" "$OUT/logs/$label.log" | head -6
  sed -n '/^setup by phase/,/^host heap/p' "$OUT/logs/$label.log" | grep -E "^  (mesh|Z|geometry|eigen|p-MG|other|right)" | tr -s ' ' | tr '\n' ';'
  echo
}
export CUDA_CACHE_DISABLE=1
for i in 1 2; do
  for v in bundles separate; do
    cache=$(mktemp -d)
    opt="-Dlobatto.cache.dir=$cache"
    [ $v = separate ] && opt="$opt -Dlobatto.opencl.bundles=false"
    p "readme-cold-$v-$i" "$opt"
  done
done
unset CUDA_CACHE_DISABLE
p warm32 -Xmx60g -N 7 -e 32,32,32 > /dev/null
p p32-1 -Xmx60g -N 7 -e 32,32,32
p p32-2 -Xmx60g -N 7 -e 32,32,32
tar czf "$OUT/cold25.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
