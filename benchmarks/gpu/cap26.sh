#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 4 minutes (every limit together 580 s): the register-cap table (BP5's stored
# points kernel at N = 7 capped at 32 registers, ElementPlan.registerCapTable) and the dedicated reduction kernels
# (DotKernel, CgUpdateKernel) at the code that carries them. It ran at 995d83e with bk5's limit at 230 s (75 s used).
#   1. SelfCheck of BP3.5 (the table's cap at N = 7)
#   2. bits: bp BP5 at N = 3 and 7 (2M DOFs, 50 iterations) with the one-kernel atomic operator off, so that every sum is
#      in a fixed order: -Dlobatto.aparapi.reductionKernels=general, dedicated, dedicated; the final residuals (as the
#      JSON prints them: the shortest decimal that reads back as the same double) must agree
#   3. op BP5 stored at N = 7, 8: the table / no cap (-Dlobatto.aparapi.elementMaxRegisters=none), alternated twice;
#      bp BP5 stored at N = 7: the same two arms, alternated twice
#   4. the README's main job at 32^3 elements, N = 7 (issue 25's figures at this code)
#   5. gpu-run.sh kernels-bk5: bk BK5 at N = 1..15, 20M DOFs, against the robust roofline
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/cap26.sh
# Results: $OUT/cap26-<commit>-summary.txt (also printed) and $OUT/cap26-<commit>.tgz (with kernels-bk5.tgz inside).
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/cap26 COMMIT=local \
#   SKIP_BK5=1 bash benchmarks/gpu/cap26.sh
set -u
book=cap26
source "$(dirname "$0")/lib26.sh"
R=-Dlobatto.aparapi.elementMaxRegisters
timed selfcheck-bp35 timeout $((60 * scale)) "${run[@]}" -Xmx16g -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35.log" 2>&1
for a in general dedicated dedicated2; do
  dofs=${BITS_DOFS:-2000000} bench bits-$a 40 bp -Dlobatto.aparapi.atomicOperator=off \
    -Dlobatto.aparapi.reductionKernels=${a%2} -- --geometry stored --n-min 3 --n-max 7 --n-step 4 --iterations 50 --reps 1
done
for round in 1 2; do
  for a in table none; do
    bench op-$a-r$round 30 op $R=$a -- --geometry stored --n-min 7 --n-max 8 --reps 4
  done
done
for round in 1 2; do
  for a in table none; do
    bench bp-$a-r$round 30 bp $R=$a -- --geometry stored --n-min 7 --n-max 7 --iterations 50 --reps 3
  done
done
timed poisson-32 timeout $((60 * scale)) "${run[@]}" -Xmx60g -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi \
  -N 7 -e "${ELEMS:-32,32,32}" --profile > "$out/poisson-32.log" 2>&1
# bk5 took 75 s at 995d83e (its limit was 230 s then; 100 s keeps the runbook's limits at 580 s in all)
[ -n "${SKIP_BK5:-}" ] || timed kernels-bk5 timeout 100 env COMMIT="$COMMIT" OUT="$out" bash benchmarks/gpu-run.sh kernels-bk5 \
  > "$out/kernels-bk5.log" 2>&1
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: the register-cap table and the dedicated reductions; $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/bits-*.log "$out"/op-*.log "$out"/bp-*.log
  echo "---- bits: final residuals"
  for f in "$out"/bits-*/bp-aparapi.json; do
    [ -f "$f" ] && echo "$(basename "$(dirname "$f")"): $(grep -o '"final_residual" *: *[-0-9.eE]*' "$f" | tr '\n' ' ')"
  done
  [ -f "$out/poisson-32.log" ] && { echo "---- poisson-32"; grep -E "CG:|time:|error:|setup" "$out/poisson-32.log" | head -20; }
  [ -f "$out/kernels-bk5.log" ] && { echo "---- kernels-bk5"; grep -E "^== |^BK5|roofline|cut" "$out/kernels-bk5.log" | head -40; }
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
