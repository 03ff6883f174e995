#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 8-9 minutes: two changes to the BP3.5 kernels of the 3D structures, against the
# code before (its backend jar first on the class path) in one lease.
#   - The stored-factor kernels' output read W and u again (through the ids) for the shift W u even where shift is 0:
#     now only where it is not (ElementKernelBase.withShift). The "after, sweep 1" arm is that change alone.
#   - Element slots that take S elements in turn (-Dlobatto.aparapi.elementSweep=S), loading the next element's u and
#     scatter ids (on the fly also its map coefficients) while the current one is computed.
#   PART=main (default):
#     1. SelfCheck of BP3.5 stored with S = 4 (NVIDIA's atomic add through the prefetched ids)
#     2. op BP5 stored at N = 5..9: before / after S = 1, 2, 4, 8
#     3. op BP5 on the fly at N = 6..9: before / after S = 1, 2, 4; S = 2, 4 with at most 64 registers
#     4. bp BP5 stored at N = 5..9: before / after S = 1, 4
#     5. op BP5 stored at N = 6..8 again: before / S = 1 / S = 4
#   PART=keep (about 4 minutes; after b836e3d, S = 0 reads u straight into local memory and S = 1 reads u and the ids
#   into registers, one element per slot, so that the atomic form adds at the ids it read with u):
#     1. SelfCheck of BP3.5 stored with S = 1
#     2. op BP5 stored at N = 5..9: S = 0 / 1, alternated twice
#     3. bp BP5 stored at N = 5..9: S = 0 / 1 / the table
#   PART=ids (about 3 minutes): BP5's register columns (N = 3, 4, 11) with their ids kept in the atomic form
#     (-Dlobatto.aparapi.keepIds) against read again: op at N = 3, 4 alternated twice, op at N = 11, bp at N = 3, 4; and
#     op at N = 7 with S = 0 against S = 1 capped at 40 registers. The atomic form takes the shared 3D kernel at N = 3 and
#     4 (ElementVariant.atomicTable), so there both arms ran one kernel; only N = 11 compared the register columns.
#   PART=pipe (about 3 minutes): BP5's pipelined columns (N = 2, 10) with their ids kept in the atomic form against read
#     again: op at N = 2 and 10 alternated twice, bp at N = 10
#   PART=low (about 4 minutes): the atomic form's shared 3D kernels at N = 3, 4 (ElementVariant.atomicTable) and the 3D
#     kernel at N = 5 with S = 0 / 1 / 2: op at N = 3..5 alternated twice, bp at N = 3..5
#   PART=bp5 (about 5 minutes): op BP5 at N = 1..11 and bp at N = 1..10 at the final tables, the main job twice
#   PART=final (about 8 minutes): gpu-run.sh solves, the README's main job at 32^3 (N = 7) twice, op BP5 at N = 8, 9 with
#     S = 0 against the table, alternated twice
# Helpers: lib26.sh. BEFORE: the backend jar of the code before (default .gpu/ab/lobatto-backend-aparapi.jar).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*';
#   mkdir .gpu/ab; cp <the backend jar before> .gpu/ab/lobatto-backend-aparapi.jar
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/sweep26.sh
# Results: $OUT/sweep26-<part>-<commit>-summary.txt (also printed) and $OUT/sweep26-<part>-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar BEFORE=<jar> DOFS=20000 SCALE=4 OUT=/tmp/sweep26 \
#   COMMIT=local bash benchmarks/gpu/sweep26.sh
set -u
part=${PART:-main}
book=sweep26
source "$(dirname "$0")/lib26.sh"
before=${BEFORE:-.gpu/ab/lobatto-backend-aparapi.jar}
[ "$part" != main ] || [ -f "$before" ] || { echo "sweep26: no backend jar of the code before at $before" >&2; exit 2; }
after_jar=$jar
W=-Dlobatto.aparapi.elementSweep
R=-Dlobatto.aparapi.elementMaxRegisters
K=-Dlobatto.aparapi.keepIds
# alternate SUITE NAME LIMIT NMIN NMAX ARMS...: SUITE (op or bp) BP5 stored at N = NMIN..NMAX once per arm sN (the sweep S =
# N) or "table", op twice with the arms alternated, bp once
alternate() {
  local suite=$1 name=$2 limit=$3 nmin=$4 nmax=$5 round a
  shift 5
  local rounds=2 extra=(--reps 4)
  [ "$suite" = bp ] && { rounds=1; extra=(--iterations 50 --reps 3); }
  for ((round = 1; round <= rounds; round++)); do
    for a in "$@"; do
      bench $name-$a$([ $rounds -gt 1 ] && echo "-r$round") $limit $suite "$W=${a#s}" -- --geometry stored --n-min $nmin \
        --n-max $nmax "${extra[@]}"
    done
  done
}
# arm NAME: the class path and the sweep flag of an arm (before, or sN after)
arm_jar() { [ "$1" = before ] && echo "$before:$after_jar" || echo "$after_jar"; }
arm_flag() { [ "$1" = before ] && echo "-Dlobatto.sweep26=before" || echo "$W=${1#s}"; }
if [ "$part" = main ]; then
  # as it ran at b836e3d: the limits cut some op sweeps before N = 9 and the on-the-fly ones before N = 8 or 9 (each JSON
  # says "cut"); N = 8, 9 were measured again in parts keep and final. Longer limits would take the part past 10 minutes.
  timed selfcheck-bp35-s4 timeout $((60 * scale)) "${run[@]}" -Xmx16g $W=4 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-s4.log" 2>&1
  for a in before s1 s2 s4 s8; do
    jar=$(arm_jar $a) bench op-$a 40 op "$(arm_flag $a)" -- --geometry stored --n-min 5 --n-max 9 --reps 4
  done
  for a in before s1 s2 s4; do
    jar=$(arm_jar $a) bench onthefly-$a 30 op "$(arm_flag $a)" -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
  done
  for s in 2 4; do
    bench onthefly-s${s}c64 30 op $W=$s $R=64 -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
  done
  for a in before s1 s4; do
    jar=$(arm_jar $a) bench bp-$a 40 bp "$(arm_flag $a)" -- --geometry stored --n-min 5 --n-max 9 --iterations 50 --reps 3
  done
  for a in before s1 s4; do
    jar=$(arm_jar $a) bench op2-$a 30 op "$(arm_flag $a)" -- --geometry stored --n-min 6 --n-max 8 --reps 4
  done
elif [ "$part" = keep ]; then
  timed selfcheck-bp35-s1 timeout $((60 * scale)) "${run[@]}" -Xmx16g $W=1 -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
    --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-s1.log" 2>&1
  # op's limit was 35 s at a1efb31, which cut the sweeps before N = 8 or 9; 55 s lets them finish
  alternate op op 55 5 9 s0 s1
  alternate bp bp 40 5 9 s0 s1 table
elif [ "$part" = final ]; then
  # the final code: gpu-run.sh solves (op, bp, NekBone), the README's main job at 32^3 twice, then op at N = 8, 9 with
  # S = 0 against the table (1 there), alternated twice
  timed solves timeout 480 env COMMIT="$COMMIT" OUT="$out" bash benchmarks/gpu-run.sh solves > "$out/solves.log" 2>&1
  for i in 1 2; do
    timed poisson-32-run$i timeout $((60 * scale)) "${run[@]}" -Xmx60g -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi \
      -N 7 -e "${ELEMS:-32,32,32}" --profile > "$out/poisson-32-run$i.log" 2>&1
  done
  for round in 1 2; do
    for a in s0 table; do
      bench op89-$a-r$round 25 op "$W=${a#s}" -- --geometry stored --n-min 8 --n-max 9 --reps 4
    done
  done
elif [ "$part" = ids ]; then
  for round in 1 2; do
    for a in 0 1; do
      bench op-k$a-r$round 30 op $K=$a -- --geometry stored --n-min 3 --n-max 4 --reps 4
    done
  done
  for a in 0 1; do
    bench op11-k$a 25 op $K=$a -- --geometry stored --n-min 11 --n-max 11 --reps 4
    bench bp-k$a 30 bp $K=$a -- --geometry stored --n-min 3 --n-max 4 --iterations 50 --reps 3
  done
  for a in s0 s1c40; do
    f="$W=${a:1:1}"
    [ $a = s1c40 ] && f="$W=1 $R=40"
    bench op7-$a 25 op $f -- --geometry stored --n-min 7 --n-max 7 --reps 4
  done
elif [ "$part" = pipe ]; then
  for round in 1 2; do
    for a in 0 1; do
      bench op-k$a-r$round 30 op $K=$a -- --geometry stored --n-min 2 --n-max 2 --reps 4
      bench op10-k$a-r$round 30 op $K=$a -- --geometry stored --n-min 10 --n-max 10 --reps 4
    done
  done
  for a in 0 1; do
    bench bp-k$a 30 bp $K=$a -- --geometry stored --n-min 10 --n-max 10 --iterations 50 --reps 3
  done
elif [ "$part" = low ]; then
  # the limits were 30 s at 5f70759, which cut some sweeps before N = 5; 40 s lets them finish
  alternate op op 40 3 5 s0 s1 s2
  alternate bp bp 40 3 5 s0 s1 s2
elif [ "$part" = bp5 ]; then
  # BP5 alone at the final tables: op at N = 1..11 and bp at N = 1..10 as gpu-run.sh solves runs them, then the main job
  bench op-final 200 op -- --geometry stored --n-min 1 --n-max 11 --reps 6
  bench bp-final 150 bp -- --geometry stored --n-min 1 --n-max 10 --iterations 50 --reps 3
  for i in 1 2; do
    timed poisson-32-run$i timeout $((60 * scale)) "${run[@]}" -Xmx60g -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi \
      -N 7 -e "${ELEMS:-32,32,32}" --profile > "$out/poisson-32-run$i.log" 2>&1
  done
else
  echo "sweep26: unknown PART=$part (main, keep, final, ids, pipe, low, bp5)" >&2
  exit 2
fi
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$part-$COMMIT-summary.txt"
{
  echo "$book runbook ($part) at $COMMIT: shift W u only where shift != 0, and S elements per slot; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/op-*.log "$out"/onthefly-*.log "$out"/bp-*.log "$out"/op2-*.log "$out"/op89-*.log "$out"/op11-*.log "$out"/op7-*.log "$out"/op10-*.log
  for f in "$out"/poisson-32-run*.log; do
    [ -f "$f" ] && { echo "---- $(basename "$f" .log)"; grep -E "CG:|time:|error:" "$f"; }
  done
  [ -f "$out/solves.log" ] && { echo "---- solves"; grep -E "^== |^BP[135]|NekBone|cut" "$out/solves.log" | head -60; }
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$part-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$part-$COMMIT.tgz and $summary"
