#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 7 minutes (every limit together 630 s: give ROUNDS=1 or SKIP_* a call of its own): CG's iterations queued on the device
# (CgBetaKernel sets beta there, the element kernel reads it, and the host reads each iteration's p . A p and r . r while
# the next one runs: -Dlobatto.aparapi.cgQueue=true, the default) against the iteration on the device with one read-back
# each (cgQueue=false) and the path before (-Dlobatto.aparapi.elementDot=false), on the same code:
#   1. bp BP5 stored at N = N_MIN..N_MAX (default 1..10; 8M DOFs, 50 iterations, BP_REPS=15: 5 samples): the three arms
#      (before, device, queued) alternated ROUNDS (2) times; both device arms with elementDot=true (every N, not only the
#      table's). The final and true residuals of the arms must agree to about 1e-10 (the dots' order differs).
#   2. unless SKIP_HIGH=1: the path before and the queued arm at N = 11..13, once (the element dot is not in the table
#      there: not measured).
#   3. unless SKIP_P10=1: the queued arm at N = 10 in the points structure, K = 6 layers of a column per work-item and
#      strided points (K = 1), against the table's pipelined columns (the first part's queued rows).
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/queue26.sh
# Results: $OUT/queue26-<commit>-summary.txt (also printed) and $OUT/queue26-<commit>.tgz.
# Local check on PoCL (the atomic form is NVIDIA's by default: cas here): RUN=java JAR=benchmarks/target/lobatto-bench.jar \
#   DOFS=20000 SCALE=4 OUT=/tmp/queue26 COMMIT=local ATOMIC=-Dlobatto.aparapi.atomicOperator=cas N_MIN=2 N_MAX=4 \
#   ROUNDS=1 bash benchmarks/gpu/queue26.sh
set -u
book=queue26
source "$(dirname "$0")/lib26.sh"
A=${ATOMIC:--Dlobatto.aparapi.atomicOperator=auto}
E=-Dlobatto.aparapi.elementDot
Q=-Dlobatto.aparapi.cgQueue
args=(--geometry stored --iterations 50 --reps "${BP_REPS:-15}")
for round in $(seq 1 "${ROUNDS:-2}"); do
  bench bp-before-r$round 90 bp "$A" $E=false -- "${args[@]}" --n-min "${N_MIN:-1}" --n-max "${N_MAX:-10}"
  bench bp-device-r$round 90 bp "$A" $E=true $Q=false -- "${args[@]}" --n-min "${N_MIN:-1}" --n-max "${N_MAX:-10}"
  bench bp-queued-r$round 90 bp "$A" $E=true $Q=true -- "${args[@]}" --n-min "${N_MIN:-1}" --n-max "${N_MAX:-10}"
done
if [ -z "${SKIP_HIGH:-}" ]; then
  bench bp-before-high 35 bp "$A" $E=false -- "${args[@]}" --n-min 11 --n-max 13
  bench bp-queued-high 35 bp "$A" $E=true $Q=true -- "${args[@]}" --n-min 11 --n-max 13
fi
if [ -z "${SKIP_P10:-}" ]; then
  for k in 6 1; do
    bench bp-queued-points$k 20 bp "$A" $E=true $Q=true -Dlobatto.aparapi.elementVariant=points \
      -Dlobatto.aparapi.pointsPerColumn=$k -- "${args[@]}" --n-min 10 --n-max 10
  done
fi
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: CG's iterations queued on the device against one read-back each and the path before; $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cat "$out/times.log"
  summarise "$out"/bp-*.log
  echo "---- final residuals (CG's recursive r) and true residuals (b - A x), per N"
  for f in "$out"/bp-*/bp-aparapi.json; do
    [ -f "$f" ] && echo "$(basename "$(dirname "$f")"): $(grep -oE '"(N|final_residual|true_residual)" *: *[-0-9.eE]*' "$f" \
      | sed -E 's/"([a-z_N]+)" *: */\1=/' | tr '\n' ' ')"
  done
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
