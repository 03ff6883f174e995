#!/usr/bin/env bash
# GPU runbook of issue 26 for the next lease: how many layers of an (a, b) column each work-item of the points kernels
# should take (-Dlobatto.aparapi.pointsPerColumn=K; the table at 8030ba3 takes 2 for BP3.5 at N = 7 and, on the fly, 3
# at N = 8). columns26.sh and final26.sh measured only K = 1 and the smallest K that fits a group of 256; this sweeps
# K = 1, 2, 3, 4, 8 (a K whose P^2 ceil(P/K) work-items do not fit 256 gives way to the smallest that does; K = 4 and 8
# at N = 7 put 2 and 4 elements in a group). One H100, under 7 minutes (every command under its own timeout, 380 s):
#   1. SelfCheck on the GPU with K = 4 (two elements per group at N = 7): --element-kernel=STIFFNESS_BP35 with the points
#      structure forced, and --onthefly
#   2. op BP5 stored (points forced) and onthefly:points at N = 6..10, ~8M DOFs, 4 samples, one run per K (a sweep
#      the --time-limit cuts says so in its log and JSON; then run the rest with NMIN)
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
#   (the working tree and .gpu must stay under 64 MiB)
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/layers26.sh
# Results: $OUT/layers26-<commit>-summary.txt (also printed) and $OUT/layers26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 NMAX=6 SCALE=4 OUT=/tmp/layers26 \
#   COMMIT=local bash benchmarks/gpu/layers26.sh
set -u
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
scale=${SCALE:-1}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== layers26/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
timed selfcheck-bp35-k4 timeout $((30 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=points \
  -Dlobatto.aparapi.pointsPerColumn=4 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP35 \
  > "$out/selfcheck-bp35-k4.log" 2>&1
timed selfcheck-onthefly-k4 timeout $((40 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.pointsPerColumn=4 -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --onthefly > "$out/selfcheck-onthefly-k4.log" 2>&1
for k in 1 2 3 4 8; do
  timed op-k$k timeout $((62 * scale)) "${run[@]}" -Xmx60g -Dlobatto.aparapi.elementVariant=points \
    -Dlobatto.aparapi.pointsPerColumn=$k -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi -o "$out/op-k$k" \
    --commit "$COMMIT" --time-limit $((62 * scale - 10)) --dofs "${DOFS:-8000000}" --problems BP5 \
    --geometry stored,onthefly:points --n-min "${NMIN:-6}" --n-max "${NMAX:-10}" --reps 4 > "$out/op-k$k.log" 2>&1
done
echo "== layers26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/layers26-$COMMIT-summary.txt"
{
  echo "layers26 runbook at $COMMIT: BP5 points, K layers of a column per work-item; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  for f in "$out"/selfcheck-*.log; do
    echo "---- $(basename "$f" .log): $(grep -c '^PASS' "$f") PASS, $(grep -c '^FAIL' "$f") FAIL; $(grep -E 'ALL PASS|FAILURES' "$f" | tail -1)"
    grep -E '^FAIL|Exception' "$f" | head -5
  done
  for k in 1 2 3 4 8; do
    echo "---- op K = $k"
    grep -E '^BP5|kernel:|cut|error|Exception' "$out/op-k$k.log"
  done
} > "$summary"
cat "$summary"
tar czf "$dest/layers26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/layers26-$COMMIT.tgz and $summary"
