#!/usr/bin/env bash
# GPU runbook of issue 27 (Schwarz p-multigrid, branch schwarz2): Kershaw eps = 0.3, 30^3 elements, N = 7 (9.1M DOFs)
# on one H100, with the staged bench jar. From the repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (GPU machine, .gpu carried)  bash benchmarks/gpu/schwarz2.sh
# Runs, one JVM each, after a 6^3 warm-up that fills the kernel cache for N = 7, 5, 3, 2, 1:
#   jacobi   cheb-jacobi order 3 on 7,3,1 (the baseline: 189 iterations, 1.62-2.11 s)
#   ras4     cheb4opt-ras order 4 on 7,5,3,2,1, fused Schwarz (one local-solve launch, gather folded into Chebyshev)
#   ras4old  the same with -Dlobatto.aparapi.fusedSchwarz=false (scatter, six FDM passes, weights, gather, axpby: the
#            path measured at 71a8e4f), for an A/B in one lease
#   ras4s    cheb4opt-ras order 4 on the cheaper schedule $CHEAP (default 7,4,2,1)
# Each prints iterations, setup, solve and the per-kernel profile (--profile); the summary lines go to stdout, the
# full logs to $OUT/schwarz2-logs.tgz. About 2-3 minutes on an H100.
# Locally (PoCL, a check of the script only): RUN="java" K=6 OUT=/tmp/s2 bash benchmarks/gpu/schwarz2.sh
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
K=${K:-30}
CHEAP=${CHEAP:-7,4,2,1}
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
cli warmup "" -e 6,6,6 --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees 7,5,3,2,1 >/dev/null
cli warmup2 "" -e 6,6,6 --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees "$CHEAP" >/dev/null
cli jacobi "" -e $K,$K,$K --smoother cheb-jacobi --smoother-order 3
cli ras4 "" -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4
cli ras4old -Dlobatto.aparapi.fusedSchwarz=false -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4
cli ras4s "" -e $K,$K,$K --smoother cheb4opt-ras --smoother-order 4 --pmg-degrees "$CHEAP"
tar -czf "$OUT/schwarz2-logs.tgz" -C "$logs" .
echo "logs: $OUT/schwarz2-logs.tgz"
