#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 6 minutes (every command under its own timeout): where the stored-factor 3D
# stiffness should load its geometric factors (-Dlobatto.aparapi.prefetchFactors=after|early|batched), in one lease.
# regs26.sh at 2d9b633 found early loads faster with 2 layers of a column (N = 6, 7) and slower with 3..6 (N = 8..10) in
# the form that held all K points' factors in registers; after is the interleaved form of 2c4982e again, batched is the
# form regs26 called after, and early now also serves one point per work-item (points and shared 3D at N = 2..5).
#   1. SelfCheck on the GPU with the factors early: BP3.5 in points (K auto), and the table (shared 3D at N = 1..5)
#   2. op BP5 stored, points forced, K auto, N = 2..10: after, early, batched, after
#   3. op BP5 stored, the table, N = 2..10: after, early; op BP5 onthefly (the table) at N = 6..9
#   4. whether Nsight Compute sees OpenCL kernels (ncu, one kernel of a SelfCheck)
# Helpers: lib26.sh (moved there after the measured run; the commands are the same).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/prefetch26.sh
# Results: $OUT/prefetch26-<commit>-summary.txt (also printed) and $OUT/prefetch26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 OUT=/tmp/prefetch26 \
#   COMMIT=local bash benchmarks/gpu/prefetch26.sh
set -u
book=prefetch26
source "$(dirname "$0")/lib26.sh"
POINTS=(-Dlobatto.aparapi.elementVariant=points -Dlobatto.aparapi.pointsPerColumn=auto)
timed selfcheck-points-early timeout $((40 * scale)) "${run[@]}" -Xmx16g "${POINTS[@]}" \
  -Dlobatto.aparapi.prefetchFactors=early -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-points-early.log" 2>&1
timed selfcheck-table-early timeout $((40 * scale)) "${run[@]}" -Xmx16g -Dlobatto.aparapi.prefetchFactors=early -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-table-early.log" 2>&1
for where in after early batched after2; do
  bench points-$where 55 op "${POINTS[@]}" -Dlobatto.aparapi.prefetchFactors=${where%2} -- --geometry stored --n-min 2 \
    --n-max 10 --reps 4
done
for where in after early; do
  bench table-$where 55 op -Dlobatto.aparapi.prefetchFactors=$where -- --geometry stored --n-min 2 --n-max 10 --reps 4
done
bench onthefly 40 op -- --geometry onthefly --n-min 6 --n-max 9 --reps 4
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -n "$ncu" ]; then
  timed ncu-probe timeout 90 "$ncu" --target-processes all -c 2 --section SpeedOfLight --section Occupancy \
    "${run[@]}" -Xmx16g -cp "$jar" io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP35 \
    > "$out/ncu-probe.log" 2>&1
fi
echo "== prefetch26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/prefetch26-$COMMIT-summary.txt"
{
  echo "prefetch26 runbook at $COMMIT: where the 3D stiffness loads its factors; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log "$out"/points-*.log "$out"/table-*.log "$out"/onthefly.log
  if [ -f "$out/ncu-probe.log" ]; then
    echo "---- ncu probe"
    grep -E '==PROF==|==ERROR==|==WARNING==|run|Duration|Occupancy|Throughput|Registers' "$out/ncu-probe.log" | head -40
  fi
} > "$summary"
cat "$summary"
tar czf "$dest/prefetch26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/prefetch26-$COMMIT.tgz and $summary"
