#!/usr/bin/env bash
# GPU runbook of issue 26 for the session's last lease, on one H100, under 8 minutes:
#   1. op BP5 onthefly:points at N = 6..9, ~8M DOFs, 4 samples: -Dlobatto.aparapi.pointsPerColumn=1 (the table) against
#      auto (K layers of a column, J now computed per point from the coefficients, not from 15 column constants), then
#      kernel-info -N 7 with K auto and the points structure forced (registers of the column forms)
#   2. benchmarks/gpu-run.sh solves: the final sweep (op BP1/BP3/BP5 N = 1..11, bp N = 1..10, NekBone) at this commit
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/final26.sh
# Results: $OUT/final26-ab.tgz (the A/B logs and JSON, kernel-info) and $OUT/solves.tgz (gpu-run.sh's).
set -u
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$dest"
start=$SECONDS
for k in 1 auto; do
  t0=$SECONDS
  timeout 70 "${run[@]}" -Xmx60g -Dlobatto.aparapi.pointsPerColumn=$k -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi \
    -o "$out/op-k$k" --commit "$COMMIT" --time-limit 50 --dofs "${DOFS:-8000000}" --problems BP5 --geometry onthefly:points \
    --n-min 6 --n-max 9 --reps 4 > "$out/op-k$k.log" 2>&1
  echo "== final26/op K=$k: exit $?, $((SECONDS - t0)) s, at $((SECONDS - start)) s" | tee -a "$out/times.log"
  grep -E '^BP5|kernel:|cut' "$out/op-k$k.log"
done
t0=$SECONDS
timeout 40 "${run[@]}" -Xmx16g -Dlobatto.aparapi.pointsPerColumn=auto -Dlobatto.aparapi.elementVariant=points -cp "$jar" \
  io.lobatto.bench.BenchCli kernel-info -N 7 ${DEVICE:+--device "$DEVICE" --options ""} -o "$out/kernel-info" \
  --commit "$COMMIT" > "$out/kernel-info.log" 2>&1
echo "== final26/kernel-info: exit $?, $((SECONDS - t0)) s" | tee -a "$out/times.log"
grep -E '^kernel,|BP3\.5' "$out"/kernel-info/kernel-info-*.csv 2>/dev/null
tar czf "$dest/final26-ab.tgz" -C "$out" .
[ -n "${SKIP_SOLVES:-}" ] || COMMIT=$COMMIT OUT=$dest bash benchmarks/gpu-run.sh solves
echo "== final26: $((SECONDS - start)) s in all"
