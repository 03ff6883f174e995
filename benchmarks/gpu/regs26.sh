#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, under 8 minutes (every command under its own timeout): where the time of the points
# kernels goes, by three A/B switches in one lease.
#   0. the machine: a CUDA toolkit or a profiler (ncu, nsys)? nvidia-smi's clocks
#   1. SelfCheck on the GPU: BP3.5 stored in points with K auto and the factors loaded early (the new prefetch path), and
#      --onthefly (the table; 2f4e3ea's strided path)
#   2. kernel-info -N 7, BP3.5, points forced, K auto: registers with the factors loaded after / early, and with
#      -cl-nv-maxrregcount=64; the PTX of each into the tgz
#   3. op BP5 stored, points forced, K auto (2, 2, 3, 5, 6 layers at N = 6..10): -Dlobatto.aparapi.prefetchFactors
#      after, early, gradients, after (the repeat shows the drift)
#   4. op BP5 stored and onthefly:points at N = 6..10 with K = 4 (two elements per group at N = 6 and 7)
#   5. op BP5 stored and onthefly (the tables) at N = 6..9 with every build capped at 64 and 48 registers
#      (-Dlobatto.opencl.extraOptions=-cl-nv-maxrregcount=R) against no cap
# Measured at 2d9b633. From 67f943c on, the factor-load modes are after (the interleaved loads of 2c4982e again),
# early and batched (2d9b633's "after", all K points' factors held at once); "gradients" is gone and its runs are
# skipped with the property's error. Check out 2d9b633 to repeat this run as it was.
# Helpers: lib26.sh (moved there after the measured run; the commands are the same).
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/regs26.sh
# Results: $OUT/regs26-<commit>-summary.txt (also printed) and $OUT/regs26-<commit>.tgz.
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 SCALE=4 DEVICE=EPYC OUT=/tmp/regs26 \
#   COMMIT=local bash benchmarks/gpu/regs26.sh (the register caps are NVIDIA options: PoCL refuses them, exit 1)
set -u
book=regs26
source "$(dirname "$0")/lib26.sh"
{
  echo "cuda: $(ls -d /usr/local/cuda* 2>/dev/null | tr '\n' ' ')"
  for t in ncu nsys nvcc cuobjdump nvidia-smi; do echo "$t: $(command -v $t || echo none)"; done
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | head -3
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
POINTS=(-Dlobatto.aparapi.elementVariant=points -Dlobatto.aparapi.pointsPerColumn=auto)
timed selfcheck-bp35-early timeout $((40 * scale)) "${run[@]}" -Xmx16g "${POINTS[@]}" \
  -Dlobatto.aparapi.prefetchFactors=early -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --element-kernel=STIFFNESS_BP35 > "$out/selfcheck-bp35-early.log" 2>&1
timed selfcheck-onthefly timeout $((40 * scale)) "${run[@]}" -Xmx16g -cp "$jar" io.lobatto.backend.aparapi.SelfCheck \
  --onthefly > "$out/selfcheck-onthefly.log" 2>&1
for v in after:-cl-nv-verbose early:-cl-nv-verbose after:-cl-nv-verbose_-cl-nv-maxrregcount=64; do
  where=${v%%:*}; opts=${v#*:}; opts=${opts//_/ }
  tag=$where$([ "${opts#*maxrreg}" != "$opts" ] && echo -r64)
  [ -n "${DEVICE:-}" ] && opts=""   # PoCL knows no -cl-nv option
  timed kernel-info-$tag timeout $((40 * scale)) "${run[@]}" -Xmx16g "${POINTS[@]}" -Dlobatto.aparapi.prefetchFactors=$where \
    -cp "$jar" io.lobatto.bench.BenchCli kernel-info -N 7 --label BP3.5 ${DEVICE:+--device "$DEVICE"} \
    --options "$opts" -o "$out/kernel-info-$tag" --binary-out "$out/ptx-$tag" --commit "$COMMIT" \
    > "$out/kernel-info-$tag.log" 2>&1
done
for where in after early gradients after2; do
  bench prefetch-$where 40 op "${POINTS[@]}" -Dlobatto.aparapi.prefetchFactors=${where%2} -- --geometry stored --n-min 6 \
    --n-max 10 --reps 4
done
bench k4 62 op -Dlobatto.aparapi.elementVariant=points -Dlobatto.aparapi.pointsPerColumn=4 -- \
  --geometry stored,onthefly:points --n-min 6 --n-max 10 --reps 4
for r in none 64 48; do
  opt=()
  [ $r = none ] || opt=(-Dlobatto.opencl.extraOptions=-cl-nv-maxrregcount=$r)
  bench regs-$r 50 op ${opt[@]+"${opt[@]}"} -Dlobatto.aparapi.elementVariant=table -- --geometry stored,onthefly --n-min 6 \
    --n-max 9 --reps 4
done
echo "== regs26: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
summary="$dest/regs26-$COMMIT-summary.txt"
{
  echo "regs26 runbook at $COMMIT: factor prefetch, K = 4, register caps; $(date -u +%FT%TZ)"
  cat "$out/machine.txt" "$out/times.log"
  summarise "$out"/selfcheck-*.log
  for f in "$out"/kernel-info-*/kernel-info-*.csv; do
    echo "---- $(basename "$(dirname "$f")")"
    grep -E 'BP3\.5' "$f" | grep -v -i "on the fly" | head -8
  done
  summarise "$out"/prefetch-*.log "$out"/k4.log "$out"/regs-*.log
} > "$summary"
cat "$summary"
tar czf "$dest/regs26-$COMMIT.tgz" -C "$out" . && echo "results: $dest/regs26-$COMMIT.tgz and $summary"
