#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 7 minutes: u read through the scatter ids without a branch on the id
# (ElementOperands.readU: a masked node reads x_G[0] and drops it), against the code before (its backend jar first on the
# class path), alternated twice in one lease. SourceProbe's PTX showed each node's id load, a branch on it, then x_G's load,
# one node after the other.
#   1. op BP1, BP3 and BP5 stored at N = 3..8, bp BP5 stored at N = 3..10, op BP5 on the fly at N = 6..9: before / after
#   2. op BP5 stored at N = 6..9 and bp at N = 6..10: before / after again
# Helpers: lib26.sh. BEFORE: the backend jar of the code before (default .gpu/ab/lobatto-backend-aparapi.jar).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*';
#   mkdir .gpu/ab; cp <the backend jar before> .gpu/ab/lobatto-backend-aparapi.jar
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/gather26.sh
# Results: $OUT/gather26-<commit>-summary.txt (also printed) and $OUT/gather26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar BEFORE=<jar> DOFS=20000 SCALE=4 OUT=/tmp/gather26 \
#   COMMIT=local bash benchmarks/gpu/gather26.sh
set -u
book=gather26
source "$(dirname "$0")/lib26.sh"
before=${BEFORE:-.gpu/ab/lobatto-backend-aparapi.jar}
[ -f "$before" ] || { echo "gather26: no backend jar of the code before at $before" >&2; exit 2; }
after_jar=$jar
for arm in before after; do
  j=$after_jar
  [ $arm = before ] && j="$before:$after_jar"
  jar=$j problems=BP1,BP3,BP5 bench op-${arm}1 100 op -- --geometry stored --n-min 3 --n-max 8 --reps 4
  jar=$j bench bp-${arm}1 50 bp -- --geometry stored --n-min 3 --n-max 10 --iterations 50 --reps 3
  jar=$j bench onthefly-$arm 35 op -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
done
for arm in before after; do
  j=$after_jar
  [ $arm = before ] && j="$before:$after_jar"
  jar=$j bench op-${arm}2 35 op -- --geometry stored --n-min 6 --n-max 9 --reps 4
  jar=$j bench bp-${arm}2 35 bp -- --geometry stored --n-min 6 --n-max 10 --iterations 50 --reps 3
done
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: u through the ids without a branch, before / after, twice; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/op-*.log "$out"/onthefly-*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
