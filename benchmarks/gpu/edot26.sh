#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 3 minutes (every limit together 330 s; 540 s with FOLD=1 BOUND=1): p . A p
# in BP5's element kernel (ElementOperands.ATOMIC_DOT) and CG's iteration on the device (cgIteration: alpha set by
# CgAlphaKernel, then cgStep writes p = r + beta p, x and r, one read-back), against the path before it (the axpby of
# p, the atomic apply, a dot of p and Ap, the CG update), on the same code:
#   1. bp BP5 stored at N = 6..10 (8M DOFs, 50 iterations, BP_REPS=15: 5 samples): -Dlobatto.aparapi.elementDot=false
#      / true alternated twice, and with FOLD=1 in the first round fold (false with
#      -Dlobatto.aparapi.foldSearchDirection=true); the final residuals of the arms must agree to about 1e-10 (the dots'
#      order differs). At c281659 (3 reps: one sample) it ran with FOLD=1 BOUND=1, the true arm then alpha on the host.
#      N_MIN, N_MAX: other degrees (e.g. 1..5)
#   2. nekbone at N = 7, 9 (NekBone's CG, the FOM): the same two arms, once (SKIP_NEKBONE=1: not; NekBone's operator has
#      a shift, which keeps it on the path before, so its two arms differ only by noise)
#   3. with BOUND=1, bound26.sh: the element kernels alone in source-probe's bound variants (base, nofactors, nou, both,
#      nobar)
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/edot26.sh
# Results: $OUT/edot26-<commit>-summary.txt (also printed), $OUT/edot26-<commit>.tgz, and bound26's two files.
# Local check on PoCL (the atomic form is NVIDIA's by default: cas here): RUN=java JAR=benchmarks/target/lobatto-bench.jar \
#   DOFS=20000 SCALE=4 OUT=/tmp/edot26 COMMIT=local ATOMIC=-Dlobatto.aparapi.atomicOperator=cas \
#   bash benchmarks/gpu/edot26.sh
set -u
book=edot26
source "$(dirname "$0")/lib26.sh"
E=-Dlobatto.aparapi.elementDot
A=${ATOMIC:--Dlobatto.aparapi.atomicOperator=auto}
for round in 1 2; do
  arms="false true"
  [ -n "${FOLD:-}" ] && [ $round = 1 ] && arms="false true fold"
  for a in $arms; do
    # fold: the element kernel reads r + beta p and a pass after it writes p with p . Ap (foldSearchDirection)
    f=-Dlobatto.aparapi.foldSearchDirection=$([ $a = fold ] && echo true || echo false)
    bench bp-$a-r$round 60 bp "$A" $E=${a/fold/false} $f -- --geometry stored --n-min ${N_MIN:-6} --n-max ${N_MAX:-10} --iterations 50 --reps ${BP_REPS:-15}
  done
done
for a in $([ -z "${SKIP_NEKBONE:-}" ] && echo false true); do
  # bench's --problems is not nekbone's
  timed nekbone-$a timeout $((45 * scale)) "${run[@]}" -Xmx60g "$A" $E=$a -cp "$jar" io.lobatto.bench.BenchCli nekbone \
    -b aparapi -o "$out/nekbone-$a" --commit "$COMMIT" --time-limit $((45 * scale - 8)) --dofs "$dofs" --n-min 7 --n-max 9 \
    --n-step 2 > "$out/nekbone-$a.log" 2>&1
done
[ -z "${BOUND:-}" ] || timed bound26 timeout 150 env COMMIT="$COMMIT" OUT="$dest" bash "$(dirname "$0")/bound26.sh" \
  > "$out/bound26.out" 2>&1
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: p . A p in the element kernel and cgStep against the path before; $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cat "$out/times.log"
  summarise "$out"/bp-*.log
  for f in "$out"/nekbone-*.log; do
    [ -f "$f" ] && { echo "---- $(basename "$f" .log)"; grep -E '^NekBone|rror|Exception' "$f"; }
  done
  echo "---- final residuals (CG's recursive r) and true residuals (b - A x, from the commit after 55de7c6 on)"
  for f in "$out"/bp-*/bp-aparapi.json; do
    [ -f "$f" ] && echo "$(basename "$(dirname "$f")"): $(grep -oE '"(final|true)_residual" *: *[-0-9.eE]*' "$f" | tr '\n' ' ')"
  done
  [ -f "$out/bound26.out" ] && { echo "---- bound26"; tail -40 "$out/bound26.out"; }
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
