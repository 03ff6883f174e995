#!/usr/bin/env bash
# GPU runbook of issue 27 (Schwarz setup, branch schwarz4): the p-multigrid setup with Schwarz smoothing against the
# setup of 9c68c10 (-Dlobatto.schwarz.fastSetup=false: the host Z built per level for its local size, FDM lines keyed
# by their exact lengths, the face codes made at every level), Kershaw eps = 0.3, 30^3 elements, N = 7 (9.1M DOFs),
# cheb4opt-ras order 4 on 7,5,3,2,1, --profile, on one H100, with the staged bench jar. From the repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (for JFR=1 stage the runtime with Flight Recorder:
#    GPU_JRE_MODULES=java.base,java.logging,java.management,jdk.unsupported,jdk.jfr ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar)
#   (GPU machine, .gpu carried)  bash benchmarks/gpu/schwarz4.sh      or      JFR=1 bash benchmarks/gpu/schwarz4.sh
# Runs, one JVM each, after 6^3 warm-ups that fill the kernel cache:
#   new1, new2   the defaults (this branch), --profile
#   old1, old2   -Dlobatto.schwarz.fastSetup=false (the setup of 9c68c10), --profile, interleaved with the new runs
#   main32       the main job, deformed 32^3 box, default p-MG (cheb-jacobi), once: no Schwarz, a regression check
# Prints one summary line per run (iterations, residuals, setup, solve, p-MG setup, the Schwarz phases, eigenvalue
# bounds, p-MG Z and geometry, diagonals) and writes $OUT/schwarz4-summary.txt and $OUT/schwarz4-logs.tgz (full logs);
# with JFR=1 also $OUT/new2.jfr (Java Flight Recorder, settings=profile, of run new2). About 2 minutes on an H100
# (8 JVMs; schwarz3.sh's 7 took about 2 minutes). A run is killed after 50 s, and no run starts after 200 s
# (BUDGET_S), so the script ends inside 4 minutes.
# Expected (not measured; the old runs should repeat 9c68c10's schwarz3 summary): old: 27 iterations, residual
# 5.604e-03 -> 2.155e-13, p-MG setup 1.9-2.2 s (topology 0.28-0.37, FDM 0.78-1.09); new: the same 27 iterations and
# printed residuals, solve unchanged (0.79-0.82 s), p-MG setup about 0.5-0.9 s: no per-level host Z (about 0.5 s that
# no phase named), FDM about 0.05-0.15 s (1 079 lines at N = 7 instead of 20 484, Jacobi, warmed up), topology about
# 0.1-0.2 s; main32 as before (13 iterations, solve about 0.15 s).
# Locally (PoCL, a check of the script only): RUN="java" JAR=benchmarks/target/lobatto-bench.jar K=6 M=6 OUT=/tmp/s4 bash benchmarks/gpu/schwarz4.sh
set -uo pipefail
. "$(dirname "$0")/schwarz-lib.sh"
summary="$OUT/schwarz4-summary.txt"
OLD="-Dlobatto.schwarz.fastSetup=false"
echo "schwarz4 runbook: K = $K, N = 7, Kershaw 0.3, main job $M^3; $(date -u +%FT%TZ)" | tee "$summary"
warmups "$OLD"
cli warmup-main "" -e 6,6,6 >/dev/null
cli new1 "" -e $K,$K,$K $RAS
cli old1 "$OLD" -e $K,$K,$K $RAS
if [ "${JFR:-0}" = 1 ]; then
  cli new2 "-XX:StartFlightRecording=filename=$OUT/new2.jfr,settings=profile" -e $K,$K,$K $RAS
else
  cli new2 "" -e $K,$K,$K $RAS
fi
cli old2 "$OLD" -e $K,$K,$K $RAS
cli main32 "" -e $M,$M,$M
for r in new2 old2; do
  echo "-- $r: setup by phase and levels"
  [ -f "$logs/$r.log" ] && sed -n '/^p-multigrid:/,/^host heap/p' "$logs/$r.log"
done
tar -czf "$OUT/schwarz4-logs.tgz" -C "$logs" .
echo "summary: $summary; logs: $OUT/schwarz4-logs.tgz"
