#!/usr/bin/env bash
# GPU runbook of issue 26 (branch rows2), one lease on one H100, about 2 minutes (every command under its own timeout,
# 237 s in all). Three variants, each a JVM of its own:
#   blocks  -Dlobatto.aparapi.gatherScatter=blocks: the block kernels of GatherScatterKernel for every gather
#   rows    -Dlobatto.aparapi.gatherScatter=rows (the default): the plain and the fused gathers one work-item per row
#           (GatherScatterRowsKernel, GatherRowsFusedKernel); profile labels "gather (rows)", "gather+dot (rows)"
#   one     rows with -Dlobatto.aparapi.oneKernelOperator=true: the element kernel writes the degree-1 rows of y_G
#           itself ("BP3.5 N=7 (one kernel)"), the gather sums only the shared rows ("gather+dot (one kernel)")
#   1. the main job, lobatto poisson -N 7 -e 32,32,32 (p-MG CG) with --profile, in the order blocks, rows, one, blocks,
#      rows, one (the first of each compiles its kind's kernels into the disk cache; setup shows it, the solve does not):
#      iterations, setup, solve and the per-kernel profile
#   2. lobatto-bench bp, BP5 at N = 3, 5, 7, 8M DOFs, 50 CG iterations, 3 reps, in each variant (bp's CG gathers with
#      the dot: gather+dot)
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/rows2.sh
# Results: $OUT/rows2-summary.txt (the lines to read, also printed) and $OUT/rows2.tgz (logs, bp JSON/CSV, times.log,
# nvidia-smi). Local check on PoCL at a small size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar K=4 DOFS=20000 SCALE=6 OUT=/tmp/rows2 bash benchmarks/gpu/rows2.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
k=${K:-32}
dofs=${DOFS:-8000000}
variants=${VARIANTS:-blocks rows one}
scale=${SCALE:-1}   # the timeouts' factor (a PoCL check runs slower)
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== rows2/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" | tee -a "$out/times.log"
  return $rc
}
# opts VARIANT: its JVM options
opts() {
  case "$1" in
    blocks) echo "-Dlobatto.aparapi.gatherScatter=blocks" ;;
    rows) echo "-Dlobatto.aparapi.gatherScatter=rows" ;;
    one) echo "-Dlobatto.aparapi.gatherScatter=rows -Dlobatto.aparapi.oneKernelOperator=true" ;;
    *) echo "rows2.sh: unknown variant $1 (blocks, rows, one)" >&2; return 1 ;;
  esac
}
# poisson TIMEOUT VARIANT ARGS...: the lobatto CLI's poisson on aparapi in VARIANT
poisson() {
  local t=$1 v=$2; shift 2
  timeout $((t * scale)) "${run[@]}" -Xmx60g $(opts "$v") ${JOPTS:-} -cp "$jar" io.lobatto.examples.LobattoCli \
    poisson -b aparapi -N 7 "$@"
}
# bp TIMEOUT VARIANT: lobatto-bench bp, BP5 at N = 3, 5, 7, its sweep limited to TIMEOUT - 15 s, results in $out/bp-VARIANT
bp() {
  local t=$1 v=$2
  timeout $((t * scale)) "${run[@]}" -Xmx60g $(opts "$v") ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli bp \
    -b aparapi -o "$out/bp-$v" --commit "$commit" --time-limit $((t * scale - 15)) --problems BP5 --dofs "$dofs" \
    --n-min 3 --n-max 7 --n-step 2 --iterations 50 --reps 3
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
for i in 1 2; do
  for v in $variants; do
    timed "poisson-$v-$i" poisson 22 "$v" -e "$k,$k,$k" --profile > "$out/poisson-$v-$i.log" 2>&1
  done
done
for v in $variants; do
  timed "bp-$v" bp 35 "$v" > "$out/bp-$v.log" 2>&1
done
echo "== rows2: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "rows2 runbook at $commit: K = $k, N = 7, bp BP5 at $dofs DOFs; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for i in 1 2; do
    for v in $variants; do
      f="$out/poisson-$v-$i.log"
      echo "---- poisson-$v-$i"
      grep -E '^(CG:|time:|p-multigrid:)|compiled|WARNING|SEVERE|Exception|^lobatto: error' "$f" | head -12
      grep -E '^error: max' "$f"
      # the solve's kernels, largest device time per iteration first
      grep -E '^kernel +launches' "$f"
      awk '/^kernel +launches/{on=1; next} /^sum of kernels/{on=0} on{print $NF "\t" $0}' "$f" | sort -g -r | head -12 | cut -f2-
      grep -E '^(sum of kernels|wall per iteration)' "$f"
    done
  done
  for v in $variants; do
    echo "---- bp-$v"
    grep -E 'BP5|GDOF|error|Exception|WARNING|SEVERE|cut' "$out/bp-$v.log" | head -20
  done
} > "$dest/rows2-summary.txt"
cat "$dest/rows2-summary.txt"
tar czf "$dest/rows2.tgz" -C "$out" . && echo "results: $dest/rows2.tgz and $dest/rows2-summary.txt"
