#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 7 minutes (every command under its own timeout): register caps for the element
# kernels (-Dlobatto.aparapi.elementMaxRegisters, a .maxnreg edit of the PTX: NVIDIA's -cl-nv-maxrregcount is overridden
# by the kernels' .reqntid, regs26.sh at 2d9b633), and the CG iteration with the new factor-load and layer tables.
# At 2d9b633 the on-the-fly points kernel at N = 7 went from 78 to 64 registers (3 to 4 groups of 256 per SM) and from
# 21.2 to 23.6 GDOF/s; ptxas 13.0 puts the N = 7 points kernels at 48 registers with 64-80 bytes of spills.
#   1. SelfCheck with every element kernel capped at 48 registers (the PTX path on the GPU): BP3.5, --onthefly
#   The capped PTX (program cache files with .maxnreg) comes back in capped-ptx.tgz for ptxas -v here.
#   2. op BP5 stored and onthefly (the tables) at N = 3..9, caps none, 48, 40, none
#   3. bp BP5 stored at N = 3..8: the tables against factors after and strided points everywhere (K = 1; the tables
#      before this session but at N = 7, where they took 2 layers)
# Helpers: lib26.sh (moved there after the measured run; the commands are the same).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/caps26.sh
# Results: $OUT/caps26-<commit>-summary.txt (also printed) and $OUT/caps26-<commit>.tgz.
# Local check on PoCL (the cap is dropped there): RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 \
#   OUT=/tmp/caps26 COMMIT=local bash benchmarks/gpu/caps26.sh
set -u
book=caps26
source "$(dirname "$0")/lib26.sh"
CAP=-Dlobatto.aparapi.elementMaxRegisters
timed selfcheck-bp35-cap48 timeout $((40 * scale)) "${run[@]}" -Xmx16g $CAP=48 -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-cap48.log" 2>&1
timed selfcheck-onthefly-cap48 timeout $((40 * scale)) "${run[@]}" -Xmx16g $CAP=48 -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --onthefly > "$out/selfcheck-onthefly-cap48.log" 2>&1
for cap in none 48 40 none2; do
  bench op-cap$cap 70 op $CAP=${cap%2} -- --geometry stored,onthefly --n-min 3 --n-max 9 --reps 4
done
bench bp-table 55 bp -- --geometry stored --n-min 3 --n-max 8 --iterations 50 --reps 3
bench bp-before 55 bp -Dlobatto.aparapi.prefetchFactors=after -Dlobatto.aparapi.pointsPerColumn=1 -- --geometry stored \
  --n-min 3 --n-max 8 --iterations 50 --reps 3
# the capped programs as built (PTX with .maxnreg, from the program cache, which may also hold those of earlier runs in
# the lease): ptxas -v here gives their registers and spills
(cd "$LOBATTO_CACHE_DIR" 2>/dev/null && grep -l -a '\.maxnreg' -- *.bin 2>/dev/null | tar czf "$out/capped-ptx.tgz" -T - 2>/dev/null)
echo "== caps26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/caps26-$COMMIT-summary.txt"
{
  echo "caps26 runbook at $COMMIT: register caps, the CG iteration with the new tables; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  summarise "$out"/selfcheck-*.log
  echo "---- capped programs: $(tar tzf "$out/capped-ptx.tgz" 2>/dev/null | wc -l) in capped-ptx.tgz"
  summarise "$out"/op-cap*.log "$out"/bp-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/caps26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/caps26-$COMMIT.tgz and $summary"
