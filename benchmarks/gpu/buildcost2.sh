#!/usr/bin/env bash
# GPU runbook (issue 25, item 4): what each kernel of the README's main job costs to compile, per kernel, with the
# default options, with -cl-opt-disable and with -cl-nv-opt-level=0, and how much of each is the PTX-to-machine-code
# step. About 2 minutes on one H100. Stage the commit's fat jar first:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine (repository root, .gpu carried):  COMMIT=<sha> bash benchmarks/gpu/buildcost2.sh
# 1. The README's default job with no caches (an empty CUDA_CACHE_PATH and kernel cache), bundles as shipped: its wall.
# 2. The same with one program per kernel (-Dlobatto.opencl.bundles=false), writing every source it compiles.
# 3. lobatto-bench build-cost on those sources, one program per kernel on 1 thread, the driver's cache off, for three
#    option sets; each prints every kernel's build from source and from its binary.
# Writes $OUT/buildcost2-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=<sha> (the device copy has a stale git HEAD)}
work=$(mktemp -d)
mkdir -p "$work/src"
for mode in bundles separate; do
    mkdir -p "$work/cache-$mode" "$work/cuda-$mode"
    extra=""
    [ "$mode" = separate ] && extra="-Dlobatto.opencl.bundles=false -Dlobatto.opencl.sourceDir=$work/src"
    t0=$(date +%s%N)
    CUDA_CACHE_PATH="$work/cuda-$mode" $RUN -Dlobatto.cache.dir="$work/cache-$mode" $extra -cp "$JAR" \
        io.lobatto.examples.LobattoCli poisson -b aparapi --profile > "$work/readme-$mode.log" 2>&1
    echo "== README job, no caches, $mode: rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    grep -E "^(CG:|time:|kernel builds|process)" "$work/readme-$mode.log"
done
echo "== $(ls "$work/src" | wc -l) sources"
export CUDA_CACHE_DISABLE=1
for opt in "" "-cl-opt-disable" "-cl-nv-opt-level=0"; do
    name=${opt:-default}
    timeout 150 $RUN -jar "$JAR" build-cost "$work/src" --threads 1 --bundles 1 ${opt:+--options=$opt} > "$work/cost-$name.txt" 2>&1
    echo "== build-cost $name: rc=$?"
    grep -vE 'warnings? generated' "$work/cost-$name.txt" | head -70
done
tar czf "$OUT/buildcost2-$COMMIT.tgz" -C "$work" readme-bundles.log readme-separate.log cost-default.txt \
    cost--cl-opt-disable.txt cost--cl-nv-opt-level=0.txt src
