#!/usr/bin/env bash
# Issue 26, BP3.5 (CEED BP5) with stored factors: the pipelined kernel (StiffnessBp35PipelinedKernel,
# -Dlobatto.aparapi.elementVariant=pipelined: shared columns, t-grid and two pairs of flux layers in local memory, one
# barrier per layer, the next layer's six factors loaded before the barrier; the register columns from N = 13, where it
# does not fit 48 KiB) against the table's kernels (row "SRRRSSSRSRRRRSS"), on one GPU in one lease, at most 5 minutes:
# every command under its own timeout, 297 s in all; about 3.5 minutes expected (bp30hi.sh's BP3 sweeps took 10-12 s per
# p for both variants, SelfCheck 21 s, kernel-info 7-10 s; the main job at 32^3 takes 2-4 s warm beside the JVM's start).
#   1. SelfCheck --element-kernel=STIFFNESS_BP35 with the pipelined variant forced: N = 1..15 element by element and
#      assembled, lambda 0.9 and 0, against plain Java loops on the GPU (PoCL does not show a missing barrier; this does).
#   2. op --problems BP5 --element-variants table,pipelined at ~8M DOFs, the two variants one after the other at each p on
#      the same mesh; three sweeps by priority, each with its own timeout: p = 6..8, p = 2..5, p = 9..12.
#   3. kernel-info -N 7 --label BP3.5 for the table and for pipelined: registers, stack and spills.
#   4. The main job (poisson -b aparapi -N 7 -e 32,32,32 --profile, 11.2M DOFs, p-MG) once per variant after one warm-up
#      run each (which fills the kernel cache): the table (no property) against -Dlobatto.aparapi.elementVariant=pipelined.
#      The table's run is the default and keeps its bits; pipelined must give the same CG iterations.
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/bp35pipe.sh
# Results: $OUT/bp35pipe.tgz (logs, the op JSONs and CSVs, the kernel-info tables, times.log, nvidia-smi) and
# $OUT/bp35pipe-summary.txt (the lines to read, also printed).
# Expected (not measured): SelfCheck ALL PASS; pipelined at or above the table at p = 6..8 (the on-the-fly shared kernel of
# the same structure ran 16.1 GDOF/s at p = 7 against 14.4 stored; this one reads the six factors instead of computing
# them, so about that or more if the loads hide behind the barrier), and within a few per cent at p = 2..5 and 9..12;
# the same CG iterations in the main job, its solve time within noise or shorter.
# Local check on PoCL at a tiny size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 RANGES="6..7 2..2 9..9" KI_N=3 KI_DEVICE=pthread \
#     KI_OPTIONS= POISSON="-N 3 -e 4,4,4" XMX=4g SC_LIMIT=300 \
#     JOB_LIMITS="120 60 60 60" OUT=/tmp/bp35pipe COMMIT=local bash benchmarks/gpu/bp35pipe.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
ranges=(${RANGES:-6..8 2..5 9..12})
limits=(${LIMITS:-55 60 60})
ki_n=${KI_N:-7}
ki_device=(${KI_DEVICE:+--device "$KI_DEVICE"})
ki_options=(${KI_OPTIONS+"--options=$KI_OPTIONS"})   # unset: kernel-info's default, -cl-nv-verbose
poisson=(${POISSON:--N 7 -e 32,32,32})
xmx=${XMX:-60g}
sc_limit=${SC_LIMIT:-35}   # the PoCL check gives SelfCheck and the main job more: PoCL builds slowly
job_limits=(${JOB_LIMITS:-18 18 12 12})   # warm-up table, warm-up pipelined, table, pipelined
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== bp35pipe/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
# op TIMEOUT NAME MIN..MAX: the BP5 operator apply, both variants at each degree, sweep limited to TIMEOUT - 15 s
op() {
  local t=$1 name=$2 range=$3
  timeout "$t" "${run[@]}" -Xmx"$xmx" ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi -o "$out/$name" \
    --commit "$commit" --time-limit $((t - 15)) --problems BP5 --element-variants table,pipelined --dofs "$dofs" \
    --n-min "${range%..*}" --n-max "${range#*..}" --reps 5 > "$out/$name.log" 2>&1
}
# ki TIMEOUT VARIANT: kernel-info of the BP3.5 builds with the variant
ki() {
  local t=$1 v=$2
  timeout "$t" "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant="$v" -cp "$jar" io.lobatto.bench.BenchCli kernel-info \
    "${ki_device[@]}" "${ki_options[@]}" -N "$ki_n" --label BP3.5 -o "$out/ki-$v" --commit "$commit" > "$out/ki-$v.log" 2>&1
}
# job TIMEOUT NAME VARIANT: the main job, the variant table (no property) or pipelined
job() {
  local t=$1 name=$2 v=$3
  local prop=()
  [ "$v" = table ] || prop=(-Dlobatto.aparapi.elementVariant="$v")
  timeout "$t" "${run[@]}" -Xmx"$xmx" "${prop[@]}" -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi \
    "${poisson[@]}" --profile > "$out/$name.log" 2>&1
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
timed selfcheck timeout "$sc_limit" "${run[@]}" -Xmx16g -Dlobatto.aparapi.elementVariant=pipelined -cp "$jar" \
  io.lobatto.backend.aparapi.SelfCheck --element-kernel=STIFFNESS_BP35 > "$out/selfcheck.log" 2>&1
for r in 0 1 2; do
  [ -n "${ranges[$r]:-}" ] && timed "op-$r" op "${limits[$r]}" "op-$r" "${ranges[$r]}"
done
timed ki-table ki 15 table
timed ki-pipelined ki 12 pipelined
timed job-warm-table job "${job_limits[0]}" job-warm-table table
timed job-warm-pipelined job "${job_limits[1]}" job-warm-pipelined pipelined
timed job-table job "${job_limits[2]}" job-table table
timed job-pipelined job "${job_limits[3]}" job-pipelined pipelined
echo "== bp35pipe: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "bp35pipe at ${commit}"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  echo "---- selfcheck (pipelined BP3.5): FAIL lines and the verdict"
  grep -E '^(FAIL|device:|ALL PASS|[0-9]+ FAILURES)|Exception' "$out/selfcheck.log" | head -40
  grep -cE '^PASS' "$out/selfcheck.log" | sed 's/^/PASS lines: /'
  for p in op-0 op-1 op-2; do
    [ -e "$out/$p.log" ] || continue
    echo "---- $p (GDOF/s: apply median, best, worst; then CG's call)"
    grep -E '^(op |BP5 |reference: best|lobatto-bench op:|cut)|^ +kernel: |skipped|Exception|WARNING|SEVERE' "$out/$p.log"
  done
  for v in table pipelined; do
    echo "---- kernel-info $v"
    grep -E '^== |Used [0-9]+ registers|stack frame|work-group size|error|Exception' "$out/ki-$v.log"
  done
  for j in job-warm-table job-warm-pipelined job-table job-pipelined; do
    [ -e "$out/$j.log" ] || continue
    echo "---- $j"
    grep -E '^(CG:|time:|error:|solve|setup)|wall per iteration|sum of kernels|BP3\.5 N=|WARNING|SEVERE|Exception' "$out/$j.log" \
      | head -16
  done
} > "$dest/bp35pipe-summary.txt"
cat "$dest/bp35pipe-summary.txt"
tar czf "$dest/bp35pipe.tgz" -C "$out" . && echo "results: $dest/bp35pipe.tgz and $dest/bp35pipe-summary.txt"
