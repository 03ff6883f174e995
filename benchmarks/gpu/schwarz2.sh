#!/usr/bin/env bash
# GPU runbook of issue 27 (Schwarz p-multigrid, branch schwarz2): Kershaw eps = 0.3, 30^3 elements, N = 7 (9.1M DOFs)
# on one H100, with the staged bench jar. From the repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (GPU machine, .gpu carried)  bash benchmarks/gpu/schwarz2.sh
# Runs, one JVM each, after 6^3 warm-ups that fill the kernel cache:
#   jacobi   cheb-jacobi order 3 on 7,3,1 (the baseline: 189 iterations, 1.62-2.11 s)
#   ras4     cheb4opt-ras order 4 on 7,5,3,2,1, fused Schwarz (one local-solve launch, gather folded into Chebyshev)
#   ras4old  the same with -Dlobatto.aparapi.fusedSchwarz=false (scatter, six FDM passes, weights, gather, axpby: the
#            path measured at 71a8e4f), for an A/B in one lease
#   ras4-S   cheb4opt-ras order 4 on each cheaper schedule S of $CHEAP (default 7,5,3,1 and 7,4,2,1: 22 and 25
#            iterations at 12^3 on the Java backend against 21 for 7,5,3,2,1)
# Each prints iterations, setup, solve and the per-kernel profile (--profile); the summary lines go to stdout, the
# full logs to $OUT/schwarz2-logs.tgz. About 2-3 minutes on an H100 (10 JVMs; about 8 min on PoCL at K = 6).
# Locally (PoCL, a check of the script only): RUN="java" K=6 OUT=/tmp/s2 bash benchmarks/gpu/schwarz2.sh
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
K=${K:-30}
CHEAP=${CHEAP:-7,5,3,1 7,4,2,1}
OUT=${OUT:-$(mktemp -d)}
logs=$(mktemp -d)
cli() { # name, extra JVM options (one word or ""), poisson arguments...
  local name=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN -Xmx60g $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --kershaw 0.3 -N 7 "$@" --profile \
      > "$logs/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  printf '== %-8s rc=%d wall %d ms: %s\n' "$name" "$rc" $(( (t1 - t0) / 1000000 )) "$*"
  grep -E '^(CG:|time:|p-multigrid:|    [0-9] )|Schwarz|eigenvalue bounds|WARNING|SEVERE|^lobatto: error' "$logs/$name.log" | grep -v '^error: max' | head -20
  grep -E '^error: max' "$logs/$name.log"
  # the V-cycle's kernels: the profile table, largest device time per iteration first
  grep -E '^kernel +launches' "$logs/$name.log"
  awk '/^kernel +launches/{on=1; next} /^sum of kernels/{on=0} on{print $NF "\t" $0}' "$logs/$name.log" | sort -g -r | head -14 | cut -f2-
  grep -E '^(sum of kernels|wall per iteration)' "$logs/$name.log"
}
echo "schwarz2 runbook: K = $K, N = 7, Kershaw 0.3; $(date -u +%FT%TZ)"
# warm-ups at 6^3 fill the disk kernel cache (element kernels per N, transfers per pair of degrees), as in the
# 71a8e4f logs ("0 compiled"): 7,3,1 and 7,5,3,2,1 cover every kernel of 7,5,3,1; a schedule of $CHEAP with other
# degrees gets its own
cli warmup-jacobi "" -e 6,6,6 --smoother cheb-jacobi --smoother-order 3 >/dev/null
cli warmup-ras "" -e 6,6,6 --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees 7,5,3,2,1 >/dev/null
cli warmup-old -Dlobatto.aparapi.fusedSchwarz=false -e 6,6,6 --smoother cheb4opt-ras --smoother-order 4 >/dev/null
for s in $CHEAP; do
  [ "$s" = 7,5,3,1 ] || cli "warmup-$s" "" -e 6,6,6 --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees "$s" >/dev/null
done
cli jacobi "" -e $K,$K,$K --smoother cheb-jacobi --smoother-order 3
cli ras4 "" -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4
cli ras4old -Dlobatto.aparapi.fusedSchwarz=false -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4
for s in $CHEAP; do
  cli "ras4-$s" "" -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees "$s"
done
tar -czf "$OUT/schwarz2-logs.tgz" -C "$logs" .
echo "logs: $OUT/schwarz2-logs.tgz"
