#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 6 minutes: the contraction loops' unrolling (-Dlobatto.aparapi.contractionUnroll,
# #pragma unroll in the element kernels' sums over m), the compiler's choice against rolled (1) and unrolled by 2, in one
# lease. The first source probe (kernel alone, x_L to y_L) found rolled loops 2-9 % faster at stored N = 5, 6, 8 and on the
# fly N = 7, 8.
#   PART=bp5 (default):
#     1. SelfCheck on the GPU, BP3.5 stored and on the fly, rolled
#     2. op BP5 stored at N = 3..10, then on the fly at N = 6..9, and bp BP5 stored at N = 3..10: compiler / 1 / 2
#   PART=hi: op BP5 stored at N = 8..10 and on the fly at N = 9, 10: compiler / 1 / 2 (the first call's op sweeps were
#     cut at N = 8 and 9); on the fly rolled at N = 7, 8 with K = 1 and 4 layers per work-item; op BP3 (BP3.0) at
#     N = 4..10: compiler / 1 / 2
#   PART=full: the compiler's choice against full unrolling (16, more than any P here): op BP3 at N = 4..10, op BP5 stored
#     at N = 3..10 and on the fly at N = 6..10
#   PART=n8: stored N = 8, op and bp, the compiler's choice against full unrolling, alternated twice
#   PART=bp3: op BP3 (BP3.0) at N = 3..10 and bp BP3 at N = 5..8: compiler / 1 / 2
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/unroll26.sh
# Results: $OUT/unroll26-<part>-<commit>-summary.txt (also printed) and $OUT/unroll26-<part>-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/unroll26 COMMIT=local \
#   bash benchmarks/gpu/unroll26.sh
set -u
part=${PART:-bp5}
book=unroll26
[ "$part" = bp3 ] && PROBLEMS=BP3
source "$(dirname "$0")/lib26.sh"
U=-Dlobatto.aparapi.contractionUnroll
if [ "$part" = bp5 ]; then
  timed selfcheck-bp35-rolled timeout $((40 * scale)) "${run[@]}" -Xmx16g $U=1 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-rolled.log" 2>&1
  timed selfcheck-onthefly-rolled timeout $((40 * scale)) "${run[@]}" -Xmx16g $U=1 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --onthefly > "$out/selfcheck-onthefly-rolled.log" 2>&1
  for arm in compiler 1 2; do
    bench op-u$arm 50 op $U=$arm -- --geometry stored --n-min 3 --n-max 10 --reps 4
  done
  for arm in compiler 1 2; do
    bench onthefly-u$arm 35 op $U=$arm -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
  done
  for arm in compiler 1 2; do
    bench bp-u$arm 50 bp $U=$arm -- --geometry stored --n-min 3 --n-max 10 --iterations 50 --reps 3
  done
elif [ "$part" = hi ]; then
  for arm in compiler 1 2; do
    bench op-u$arm 40 op $U=$arm -- --geometry stored --n-min 8 --n-max 10 --reps 4
    bench onthefly-u$arm 40 op $U=$arm -- --geometry onthefly --n-min 9 --n-max 10 --reps 4
  done
  for k in 1 4; do
    bench onthefly-k$k-u1 35 op $U=1 -Dlobatto.aparapi.pointsPerColumn=$k -- --geometry onthefly --n-min 7 --n-max 8 --reps 4
  done
  for arm in compiler 1 2; do
    problems=BP3 bench op-bp3-u$arm 45 op $U=$arm -- --geometry stored --n-min 4 --n-max 10 --reps 4
  done
elif [ "$part" = n8 ]; then
  for round in 1 2; do
    for arm in compiler 16; do
      bench op-n8-u$arm-r$round 30 op $U=$arm -- --geometry stored --n-min 8 --n-max 8 --reps 4
      bench bp-n8-u$arm-r$round 30 bp $U=$arm -- --geometry stored --n-min 8 --n-max 8 --iterations 50 --reps 3
    done
  done
elif [ "$part" = full ]; then
  for arm in compiler 16; do
    problems=BP3 bench op-bp3-u$arm 50 op $U=$arm -- --geometry stored --n-min 4 --n-max 10 --reps 4
    bench op-u$arm 50 op $U=$arm -- --geometry stored --n-min 3 --n-max 10 --reps 4
    bench onthefly-u$arm 35 op $U=$arm -- --geometry onthefly --n-min 6 --n-max 10 --reps 4
  done
elif [ "$part" = bp3 ]; then
  for arm in compiler 1 2; do
    bench op-bp3-u$arm 50 op $U=$arm -- --geometry stored --n-min 3 --n-max 10 --reps 4
    bench bp-bp3-u$arm 40 bp $U=$arm -- --geometry stored --n-min 5 --n-max 8 --iterations 50 --reps 3
  done
else
  echo "unroll26: PART=$part is not one of bp5, hi, n8, full, bp3" >&2
  exit 2
fi
echo "== $book-$part: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$part-$COMMIT-summary.txt"
{
  case $part in
    n8|full) arms="the compiler's unrolling / full (16)" ;;
    *) arms="the compiler's unrolling / rolled / by 2" ;;
  esac
  echo "$book runbook ($part) at $COMMIT: contraction loops, $arms; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/op-*.log "$out"/onthefly-*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$part-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$part-$COMMIT.tgz and $summary"
