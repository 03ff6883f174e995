#!/usr/bin/env bash
# Runs the benchmark suites on the GPU machine (device tool) after ../shared/gpu/stage.sh staged
# benchmarks/target/lobatto-bench.jar into .gpu/. Usage: bash benchmarks/gpu-run.sh [part] with part
# "kernels" (SelfCheck + kernel-info + launch + bs + bk, ~6 min), "solves" (bp + nekbone + op; the op
# suite's 8M-DOF setups at N = 1..15 are not yet timed on the GPU: if the part passes the device tool's
# 10 minutes, run "op" alone) or "op" (the assembled operator apply alone).
# kernel-info: registers/spills of the device program (-cl-nv-verbose); launch: where T0 goes.
# Everything of a part lands in one archive, $OUT/<part>.tgz (the device tool returns at most 8 files).
set -u
part=${1:-kernels}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=.gpu/lib/lobatto-bench.jar
mkdir -p "$out"
# JOPTS: extra JVM options, e.g. JOPTS=-Dlobatto.aparapi.assembledInOneExecute=false for an A/B run
j() { local t=$1; shift; timeout "$t" bash .gpu/run -Xmx60g ${JOPTS:-} -jar "$jar" "$@" -b aparapi -o "$out" --commit "$commit"; }
case "$part" in
  kernels)
    # correctness first: every backend operation against host loops on the GPU (exit 1 on any FAIL)
    timeout 150 bash .gpu/run -Xmx8g ${JOPTS:-} -cp "$jar" io.lobatto.backend.aparapi.SelfCheck 2>&1 | grep -v WARNING | tee "$out/selfcheck.log"
    timeout 60 bash .gpu/run -jar "$jar" kernel-info 2>&1 | grep -v WARNING | tee "$out/kernel-info.log"
    j 60 launch --reps 15 2>&1 | grep -v WARNING | tee "$out/launch.log"
    j 200 bs --max-bytes 2000000000 --gs-nodes 16000000 --reps 10 2>&1 | grep -v WARNING | tee "$out/bs.log"
    j 300 bk --dofs 20000000 --n-min 1 --n-max 15 --reps 10 2>&1 | grep -v WARNING | tee "$out/bk.log" ;;
  solves)
    j 280 bp --dofs 2000000 --n-min 1 --n-max 15 --n-step 2 --iterations 50 --reps 6 2>&1 | grep -v WARNING | tee "$out/bp.log"
    j 250 nekbone --dofs 2000000 --n-min 1 --n-max 15 --n-step 2 --reps 6 2>&1 | grep -v WARNING | tee "$out/nekbone.log"
    j 400 op --dofs 8000000 --n-min 1 --n-max 15 --reps 10 2>&1 | grep -v WARNING | tee "$out/op.log" ;;
  op)
    j 560 op --dofs 8000000 --n-min 1 --n-max 15 --reps 10 2>&1 | grep -v WARNING | tee "$out/op.log" ;;
esac
mkdir -p "$dest" && tar czf "$dest/$part.tgz" -C "$out" . && echo "results: $dest/$part.tgz"
