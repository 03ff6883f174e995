#!/usr/bin/env bash
# GPU runbook of issue 27 (the Schwarz local solves in lines): the fused local solve of FdmLinesKernel (a work-item per
# line of the extended element, five stages in registers, the backward stages only where RAS keeps the result) against
# FdmElementKernel (-Dlobatto.aparapi.schwarzLocal=points: a work-item per point, six passes through local memory), the
# same bits. Kershaw eps = 0.3, 30^3 elements, N = 7 (9.1M DOFs), cheb4opt-ras order 4 on 7,5,3,2,1, --profile, on one
# H100, with the staged bench jar. From the repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/schwarz5.sh
# Runs, one JVM each, after 6^3 warm-ups that fill the kernel cache:
#   lines1, points1, lines2, points2   the A/B at 30^3, interleaved
#   jac1, jac2                         cheb-jacobi (the default smoother) at 30^3: the lease's baseline
#   main32                             the main job, deformed 32^3 box, default p-MG: a regression check
#   then, unless SWEEP=0, lobatto-bench solve's Kershaw sweep at 24^3, N = 3..10, cheb4opt-ras order 4 (lines)
# Prints one summary line per run (iterations, residuals, setup, solve, p-MG setup, Schwarz phases) and each run's
# schwarz-local rows, and writes $OUT/schwarz5-summary.txt, $OUT/schwarz5-logs.tgz and $OUT/kershaw24-lines-$COMMIT.json.
# About 3 minutes. A run is killed after 50 s, no run starts after BUDGET_S (200 s), the sweep has 150 s.
# Expected (not measured): the same 27 iterations and residuals 5.604e-03 -> 2.155e-13 in every RAS run; the local
# solve at n = 10 about 2-3x faster than the points kernel (its LDS traffic falls from 2n reads per output to about one
# broadcast read per product); solve 0.6-0.7 s against 0.8-0.9 s.
# Locally (PoCL, a check of the script only): RUN="java" JAR=benchmarks/target/lobatto-bench.jar K=6 M=6 SK=6 SNMAX=3 COMMIT=x OUT=/tmp/s5 bash benchmarks/gpu/schwarz5.sh
set -uo pipefail
. "$(dirname "$0")/schwarz-lib.sh"
summary="$OUT/schwarz5-summary.txt"
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
OLD="-Dlobatto.aparapi.schwarzLocal=points"
echo "schwarz5 runbook at $COMMIT: K = $K, N = 7, Kershaw 0.3, main job $M^3; $(date -u +%FT%TZ)" | tee "$summary"
warmups "$OLD"
cli warmup-main "" -e 6,6,6 >/dev/null
cli lines1 "" -e $K,$K,$K $RAS
cli points1 "$OLD" -e $K,$K,$K $RAS
cli lines2 "" -e $K,$K,$K $RAS
cli points2 "$OLD" -e $K,$K,$K $RAS
cli jac1 "" -e $K,$K,$K --kershaw 0.3
cli jac2 "" -e $K,$K,$K --kershaw 0.3
cli main32 "" -e $M,$M,$M
for r in lines1 points1 lines2 points2; do
  echo "-- $r: the local solves and the wall per iteration" | tee -a "$summary"
  [ -f "$logs/$r.log" ] && grep -E '^schwarz-local|^sum of kernels|^wall per iteration|^    [0-9] ' "$logs/$r.log" | tee -a "$summary"
done
if [ "${SWEEP:-1}" = 1 ]; then
  t0=$(date +%s)
  timeout 170 $RUN -Xmx60g -jar "$JAR" solve -b aparapi -e "${SK:-24}" --meshes kershaw --kershaw 0.3 --pcs pmg \
    --smoothers cheb4opt-ras --smoother-order 4 --n-min 3 --n-max "${SNMAX:-10}" --commit "$COMMIT" --time-limit 150 \
    -o "$logs/k24" > "$logs/kershaw24.log" 2>&1
  echo "== sweep rc=$? $(( $(date +%s) - t0 )) s" | tee -a "$summary"
  grep -vE "^\s*$" "$logs/kershaw24.log" | tail -14 | tee -a "$summary"
  for f in "$logs/k24"/*.json; do [ -e "$f" ] && cp "$f" "$OUT/kershaw24-lines-$COMMIT.json"; done
fi
tar -czf "$OUT/schwarz5-logs.tgz" -C "$logs" .
echo "summary: $summary; logs: $OUT/schwarz5-logs.tgz"
