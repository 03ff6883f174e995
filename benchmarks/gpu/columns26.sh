#!/usr/bin/env bash
# GPU runbook of issue 26: the points kernels with K layers of an (a, b) column per work-item (aa5806c and after) against
# the strided points of a297613 (-Dlobatto.aparapi.pointsPerColumn=1), on one H100, under 9 minutes (every command under
# its own timeout, 580 s in all; about 420 s expected):
#   1. SelfCheck on the GPU (only a GPU shows a missing barrier): --onthefly (the three on-the-fly kernels, N = 1..10)
#      and --element-kernel=STIFFNESS_BP35 and STIFFNESS_BP30 with the points structure forced, K as the plan chooses
#   2. op, BP5 stored (the table: points at N = 6..9) and onthefly:points at N = 6..10, ~8M DOFs, 4 samples: K auto, then
#      K = 1, twice (alternated runs, one JVM each: the property is read when the operator is planned)
#   3. op, BP3 at N = 5..9, --element-variants table,points, K auto (is BP3.0 in points now faster than the table's
#      pipelined and register kernels?)
#   4. bp, BP5 stored and onthefly:points at N = 7..10, 50 iterations: K auto, then K = 1
#   5. kernel-info -N 7: the registers of the column kernels (BP3.5, BP3.0 and on the fly, in the points plan)
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   rm -rf .gpu; ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'   (PDF export, unused; the
#     working tree and .gpu must stay under 64 MiB)
# Run on the GPU machine from the repository root: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/columns26.sh
# Results: $OUT/columns26-<commit>-summary.txt (also printed) and $OUT/columns26-<commit>.tgz (logs, JSON, CSV).
# Local check on PoCL at a small size (kernel-info needs --device for a CPU):
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 NMIN=6 NMAX=7 DEVICE=EPYC SCALE=3 OUT=/tmp/columns26 \
#     COMMIT=local bash benchmarks/gpu/columns26.sh
set -u
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
nmin=${NMIN:-6}
nmax=${NMAX:-10}
scale=${SCALE:-1}
device=()
[ -n "${DEVICE:-}" ] && device=(--device "$DEVICE" --options "")
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== columns26/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
# bench TIMEOUT K NAME SUITE ARGS...: lobatto-bench SUITE with pointsPerColumn=K, its sweep limited to TIMEOUT - 20 s
bench() {
  local t=$1 k=$2 name=$3 s=$4; shift 4
  timeout $((t * scale)) "${run[@]}" -Xmx60g -Dlobatto.aparapi.pointsPerColumn="$k" ${JOPTS:-} -cp "$jar" \
    io.lobatto.bench.BenchCli "$s" -b aparapi -o "$out/$name" --commit "$COMMIT" --time-limit $((t * scale - 20)) \
    --dofs "$dofs" "$@" > "$out/$name.log" 2>&1
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
timed selfcheck-onthefly timeout $((45 * scale)) "${run[@]}" -Xmx16g ${JOPTS:-} -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck ${DEVICE:-} --onthefly > "$out/selfcheck-onthefly.log" 2>&1
for k in STIFFNESS_BP35 STIFFNESS_BP30; do
  timed selfcheck-$k timeout $((30 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=points ${JOPTS:-} -cp "$jar" \
    io.lobatto.backend.aparapi.SelfCheck ${DEVICE:-} --element-kernel=$k > "$out/selfcheck-$k.log" 2>&1
done
for round in 1 2; do
  for k in auto 1; do
    timed op-bp5-k$k-r$round bench 70 "$k" op-bp5-k$k-r$round op --problems BP5 --geometry stored,onthefly:points \
      --n-min "$nmin" --n-max "$nmax" --reps 4
  done
done
timed op-bp3 bench 65 auto op-bp3 op --problems BP3 --element-variants table,points --n-min $((nmin - 1)) \
  --n-max $((nmax < 9 ? nmax : 9)) --reps 4
for k in auto 1; do
  timed bp-k$k bench 50 "$k" bp-k$k bp --problems BP5 --geometry stored,onthefly:points --n-min $((nmin + 1)) \
    --n-max "$nmax" --iterations 50 --reps 3
done
timed kernel-info timeout $((30 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=points ${JOPTS:-} -cp "$jar" \
  io.lobatto.bench.BenchCli kernel-info -N 7 ${device[@]+"${device[@]}"} -o "$out/kernel-info" --commit "$COMMIT" \
  > "$out/kernel-info.log" 2>&1
echo "== columns26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/columns26-$COMMIT-summary.txt"
{
  echo "columns26 runbook at $COMMIT: K layers per work-item (auto) against strided points (K = 1), $dofs DOFs; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for f in "$out"/selfcheck-*.log; do
    echo "---- $(basename "$f" .log): $(grep -c '^PASS' "$f") PASS, $(grep -c '^FAIL' "$f") FAIL; $(grep -E 'ALL PASS|FAILURES' "$f" | tail -1)"
    grep -E '^FAIL|Exception|error' "$f" | head -5
  done
  for f in "$out"/op-*.log "$out"/bp-*.log; do
    echo "---- $(basename "$f" .log)"
    grep -E '^(BP|op )|kernel:|reference:|skipped|cut|error|Exception|WARNING|SEVERE' "$f"
  done
  echo "---- kernel-info N = 7, points forced (kernel, N, registers, stack, spill stores, spill loads, group limit, ...)"
  grep -E '^kernel,|BP3' "$out/kernel-info/kernel-info-nvidia.csv" 2>/dev/null
  grep -E 'error|Exception|SEVERE' "$out/kernel-info.log" | head -5
} > "$summary"
cat "$summary"
tar czf "$dest/columns26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/columns26-$COMMIT.tgz and $summary"
