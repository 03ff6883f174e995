#!/usr/bin/env bash
# GPU runbook of issue 27's setup target ("setup of the smoother and levels <= the solve time", with a margin): p-MG
# setup with the Schwarz host setup run ahead (branch setup27: every level's operator first, each level's extended
# elements and FDM table made on a host thread meanwhile, then the smoothers) against the level-by-level setup of
# 08c2908 (-Dlobatto.pmg.schwarzAhead=false, the same jar), the same bits. Kershaw eps = 0.3, 30^3 elements, N = 7
# (9.1M DOFs), cheb4opt-ras order 4 on 7,5,3,2,1, --profile, on one H100, with the staged bench jar. From the
# repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/setup27.sh
# Runs, one JVM each, after 6^3 warm-ups that fill the kernel cache:
#   level1, ahead1, level2, ahead2, level3, ahead3   the A/B at 30^3, interleaved (level: -Dlobatto.pmg.schwarzAhead=false)
#   jac                                              cheb-jacobi at 30^3 (no Schwarz: the same path in both)
# Prints one summary line per run (iterations, residuals, setup, solve, p-MG setup, Schwarz phases; with the ahead
# setup "topo" and "fdm" are the waits for the host thread) and a second line of the phases schwarz-lib.sh's line leaves
# out (p-MG numbering, p-MG vectors, p-MG transfers and the p-MG setup no phase covers), and writes
# $OUT/setup27-summary.txt and $OUT/setup27-logs.tgz. About 2 minutes; a run is killed after 50 s, no run starts after
# BUDGET_S (200 s).
# Expected (not measured): 27 iterations and residuals 5.604e-03 -> 2.155e-13 in every run; p-MG setup about 0.75 s
# level by level and 0.5-0.55 s ahead (the 0.28 s of Schwarz topology and FDM hidden behind the coarser levels' Z and
# geometry), topo and fdm near 0 ahead.
# Locally (PoCL, a check of the script only): RUN="java" JAR=benchmarks/target/lobatto-bench.jar K=6 COMMIT=x OUT=/tmp/s27 bash benchmarks/gpu/setup27.sh
set -uo pipefail
. "$(dirname "$0")/schwarz-lib.sh"
summary="$OUT/setup27-summary.txt"
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
OLD="-Dlobatto.pmg.schwarzAhead=false"
echo "setup27 runbook at $COMMIT: K = $K, N = 7, Kershaw 0.3; $(date -u +%FT%TZ)" | tee "$summary"
warmups "$OLD"
for i in 1 2 3; do
  cli level$i "$OLD" -e $K,$K,$K $RAS
  cli ahead$i "" -e $K,$K,$K $RAS
done
cli jac "" -e $K,$K,$K --kershaw 0.3
echo "-- the other p-MG phases (unattributed: p-MG setup less its phases)" | tee -a "$summary"
for r in level1 ahead1 level2 ahead2 level3 ahead3 jac; do
  log="$logs/$r.log"
  [ -f "$log" ] || continue
  pmg=$(sed -n 's/^p-multigrid: .*setup \([0-9.]*\) s.*/\1/p' "$log")
  sum=0
  for p in 'p-MG numbering' 'p-MG Z' 'p-MG geometry' 'diagonals' 'p-MG vectors' 'Schwarz topology' 'Schwarz FDM' \
      'Schwarz Z' 'Schwarz upload' 'eigenvalue bounds' 'p-MG transfers'; do
    v=$(phase "$log" "$p")
    [ "$v" != - ] && sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { printf "%.3f", a + b }')
  done
  printf '%-7s numbering %-6s vectors %-6s transfers %-6s unattributed %s\n' "$r" "$(phase "$log" 'p-MG numbering')" \
      "$(phase "$log" 'p-MG vectors')" "$(phase "$log" 'p-MG transfers')" \
      "$(awk -v a="${pmg:-0}" -v b="$sum" 'BEGIN { printf "%.3f", a - b }')" | tee -a "$summary"
done
tar -czf "$OUT/setup27-logs.tgz" -C "$logs" .
echo "summary: $summary; logs: $OUT/setup27-logs.tgz"
