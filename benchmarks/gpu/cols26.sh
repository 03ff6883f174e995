#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 6 minutes: where the column sums of the points structure read their operands.
# The structure runs K > 1 layers of an (a, b) column per work-item for BP3.5 at N = 7 (K = 2) and N = 8 (K = 3), stored
# and on the fly (ElementPlan.pointsPerColumn). Two switches, each a build constant:
#   - constD (-Dlobatto.aparapi.constantD=1): the t-direction's D entries D_cm / D_mc, the same for a whole warp where it
#     lies in one slot, come from a __constant copy of D instead of local memory (PointColumnOperands.entryD);
#   - defer (-Dlobatto.aparapi.deferFluxes=1, on the fly only): a work-item computes its K points' fluxes into registers
#     and stores them after, so no local store stands between the K points' reads of the map's 21 coefficients.
# PART=main (default):
#   1. SelfCheck of BP3.5 stored, and --onthefly, with both switches on
#   2. op BP5 on the fly at N = 7, 8: base / constD / defer / both, alternated twice
#   3. op BP5 stored at N = 7, 8: base / constD, alternated twice
#   4. bp BP5 stored at N = 7, 8: base / constD; bp on the fly at N = 7, 8: base / both
#   5. op on the fly at N = 7, 8 with K = 4 (-Dlobatto.aparapi.pointsPerColumn=4), both switches on
# Ran once, at 7800fcb (H100 80GB HBM3): both switches lost (constD -9 % stored, -6 % on the fly at N = 7; defer -1 %),
# and the next commit took them out again. To run it, check out 7800fcb (benchmarks.md, "The column sums' operands").
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/cols26.sh
# Results: $OUT/cols26-<part>-<commit>-summary.txt (also printed) and $OUT/cols26-<part>-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/cols26 COMMIT=local \
#   bash benchmarks/gpu/cols26.sh
set -u
part=${PART:-main}
book=cols26
source "$(dirname "$0")/lib26.sh"
C=-Dlobatto.aparapi.constantD
F=-Dlobatto.aparapi.deferFluxes
# flags ARM: the switches of an arm (base, constD, defer, both)
flags() {
  case $1 in
    base) echo "$C=0 $F=0" ;;
    constD) echo "$C=1 $F=0" ;;
    defer) echo "$C=0 $F=1" ;;
    both) echo "$C=1 $F=1" ;;
  esac
}
if [ "$part" = main ]; then
  timed selfcheck-bp35 timeout $((60 * scale)) "${run[@]}" -Xmx16g $C=1 $F=1 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35.log" 2>&1
  timed selfcheck-onthefly timeout $((60 * scale)) "${run[@]}" -Xmx16g $C=1 $F=1 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --onthefly > "$out/selfcheck-onthefly.log" 2>&1
  for round in 1 2; do
    for a in base constD defer both; do
      bench onthefly-$a-r$round 30 op $(flags $a) -- --geometry onthefly --n-min 7 --n-max 8 --reps 4
    done
  done
  for round in 1 2; do
    for a in base constD; do
      bench op-$a-r$round 30 op $(flags $a) -- --geometry stored --n-min 7 --n-max 8 --reps 4
    done
  done
  for a in base constD; do
    bench bp-$a 30 bp $(flags $a) -- --geometry stored --n-min 7 --n-max 8 --iterations 50 --reps 3
  done
  for a in base both; do
    bench bp-onthefly-$a 30 bp $(flags $a) -- --geometry onthefly --n-min 7 --n-max 8 --iterations 50 --reps 3
  done
  bench onthefly-k4-both 30 op $(flags both) -Dlobatto.aparapi.pointsPerColumn=4 -- --geometry onthefly --n-min 7 --n-max 8 \
    --reps 4
else
  echo "cols26: unknown PART=$part (main)" >&2
  exit 2
fi
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$part-$COMMIT-summary.txt"
{
  echo "$book runbook ($part) at $COMMIT: D_c from constant memory, fluxes stored after the column; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/onthefly-*.log "$out"/op-*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$part-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$part-$COMMIT.tgz and $summary"
