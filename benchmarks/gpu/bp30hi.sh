#!/usr/bin/env bash
# Issue 26, BP3.0 (CEED BP3) at high p: the pipelined BP3.0 kernel (StiffnessBp30PipelinedKernel,
# -Dlobatto.aparapi.elementVariant=pipelined) against the table's kernels (registers; shared at N = 8 and 15), on one GPU
# in one lease (at most 6 minutes: every command under its own timeout, 360 s in all; about 4-5 minutes expected):
#   1. SelfCheck --element-kernel=STIFFNESS_BP30 with the pipelined variant: BP3.0 at N = 1..15 element by element and
#      assembled, lambda 0.9 and 0, against plain Java loops on the GPU (PoCL does not show a missing barrier; this does).
#   2. op --problems BP3 --element-variants table,pipelined at ~8M DOFs, the two variants one after the other at each p on
#      the same mesh; the degrees in four sweeps by priority, each with its own timeout so that a slow one loses only its
#      own points: p = 6..8, p = 15, p = 9..14, p = 2..5.
#   3. kernel-info -N 7,15 --label BP3.0 for the table and for pipelined (only BP3.0 built): registers, stack and spills.
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/bp30hi.sh
# Results: $OUT/bp30hi.tgz (logs, the op JSONs and CSVs, the kernel-info tables, times.log, nvidia-smi) and
# $OUT/bp30hi-summary.txt (the lines to read). Local check on PoCL at a tiny size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 RANGES="6..7 15..15 2..2" KI_N=3 KI_DEVICE=pthread KI_OPTIONS= \
#     OUT=/tmp/bp30hi bash benchmarks/gpu/bp30hi.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
ranges=(${RANGES:-6..8 15..15 9..14 2..5})
limits=(${LIMITS:-65 50 85 55})
ki_n=${KI_N:-7,15}
ki_device=(${KI_DEVICE:+--device "$KI_DEVICE"})
ki_options=(${KI_OPTIONS+"--options=$KI_OPTIONS"})   # unset: kernel-info's default, -cl-nv-verbose
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== bp30hi/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" | tee -a "$out/times.log"
  return $rc
}
# op TIMEOUT NAME MIN..MAX: the BP3 operator apply, both variants at each degree, sweep limited to TIMEOUT - 15 s
op() {
  local t=$1 name=$2 range=$3
  timeout "$t" "${run[@]}" -Xmx60g ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi -o "$out/$name" \
    --commit "$commit" --time-limit $((t - 15)) --problems BP3 --element-variants table,pipelined --dofs "$dofs" \
    --n-min "${range%..*}" --n-max "${range#*..}" --reps 5 > "$out/$name.log" 2>&1
}
# ki TIMEOUT VARIANT: kernel-info of the BP3.0 builds with the variant
ki() {
  local t=$1 v=$2
  timeout "$t" "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant="$v" -cp "$jar" io.lobatto.bench.BenchCli kernel-info \
    "${ki_device[@]}" "${ki_options[@]}" -N "$ki_n" --label BP3.0 -o "$out/ki-$v" --commit "$commit" > "$out/ki-$v.log" 2>&1
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
timed selfcheck timeout 60 "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=pipelined -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP30 > "$out/selfcheck.log" 2>&1
for r in 0 1 2 3; do
  [ -n "${ranges[$r]:-}" ] && timed "op-$r" op "${limits[$r]}" "op-$r" "${ranges[$r]}"
done
timed ki-table ki 25 table
timed ki-pipelined ki 20 pipelined
echo "== bp30hi: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "bp30hi at ${commit}"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  echo "---- selfcheck (pipelined BP3.0): FAIL lines and the verdict"
  grep -E '^(FAIL|device:|ALL PASS|[0-9]+ FAILURES)|Exception' "$out/selfcheck.log" | head -40
  grep -cE '^PASS' "$out/selfcheck.log" | sed 's/^/PASS lines: /'
  for p in op-0 op-1 op-2 op-3; do
    [ -e "$out/$p.log" ] || continue
    echo "---- $p (GDOF/s: apply median, best, worst; then CG's call)"
    grep -E '^(op |BP3 |reference: best|lobatto-bench op:|cut)|skipped|Exception|WARNING|SEVERE' "$out/$p.log"
  done
  for v in table pipelined; do
    echo "---- kernel-info $v"
    grep -E '^== |Used [0-9]+ registers|stack frame|work-group size|error|Exception' "$out/ki-$v.log"
  done
} > "$dest/bp30hi-summary.txt"
cat "$dest/bp30hi-summary.txt"
tar czf "$dest/bp30hi.tgz" -C "$out" . && echo "results: $dest/bp30hi.tgz and $dest/bp30hi-summary.txt"
