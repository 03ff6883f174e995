#!/usr/bin/env bash
# GPU runbook of issue 26 (and 25's main job), one H100, about 3 minutes:
#   1. the README's main job at 32^3, N = 7, twice (the second on a warm kernel cache: issue 25's timers)
#   2. why K layers of a column at stored N = 6 and 8 apply faster in op but make bp slower (caps26.sh at 99183da):
#      op and bp BP5 at N = 6 and 8 with K = 1 and K auto, the factors after in both (K alone changes)
# Helpers: lib26.sh (moved there after the measured run; the commands are the same).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/warm26.sh
# Results: $OUT/warm26-<commit>-summary.txt (also printed) and $OUT/warm26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 ELEMS=3,3,3 SCALE=4 OUT=/tmp/warm26 \
#   COMMIT=local bash benchmarks/gpu/warm26.sh
set -u
book=warm26
source "$(dirname "$0")/lib26.sh"
for i in 1 2; do
  timed poisson-32-run$i timeout $((60 * scale)) "${run[@]}" -Xmx60g -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi -N 7 \
    -e "${ELEMS:-32,32,32}" --profile > "$out/poisson-32-run$i.log" 2>&1
done
for k in 1 auto; do
  bench op-k$k 50 op -Dlobatto.aparapi.pointsPerColumn=$k -Dlobatto.aparapi.prefetchFactors=after -- --geometry stored \
    --n-min 6 --n-max 8 --reps 4
  bench bp-k$k 50 bp -Dlobatto.aparapi.pointsPerColumn=$k -Dlobatto.aparapi.prefetchFactors=after -- --geometry stored \
    --n-min 6 --n-max 8 --iterations 50 --reps 3
done
echo "== warm26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/warm26-$COMMIT-summary.txt"
{
  echo "warm26 runbook at $COMMIT: the main job twice; K alone at stored N = 6..8, op and bp; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  for i in 1 2; do
    echo "---- poisson-32-run$i"
    grep -E 'CONVERGED|DIVERGED|^time:|^error:|p-multigrid:|WARNING|SEVERE|Exception' "$out/poisson-32-run$i.log"
  done
  summarise "$out"/op-k*.log "$out"/bp-k*.log
} > "$summary"
cat "$summary"
tar czf "$dest/warm26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/warm26-$COMMIT.tgz and $summary"
