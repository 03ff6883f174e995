#!/usr/bin/env bash
# GPU runbook of issue 26, item 4: BP5 with the geometric factors on the fly, one work-item per point
# (StiffnessBp35TrilinearPointsKernel, `onthefly:points`) against the shared-memory columns (`onthefly:shared`), the
# register columns (`onthefly:registers`) and the stored factors, on one H100, under 9 minutes (every command under its
# own timeout, 535 s in all):
#   1. SelfCheck --onthefly: the three kernels against the stored factors on the GPU, N = 1..10, element apply, fused
#      operator with its dot and CG's p update (1e-12; only a GPU shows a missing barrier); built optimised
#      (quickFirst=false), so that op and bp load its kernels from the cache
#   2. lobatto-bench op, BP5 at N = 2..10, ~8M DOFs, the four geometries on the same mesh one after the other per N
#      (interleaved), apply and CG's call, 4 samples each, in the default operator form (the atomic one on the H100);
#      each row prints its kernel's plan
#   3. lobatto-bench bp, 50 CG iterations: stored, onthefly (the table's kernel) and onthefly:points
#   4. lobatto-bench kernel-info -N 7: registers and spills of every BP3.5 kernel at N = 7, the three on-the-fly ones
# Every sweep has --time-limit (its timeout less 20 s): it stops before a point it could not finish and writes its JSON
# with "cut": true.
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   rm -rf .gpu; ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/onfly26.sh
# Results: $OUT/onfly26-<commit>-summary.txt (the lines to read, also printed) and $OUT/onfly26-<commit>.tgz (logs, op
# and bp JSON/CSV, the kernel-info table, times.log, nvidia-smi).
# Expected (not measured): points faster than the shared columns from N = 5 or 6, as with stored factors (BP5 p = 7:
# 19.3 against 16.0 GDOF/s), and faster than the stored factors there, since it moves no factor; the issue's 40 GDOF/s
# at p = 7 is not expected.
# Local check on PoCL at a small size (kernel-info needs --device for a CPU):
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 NMAX=4 DEVICE=EPYC SCALE=3 OUT=/tmp/onfly26 \
#     COMMIT=local bash benchmarks/gpu/onfly26.sh
set -u
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
nmin=${NMIN:-2}
nmax=${NMAX:-10}
scale=${SCALE:-1}   # the timeouts' factor (a PoCL check runs slower)
geometry=stored,onthefly:registers,onthefly:shared,onthefly:points
bpgeometry=stored,onthefly,onthefly:points
device=()   # kernel-info builds for the first GPU; DEVICE=name picks another OpenCL device (PoCL: no NVIDIA options)
[ -n "${DEVICE:-}" ] && device=(--device "$DEVICE" --options "")
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== onfly26/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
# kinfo TIMEOUT: kernel-info -N 7 (both on-the-fly kernels), table in $out/kernel-info
kinfo() {
  timeout $(($1 * scale)) "${run[@]}" -Xmx16g ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli kernel-info -N 7 \
    ${device[@]+"${device[@]}"} -o "$out/kernel-info" --commit "$COMMIT"
}
# suite TIMEOUT NAME GEOMETRY ARGS...: lobatto-bench NAME, BP5 in GEOMETRY, its sweep limited to TIMEOUT - 20 s
suite() {
  local t=$1 s=$2 geometry=$3; shift 3
  timeout $((t * scale)) "${run[@]}" -Xmx60g ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli "$s" -b aparapi \
    -o "$out/$s" --commit "$COMMIT" --time-limit $((t * scale - 20)) --problems BP5 --geometry "$geometry" \
    --dofs "$dofs" --n-min "$nmin" --n-max "$nmax" "$@"
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
timed selfcheck timeout $((90 * scale)) "${run[@]}" -Xmx16g -Dlobatto.opencl.quickFirst=false ${JOPTS:-} -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --onthefly > "$out/selfcheck.log" 2>&1
timed op suite 230 op "$geometry" --reps 4 > "$out/op.log" 2>&1
timed bp suite 170 bp "$bpgeometry" --iterations 50 --reps 3 > "$out/bp.log" 2>&1
timed kernel-info kinfo 45 > "$out/kernel-info.log" 2>&1
echo "== onfly26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/onfly26-$COMMIT-summary.txt"
{
  echo "onfly26 runbook at $COMMIT: BP5 op $geometry, bp $bpgeometry, N = $nmin..$nmax, $dofs DOFs; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  echo "---- SelfCheck --onthefly (FAIL lines, kernels that do not fit, the verdict)"
  grep -E '^(FAIL|device:)|does not fit|ALL PASS|FAILURES|Exception|error' "$out/selfcheck.log" | head -20
  echo "checks passed: $(grep -c '^PASS' "$out/selfcheck.log")"
  echo "---- op (apply: us, GDOF/s median, best, worst, spread; CG's call the same)"
  grep -E '^(op|BP5)|kernel:|reference:|skipped|cut|error|Exception|WARNING|SEVERE' "$out/op.log"
  echo "---- bp"
  grep -E '^(BP|BP5)|reference:|skipped|cut|error|Exception|WARNING|SEVERE' "$out/bp.log"
  echo "---- kernel-info N = 7 (kernel, N, registers, stack, spill stores, spill loads, group limit, ...)"
  grep -E '^kernel,|BP3\.5' "$out/kernel-info/kernel-info-nvidia.csv" 2>/dev/null
  grep -E 'error|Exception|SEVERE' "$out/kernel-info.log" | head -5
} > "$summary"
cat "$summary"
tar czf "$dest/onfly26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/onfly26-$COMMIT.tgz and $summary"
