#!/usr/bin/env bash
# GPU runbook of issue 26 (branch rows2): the fused gathers in the rows kind (GatherRowsFusedKernel) against the block
# kernels, in one lease on one H100, about 2-3 minutes (every command under its own timeout, 220 s in all):
#   1. warm-ups of the main job at 6^3 elements in each kind (they fill the disk kernel cache for that kind's kernels)
#   2. the main job, lobatto poisson -N 7 -e 32,32,32 (p-MG CG) with --profile, in the order blocks, rows, blocks, rows
#      (-Dlobatto.aparapi.gatherScatter=blocks|rows): iterations, setup, solve and the per-kernel profile; rows launches
#      "gather (rows)", "gather+dot (rows)" where blocks launches "gather", "gather+dot"
#   3. lobatto-bench bp, BP5 at N = 3, 5, 7, 8M DOFs, 50 CG iterations, 3 reps, in each kind (bp's CG gathers with the dot)
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/rows2.sh
# Results: $OUT/rows2-summary.txt (the lines to read, also printed) and $OUT/rows2.tgz (logs, bp JSON/CSV, times.log,
# nvidia-smi). Local check on PoCL at a small size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar K=4 WARM=2 DOFS=20000 SCALE=6 OUT=/tmp/rows2 bash benchmarks/gpu/rows2.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
k=${K:-32}
warm=${WARM:-6}
dofs=${DOFS:-8000000}
kinds=${KINDS:-blocks rows}
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
# poisson TIMEOUT KIND ARGS...: the lobatto CLI's poisson on aparapi with Z of KIND
poisson() {
  local t=$1 kind=$2; shift 2
  timeout $((t * scale)) "${run[@]}" -Xmx60g -Dlobatto.aparapi.gatherScatter="$kind" ${JOPTS:-} -cp "$jar" io.lobatto.examples.LobattoCli \
    poisson -b aparapi -N 7 "$@"
}
# bp TIMEOUT KIND: lobatto-bench bp, BP5 at N = 3, 5, 7, its sweep limited to TIMEOUT - 15 s, results in $out/bp-KIND
bp() {
  local t=$1 kind=$2
  timeout $((t * scale)) "${run[@]}" -Xmx60g -Dlobatto.aparapi.gatherScatter="$kind" ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli bp \
    -b aparapi -o "$out/bp-$kind" --commit "$commit" --time-limit $((t * scale - 15)) --problems BP5 --dofs "$dofs" \
    --n-min 3 --n-max 7 --n-step 2 --iterations 50 --reps 3
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
for kind in $kinds; do
  timed "warmup-$kind" poisson 20 "$kind" -e "$warm,$warm,$warm" > "$out/warmup-$kind.log" 2>&1
done
for i in 1 2; do
  for kind in $kinds; do
    timed "poisson-$kind-$i" poisson 25 "$kind" -e "$k,$k,$k" --profile > "$out/poisson-$kind-$i.log" 2>&1
  done
done
for kind in $kinds; do
  timed "bp-$kind" bp 40 "$kind" > "$out/bp-$kind.log" 2>&1
done
echo "== rows2: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "rows2 runbook at $commit: K = $k, N = 7, bp BP5 at $dofs DOFs; $(date -u +%FT%TZ)"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for kind in $kinds; do
    echo "---- warmup-$kind"
    grep -E 'WARNING|SEVERE|Exception|^lobatto: error|compiled' "$out/warmup-$kind.log" | head -5
  done
  for i in 1 2; do
    for kind in $kinds; do
      f="$out/poisson-$kind-$i.log"
      echo "---- poisson-$kind-$i"
      grep -E '^(CG:|time:|p-multigrid:)|compiled|WARNING|SEVERE|Exception|^lobatto: error' "$f" | head -12
      grep -E '^error: max' "$f"
      # the solve's kernels, largest device time per iteration first
      grep -E '^kernel +launches' "$f"
      awk '/^kernel +launches/{on=1; next} /^sum of kernels/{on=0} on{print $NF "\t" $0}' "$f" | sort -g -r | head -12 | cut -f2-
      grep -E '^(sum of kernels|wall per iteration)' "$f"
    done
  done
  for kind in $kinds; do
    echo "---- bp-$kind"
    grep -E 'BP5|GDOF|error|Exception|WARNING|SEVERE|cut' "$out/bp-$kind.log" | head -20
  done
} > "$dest/rows2-summary.txt"
cat "$dest/rows2-summary.txt"
tar czf "$dest/rows2.tgz" -C "$out" . && echo "results: $dest/rows2.tgz and $dest/rows2-summary.txt"
