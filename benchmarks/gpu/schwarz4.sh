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
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
K=${K:-30}
M=${M:-32}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
logs=$(mktemp -d)
summary="$OUT/schwarz4-summary.txt"
phase() { # log, phase name: its seconds, or -
  awk -v p="$2" 'index($0, "  " p " ") == 1 { for (i = 1; i <= NF; i++) if ($(i + 1) == "s") { print $i; exit } }' "$1" | grep . || echo -
}
line() { # name, log: the summary line of one run
  local log=$2
  local its res setup solve pmg
  its=$(sed -n 's/^CG: .* after \([0-9]*\) iterations.*/\1/p' "$log")
  res=$(sed -n 's/^CG: .*residual \(.*\)$/\1/p' "$log" | tr -d ' ')
  setup=$(sed -n 's/^time: setup \([0-9.]*\) s.*/\1/p' "$log")
  solve=$(sed -n 's/^time: .*solve \([0-9.]*\) s.*/\1/p' "$log")
  pmg=$(sed -n 's/^p-multigrid: .*setup \([0-9.]*\) s.*/\1/p' "$log")
  printf '%-7s its %-3s res %-22s setup %-6s solve %-6s pmg-setup %-6s topo %-6s fdm %-6s Z %-6s upload %-6s bounds %-6s pmgZ %-6s pmgGeom %-6s diag %-6s\n' \
      "$1" "${its:--}" "${res:--}" "${setup:--}" "${solve:--}" "${pmg:--}" "$(phase "$log" 'Schwarz topology')" \
      "$(phase "$log" 'Schwarz FDM')" "$(phase "$log" 'Schwarz Z')" "$(phase "$log" 'Schwarz upload')" \
      "$(phase "$log" 'eigenvalue bounds')" "$(phase "$log" 'p-MG Z')" "$(phase "$log" 'p-MG geometry')" "$(phase "$log" 'diagonals')"
}
cli() { # name, extra JVM options (one word or "", split at spaces), poisson arguments...
  local name=$1 jopt=$2
  shift 2
  if [ "$SECONDS" -gt "${BUDGET_S:-200}" ]; then   # stay inside 4 minutes even if a run hangs
    echo "== $name skipped: ${SECONDS} s used of ${BUDGET_S:-200}" | tee -a "$summary"
    return
  fi
  local t0=$(date +%s%N)
  timeout 50 $RUN -Xmx60g $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi -N 7 "$@" --profile \
      > "$logs/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  printf '== %-8s rc=%d wall %d ms: %s %s\n' "$name" "$rc" $(( (t1 - t0) / 1000000 )) "$jopt" "$*"
  grep -E 'WARNING|SEVERE|^lobatto: error' "$logs/$name.log" | head -5
  case $name in
    warmup*) ;;
    *) line "$name" "$logs/$name.log" | tee -a "$summary" ;;
  esac
}
OLD="-Dlobatto.schwarz.fastSetup=false"
RAS="--kershaw 0.3 --smoother cheb4opt-ras --smoother-order 4"
echo "schwarz4 runbook: K = $K, N = 7, Kershaw 0.3, main job $M^3; $(date -u +%FT%TZ)" | tee "$summary"
cli warmup-new "" -e 6,6,6 $RAS >/dev/null
cli warmup-old "$OLD" -e 6,6,6 $RAS >/dev/null
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
