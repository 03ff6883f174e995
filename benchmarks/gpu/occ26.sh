#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 2.5 minutes: more work-groups per SM for BP5's stored-factor points kernels at
# N = 7..9, bought with a register cap (-Dlobatto.aparapi.elementMaxRegisters, PtxRegisterCap). At N = 7 the kernel takes
# 40 registers (6 groups of 256 per SM; 32 would allow 8), at N = 8 48 (5; 40 would allow 6). caps26.sh at 99183da measured
# N = 6 and 7 with caps 48 and 40 only.
#   op BP5 stored at N = 7..9: no cap / 40 / 32, alternated twice
# Helpers: lib26.sh.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/occ26.sh
# Results: $OUT/occ26-<commit>-summary.txt (also printed) and $OUT/occ26-<commit>.tgz.
# Local check on PoCL (the cap is NVIDIA's; PoCL builds without it): RUN=java JAR=benchmarks/target/lobatto-bench.jar \
#   DOFS=20000 SCALE=4 OUT=/tmp/occ26 COMMIT=local bash benchmarks/gpu/occ26.sh
set -u
book=occ26
source "$(dirname "$0")/lib26.sh"
R=-Dlobatto.aparapi.elementMaxRegisters
for round in 1 2; do
  for a in none 40 32; do
    bench op-c$a-r$round 30 op $R=$a -- --geometry stored --n-min 7 --n-max 9 --reps 4
  done
done
echo "== $book: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/$book-$COMMIT-summary.txt"
{
  echo "$book runbook at $COMMIT: register caps none / 40 / 32 for BP5 stored at N = 7..9; $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cat "$out/times.log"
  summarise "$out"/op-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/$book-$COMMIT.tgz" -C "$out" . && echo "results: $dest/$book-$COMMIT.tgz and $summary"
