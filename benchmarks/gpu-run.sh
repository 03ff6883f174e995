#!/usr/bin/env bash
# Runs the benchmark suites on the GPU machine (device tool) after ../shared/gpu/stage.sh staged
# benchmarks/target/lobatto-bench.jar into .gpu/. Usage: bash benchmarks/gpu-run.sh [part] with part
# "kernels" (bs + bk, ~4 min) or "solves" (bp + nekbone, ~4 min); results go to $OUT.
set -u
out=${OUT:-gpu-bench}
commit=${COMMIT:-unknown}
jar=.gpu/lib/lobatto-bench.jar
mkdir -p "$out"
j() { bash .gpu/run -Xmx60g -jar "$jar" "$@" -b aparapi -o "$out" --commit "$commit"; }
case "${1:-kernels}" in
  kernels)
    timeout 200 j bs --max-bytes 2000000000 --gs-nodes 16000000 --reps 10 2>&1 | grep -v WARNING | tee "$out/bs.log"
    timeout 330 j bk --dofs 20000000 --n-min 1 --n-max 15 --reps 10 2>&1 | grep -v WARNING | tee "$out/bk.log" ;;
  solves)
    timeout 280 j bp --dofs 2000000 --n-min 1 --n-max 15 --n-step 2 --iterations 50 --reps 6 2>&1 | grep -v WARNING | tee "$out/bp.log"
    timeout 250 j nekbone --dofs 2000000 --n-min 1 --n-max 15 --n-step 2 --reps 6 2>&1 | grep -v WARNING | tee "$out/nekbone.log" ;;
esac
