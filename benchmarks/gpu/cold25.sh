#!/usr/bin/env bash
# GPU runbook (issue 25, item 4): the README's main job on no caches at all (CUDA_CACHE_DISABLE=1, an empty kernel cache),
# kernels built in bundles (the default) against one program per kernel (-Dlobatto.opencl.bundles=false), alternated,
# twice each; then the main job at 32^3 with a warm cache twice (its setup and total must stay within 0.5 and 1.0 s).
# Then the main job at 67^3 (-Xmx16g) once, and build-cost on the sources the first cold run compiled. About 3 minutes on one H100. Stage the commit's fat jar (./mvnw -q -o -pl benchmarks -am package -DskipTests;
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
  grep -E "^(CG:|time:|kernel builds|process:)|WARNING|SEVERE|Exception|warnings generated" "$OUT/logs/$label.log" | head -6
  sed -n '/^setup by phase/,/^host heap/p' "$OUT/logs/$label.log" | grep -E "^  (mesh|Z|geometry|eigen|p-MG|other|right)" | tr -s ' ' | tr '\n' ';'
  echo
}
export CUDA_CACHE_DISABLE=1
for i in 1 2; do
  for v in bundles separate; do
    cache=$(mktemp -d)
    opt="-Dlobatto.cache.dir=$cache"
    [ $v = separate ] && opt="$opt -Dlobatto.opencl.bundles=false"
    [ $i = 1 ] && [ $v = bundles ] && opt="$opt -Dlobatto.opencl.sourceDir=$OUT/logs/src"
    p "readme-cold-$v-$i" "$opt"
  done
done
unset CUDA_CACHE_DISABLE
p warm32 -Xmx60g -N 7 -e 32,32,32 > /dev/null
p p32-1 -Xmx60g -N 7 -e 32,32,32
p p32-2 -Xmx60g -N 7 -e 32,32,32
p p67 -Xmx16g -N 7 -e 67,67,67
# what each kernel of the cold run costs to compile alone, one after another (the driver's cache off)
CUDA_CACHE_DISABLE=1 timeout 100 $RUN -jar "$JAR" build-cost "$OUT/logs/src" --threads 1,8 --bundles 8 --no-binaries 2>&1 \
  | tee "$OUT/logs/build-cost.txt" | sed -n '1,16p'
tar czf "$OUT/cold25.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
