#!/usr/bin/env bash
# GPU runbook (issue 25, item 4: a no-cache first run of the README's main job in at most 3 s): what compiling its
# kernels costs on the device, and whether fewer programs (several kernels bundled into one program) cost less.
# About 1 minute on one H100. Stage the commit's fat jar first:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine (repository root, .gpu carried):  bash benchmarks/gpu/buildcost.sh
# 1. The README's default job with no caches at all (CUDA_CACHE_DISABLE=1, an empty kernel cache), writing every source
#    it compiles (-Dlobatto.opencl.sourceDir), with its process wall time and its "kernel builds" line.
# 2. lobatto-bench build-cost on those sources, the driver's cache still off: one program per kernel on 1, 4 and 8
#    threads; bundles (1, 4 and 8 programs); and the PTX of the first configuration built again (ptxas alone).
# Writes $OUT/buildcost.tgz (the job's log, the table, the sources).
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
work=$(mktemp -d)
mkdir -p "$work/src" "$work/cache"
export CUDA_CACHE_DISABLE=1
t0=$(date +%s%N)
$RUN -Dlobatto.cache.dir="$work/cache" -Dlobatto.opencl.sourceDir="$work/src" -cp "$JAR" io.lobatto.examples.LobattoCli \
    poisson -b aparapi --profile > "$work/readme-cold.log" 2>&1
echo "== README job, no caches: rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(ls "$work/src" | wc -l) sources"
grep -E "^(CG:|time:|kernel builds)" "$work/readme-cold.log"
timeout 300 $RUN -jar "$JAR" build-cost "$work/src" --bundles 1,4,8 2>&1 | tee "$work/build-cost.txt"
tar czf "$OUT/buildcost.tgz" -C "$work" readme-cold.log build-cost.txt src
