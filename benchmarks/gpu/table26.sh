#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 2 minutes: the tables after pad26.sh (stored BP3.5 at N = 8: 3 layers of a
# column, padded to 256 work-items), against K = 1 (the tables before it) in the same lease.
#   1. SelfCheck on the GPU, BP3.5 with the tables
#   2. op and bp BP5 stored at N = 7..9: the tables, then -Dlobatto.aparapi.pointsPerColumn=1, then the tables again
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/table26.sh
# Results: $OUT/table26-<commit>-summary.txt (also printed) and $OUT/table26-<commit>.tgz.
set -u
book=table26
source "$(dirname "$0")/lib26.sh"
timed selfcheck-bp35 timeout $((40 * scale)) "${run[@]}" -Xmx16g -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35.log" 2>&1
for arm in table k1 table2; do
  flags=()
  [ $arm = k1 ] && flags=(-Dlobatto.aparapi.pointsPerColumn=1)
  bench op-$arm 40 op ${flags[@]+"${flags[@]}"} -- --geometry stored --n-min 7 --n-max 9 --reps 4
  bench bp-$arm 40 bp ${flags[@]+"${flags[@]}"} -- --geometry stored --n-min 7 --n-max 9 --iterations 50 --reps 3
done
echo "== table26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/table26-$COMMIT-summary.txt"
{
  echo "table26 runbook at $COMMIT: the tables (N = 8 padded columns) against K = 1; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/op-*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/table26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/table26-$COMMIT.tgz and $summary"
