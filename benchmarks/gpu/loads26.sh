#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 3 minutes: where the padded 3 layers of a column at stored N = 8 (the table
# since e3f58eb) should load their factors. prefetch26.sh measured them unpadded: batched 18.99 against after 18.71
# GDOF/s; pad26.sh and table26.sh measured the padded plan with the factors after only (19.43, 19.44).
#   op and bp BP5 stored at N = 8: -Dlobatto.aparapi.prefetchFactors=after, batched, early, two alternated rounds
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/loads26.sh
# Results: $OUT/loads26-<commit>-summary.txt (also printed) and $OUT/loads26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/loads26 \
#   COMMIT=local bash benchmarks/gpu/loads26.sh
set -u
book=loads26
source "$(dirname "$0")/lib26.sh"
for round in 1 2; do
  for where in after batched early; do
    bench op-$where-r$round 30 op -Dlobatto.aparapi.prefetchFactors=$where -- --geometry stored --n-min 8 --n-max 8 --reps 4
    bench bp-$where-r$round 30 bp -Dlobatto.aparapi.prefetchFactors=$where -- --geometry stored --n-min 8 --n-max 8 \
      --iterations 50 --reps 3
  done
done
echo "== loads26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/loads26-$COMMIT-summary.txt"
{
  echo "loads26 runbook at $COMMIT: factor loads of the padded layers at stored N = 8, op and bp; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/op-*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/loads26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/loads26-$COMMIT.tgz and $summary"
