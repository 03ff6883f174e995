#!/usr/bin/env bash
# GPU runbook of issue 27, item 3 (branch hcoarse): the p-multigrid coarse solve with and without h-coarsening below
# N = 1 on one H100. The main job (lobatto poisson, deformed unit-cube box, N = 7, cheb-jacobi 7,3,1, --profile) at M^3
# (default 32^3, 11.1M DOFs) and L^3 (default 48^3, 38M DOFs), each with -Dlobatto.pmg.hCoarsening=true (the h-levels:
# 32 -> 16 -> 8 -> 4, 48 -> 24 -> 12 -> 6 -> 3 at N = 1) and =false (the N = 1 level on the fine box is the coarsest,
# its Chebyshev count growing with the mesh), with the staged bench jar. Stage:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine:  COMMIT=<sha> bash benchmarks/gpu/hcoarse.sh
# Runs, one JVM each: warm-up of each variant at 8^3 (fills the kernel cache, including the 1 -> 2 transfer of the
# h-levels), then h-on and h-off interleaved, twice each, at M^3, then the same at L^3. Per run one summary line
# (iterations, residuals, setup, solve, ms per iteration, p-MG setup) and the level table (N, DOFs, elements, smoother,
# applies, ms per cycle; the levels are timed with a synchronisation at each level change, in both variants).
# Writes $OUT/hcoarse-$COMMIT-summary.txt and $OUT/hcoarse-$COMMIT-logs.tgz. A run is killed after 45 s and no run
# starts after BUDGET_S = 120 s, so the script ends inside 3 minutes (expected about 1.5 minutes: 10 JVMs).
# Expected (not measured): the same iterations with and without (13 at 32^3); at 32^3 the coarse level's 31 Chebyshev
# iterations (about 2.0 ms of a 10.5 ms V-cycle) replaced by three smoothed h-levels of about 0.1-0.2 ms each and a
# coarsest 4^3 box of 27 DOFs with about 4 iterations, so about 1.3-1.6 ms less per V-cycle, the solve about 10-15%
# shorter; at 48^3 the coarse count without h-levels is near 47 (it grows like K), so the gain should be larger.
# Locally (PoCL, a check of the script only):
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar COMMIT=local M=8 L=10 OUT=/tmp/hc bash benchmarks/gpu/hcoarse.sh
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
M=${M:-32}
L=${L:-48}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
logs=$(mktemp -d)
summary="$OUT/hcoarse-$COMMIT-summary.txt"
line() { # name, log: the summary line of one run
  local log=$2
  local its res setup solve msit pmg
  its=$(sed -n 's/^CG: .* after \([0-9]*\) iterations.*/\1/p' "$log")
  res=$(sed -n 's/^CG: .*residual \(.*\)$/\1/p' "$log" | tr -d ' ')
  setup=$(sed -n 's/^time: setup \([0-9.]*\) s.*/\1/p' "$log")
  solve=$(sed -n 's/^time: .*solve \([0-9.]*\) s.*/\1/p' "$log")
  msit=$(sed -n 's/^time: .*solve [0-9.]* s (\([0-9.]*\) ms per iteration).*/\1/p' "$log")
  pmg=$(sed -n 's/^p-multigrid: .*setup \([0-9.]*\) s.*/\1/p' "$log")
  printf '%-8s its %-3s res %-22s setup %-6s solve %-6s ms/it %-7s pmg-setup %-6s\n' "$1" "${its:--}" "${res:--}" \
      "${setup:--}" "${solve:--}" "${msit:--}" "${pmg:--}"
}
cli() { # name, true|false (h-coarsening), poisson arguments...
  local name=$1 h=$2
  shift 2
  if [ "$SECONDS" -gt "${BUDGET_S:-120}" ]; then   # stay inside 3 minutes even if a run hangs
    echo "== $name skipped: ${SECONDS} s used of ${BUDGET_S:-120}" | tee -a "$summary"
    return
  fi
  local t0=$(date +%s%N)
  timeout 45 $RUN -Xmx60g -Dlobatto.pmg.hCoarsening="$h" -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi \
      -N 7 "$@" --profile > "$logs/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  printf '== %-8s rc=%d wall %d ms: hCoarsening=%s %s\n' "$name" "$rc" $(( (t1 - t0) / 1000000 )) "$h" "$*"
  grep -E 'WARNING|SEVERE|^lobatto: error|Exception' "$logs/$name.log" | head -5
  case $name in
    warmup*) ;;
    *) line "$name" "$logs/$name.log" | tee -a "$summary"
       awk '/^p-multigrid:/ { on = 1; print; next } on && /^ +N +DOFs/ { print; next }
            on && /^ +[0-9]+ +[0-9]+ +[0-9]+ / { print; next } on { exit }' "$logs/$name.log" | tee -a "$summary" ;;
  esac
}
echo "hcoarse runbook at $COMMIT: main job N = 7 at $M^3 and $L^3, h-coarsening on/off; $(date -u +%FT%TZ)" | tee "$summary"
cli warmup-on true -e 8,8,8 >/dev/null
cli warmup-off false -e 8,8,8 >/dev/null
for K in "$M" "$L"; do
  cli "on$K-1" true -e "$K,$K,$K"
  cli "off$K-1" false -e "$K,$K,$K"
  cli "on$K-2" true -e "$K,$K,$K"
  cli "off$K-2" false -e "$K,$K,$K"
done
tar -czf "$OUT/hcoarse-$COMMIT-logs.tgz" -C "$logs" .
echo "summary: $summary; logs: $OUT/hcoarse-$COMMIT-logs.tgz"
