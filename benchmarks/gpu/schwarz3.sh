#!/usr/bin/env bash
# GPU runbook of issue 27 (Schwarz setup, branch schwarz3): the restricted Schwarz setup without Z_ext (extended ids,
# FDM table of distinct lines, local solves on the own nodes summed by the mesh's gather) and the smoothers' residual
# updates folded into the operator's gather, against the old path (-Dlobatto.schwarz.compact=false: Z_ext, dense FDM,
# weights on the extended points; -Dlobatto.aparapi.foldResidual=false: apply, then axpby), Kershaw eps = 0.3, 30^3
# elements, N = 7 (9.1M DOFs), cheb4opt-ras order 4 on 7,5,3,2,1, on one H100, with the staged bench jar. From the
# repository root:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   (GPU machine, .gpu carried)  bash benchmarks/gpu/schwarz3.sh
# Runs, one JVM each, after 6^3 warm-ups that fill the kernel cache (FdmElementKernel changed, so it builds once):
#   new1, new2   compact setup and folded residual updates (the defaults), --profile
#   old1, old2   both off (the path of c985786), --profile (interleaved with the new runs)
#   main32       the main job, deformed 32^3 box, default p-MG (cheb-jacobi), once: no Schwarz, a regression check
# Each prints iterations, residual, setup, solve, the Schwarz setup phases, eigenvalue bounds, the host heap and the
# largest kernels of the profile; full logs in $OUT/schwarz3-logs.tgz. About 2 minutes on an H100 (7 JVMs).
# JFR=1 records new2 with Java Flight Recorder into $OUT/new2.jfr (stage the runtime with
# GPU_JRE_MODULES=java.base,java.logging,java.management,jdk.unsupported,jdk.jfr): where the remaining host setup goes.
# Locally (PoCL, a check of the script only): RUN="java" K=6 M=6 OUT=/tmp/s3 bash benchmarks/gpu/schwarz3.sh
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
K=${K:-30}
M=${M:-32}
OUT=${OUT:-$(mktemp -d)}
logs=$(mktemp -d)
cli() { # name, extra JVM options (one word or ""), poisson arguments...
  local name=$1 jopt=$2   # JVM options, split at spaces
  shift 2
  local t0=$(date +%s%N)
  $RUN -Xmx60g $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi -N 7 "$@" --profile \
      > "$logs/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  printf '== %-8s rc=%d wall %d ms: %s %s\n' "$name" "$rc" $(( (t1 - t0) / 1000000 )) "$jopt" "$*"
  grep -E '^(CG:|time:|p-multigrid:|host heap)|Schwarz|eigenvalue bounds|WARNING|SEVERE|^lobatto: error' "$logs/$name.log" | head -20
  grep -E '^error: max' "$logs/$name.log"
  grep -E '^kernel +launches' "$logs/$name.log"
  awk '/^kernel +launches/{on=1; next} /^sum of kernels/{on=0} on{print $NF "\t" $0}' "$logs/$name.log" | sort -g -r | head -8 | cut -f2-
  grep -E '^(sum of kernels|wall per iteration)' "$logs/$name.log"
}
OLD="-Dlobatto.schwarz.compact=false -Dlobatto.aparapi.foldResidual=false"
RAS="--kershaw 0.3 --smoother cheb4opt-ras --smoother-order 4"
echo "schwarz3 runbook: K = $K, N = 7, Kershaw 0.3, main job $M^3; $(date -u +%FT%TZ)"
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
tar -czf "$OUT/schwarz3-logs.tgz" -C "$logs" .
echo "logs: $OUT/schwarz3-logs.tgz"
