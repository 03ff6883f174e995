#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 3 minutes: CG at stored N = 8 with the table (3 layers of a column padded to
# 256 work-items, e3f58eb) against K = 1 (strided points), four alternated rounds in one lease, with N = 7 beside it
# (2 layers in both arms' tables but K = 1's). table26.sh measured the padded layers at 10.36 and 9.24 GDOF·it/s against
# K = 1's 10.55: is that spread the layers' or the run's?
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/spread26.sh
# Results: $OUT/spread26-<commit>-summary.txt (also printed) and $OUT/spread26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/spread26 \
#   COMMIT=local bash benchmarks/gpu/spread26.sh
set -u
book=spread26
source "$(dirname "$0")/lib26.sh"
for round in 1 2 3 4; do
  bench bp-table-r$round 30 bp -- --geometry stored --n-min 7 --n-max 8 --iterations 50 --reps 3
  bench bp-k1-r$round 30 bp -Dlobatto.aparapi.pointsPerColumn=1 -- --geometry stored --n-min 7 --n-max 8 --iterations 50 \
    --reps 3
done
echo "== spread26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/spread26-$COMMIT-summary.txt"
{
  echo "spread26 runbook at $COMMIT: CG at N = 7, 8, the tables against K = 1, four rounds; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/bp-table-r*.log "$out"/bp-k1-r*.log
} > "$summary"
cat "$summary"
tar czf "$dest/spread26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/spread26-$COMMIT.tgz and $summary"
