#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 4 minutes: are K layers of a column slower in CG at stored N = 6 and 8
# (196 and 243 work-items, warm26.sh at a459423) because their groups end in a part warp? -Dlobatto.aparapi.padColumns
# rounds them up to 224 and 256 (the extra work-items take no layer).
#   1. SelfCheck on the GPU with padded columns: BP3.5 stored in points with K auto, and --onthefly (K = 3 at N = 8)
#   2. op and bp BP5 stored at N = 6..8: K = 1, K auto, K auto padded (factors after in all three)
#   3. op BP5 onthefly (the table) at N = 6..9, unpadded and padded
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/pad26.sh
# Results: $OUT/pad26-<commit>-summary.txt (also printed) and $OUT/pad26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/pad26 COMMIT=local \
#   bash benchmarks/gpu/pad26.sh
set -u
book=pad26
source "$(dirname "$0")/lib26.sh"
PAD=-Dlobatto.aparapi.padColumns=true
timed selfcheck-bp35-pad timeout $((40 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=points \
  -Dlobatto.aparapi.pointsPerColumn=auto $PAD -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-pad.log" 2>&1
timed selfcheck-onthefly-pad timeout $((40 * scale)) "${run[@]}" -Xmx16g $PAD -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --onthefly > "$out/selfcheck-onthefly-pad.log" 2>&1
for arm in k1 auto pad; do
  flags=(-Dlobatto.aparapi.prefetchFactors=after)
  case $arm in
    k1) flags+=(-Dlobatto.aparapi.pointsPerColumn=1) ;;
    auto) flags+=(-Dlobatto.aparapi.pointsPerColumn=auto) ;;
    pad) flags+=(-Dlobatto.aparapi.pointsPerColumn=auto $PAD) ;;
  esac
  bench op-$arm 50 op "${flags[@]}" -- --geometry stored --n-min 6 --n-max 8 --reps 4
  bench bp-$arm 50 bp "${flags[@]}" -- --geometry stored --n-min 6 --n-max 8 --iterations 50 --reps 3
done
bench onthefly 45 op -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
bench onthefly-pad 45 op $PAD -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
echo "== pad26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/pad26-$COMMIT-summary.txt"
{
  echo "pad26 runbook at $COMMIT: K layers of a column padded to whole warps, op and bp; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/op-*.log "$out"/bp-*.log "$out"/onthefly*.log
} > "$summary"
cat "$summary"
tar czf "$dest/pad26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/pad26-$COMMIT.tgz and $summary"
