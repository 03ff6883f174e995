#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 5 minutes (every limit together 440 s): CG's step length on the device summed in
# two stages (TermSumKernel, then CgAlphaKernel's one group; -Dlobatto.aparapi.alphaStages=auto, the default) against one
# group alone (=1), in the queued iterations (the element dot at every N):
#   1. bp BP5 stored at N = N_MIN..N_MAX (default 1..10; 8M DOFs, 50 iterations, BP_REPS=15: 5 samples), the two arms
#      alternated ROUNDS (2) times;
#   2. the path before (-Dlobatto.aparapi.elementDot=false) at N = 1 in each round, for the table's N = 1.
# Helpers: lib26.sh. Stage as queue26.sh's header says.
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/stages26.sh
# Results: $OUT/stages26-<commit>-summary.txt (also printed) and $OUT/stages26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/stages26 COMMIT=local \
#   ATOMIC=-Dlobatto.aparapi.atomicOperator=cas N_MIN=1 N_MAX=3 ROUNDS=1 bash benchmarks/gpu/stages26.sh
set -u
book=stages26
source "$(dirname "$0")/lib26.sh"
A=${ATOMIC:--Dlobatto.aparapi.atomicOperator=auto}
args=(--geometry stored --iterations 50 --reps "${BP_REPS:-15}")
for round in $(seq 1 "${ROUNDS:-2}"); do
  for s in 1 auto; do
    bench bp-stages$s-r$round 90 bp "$A" -Dlobatto.aparapi.elementDot=true -Dlobatto.aparapi.alphaStages=$s -- "${args[@]}" \
      --n-min "${N_MIN:-1}" --n-max "${N_MAX:-10}"
  done
  bench bp-before-r$round 40 bp "$A" -Dlobatto.aparapi.elementDot=false -- "${args[@]}" --n-min 1 --n-max 1
done
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: CG's step length summed in two stages against one group; $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cat "$out/times.log"
  summarise "$out"/bp-*.log
  echo "---- ratios to hipBone's model, and final / true residuals, per N"
  for f in "$out"/bp-*/bp-aparapi.json; do
    [ -f "$f" ] && echo "$(basename "$(dirname "$f")"): $(grep -oE '"(N|ratio_to_reference|final_residual|true_residual)" *: *[-0-9.eE]*' "$f" \
      | sed -E 's/"([a-z_N]+)" *: */\1=/' | tr '\n' ' ')"
  done
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
