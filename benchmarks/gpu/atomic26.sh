#!/usr/bin/env bash
# Issue 26: the one-kernel operator with atomics (-Dlobatto.aparapi.atomicOperator, ElementOperands.ATOMIC/ATOMIC_PTX):
# the element kernel adds every local node's value into y_G (zeroed by a fill first) instead of writing y_L for the
# gather, as libCEED's generated CUDA operator does. Forms: off (the element kernel and the gather, the default), ptx
# (NVIDIA's red.global.add.f64 as inline PTX), cas (a 64-bit compare-and-swap loop). One GPU, one lease, about 5 minutes,
# every command under its own timeout:
#   1. op --operator-forms off,ptx at ~8M DOFs: BP5 at p = 2..8, then BP1 and BP3 at p = 5..8 (the forms one after the
#      other at each point, on the same mesh; each atomic row checks y_G against the off form's).
#   2. op --operator-forms ptx,off,cas at p = 7, BP5, BP3 and BP1 (the order reversed, and the CAS loop).
#   3. The main job at 16^3 (p-MG; its eigenvalue bounds apply the operator without the dot) with each form after a
#      warm-up run: iterations and errors must agree (the Lanczos bounds see the sums in another order).
# Stage first (repository root, build machine):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true && ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine: COMMIT=<sha> bash benchmarks/gpu/atomic26.sh     Results: $OUT/atomic26.tgz and -summary.txt.
# The sweep of the second run (H100): PARTS="op-bp5 120 BP5 2..8 off,ptx; op-bp13 200 BP1,BP3 2..8 off,ptx;
#   op-hi 120 BP5,BP3,BP1 10..15/5 off,ptx" JOBFORMS="off auto" (auto: the default form).
# VARIANTS=registers,shared,pipelined: every op point once per element-kernel variant too (the variant table in a form).
# CG's call in the atomic form (third run): BPS="70 BP5 5..7" adds bp with -Dlobatto.aparapi.atomicOperator=off and auto,
#   alternated twice (BPFORMS to change the forms).
# Local check on PoCL: RUN=java DOFS=30000 FORMS1=off,cas FORMS2=cas,off POISSON="-N 3 -e 4,4,4" JOBFORMS="off cas" \
#   OUT=/tmp/atomic26 bash benchmarks/gpu/atomic26.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
forms1=${FORMS1:-off,ptx}
forms2=${FORMS2:-ptx,off,cas}
poisson=(${POISSON:--N 7 -e 16,16,16})
jobforms=(${JOBFORMS:-off ptx cas})
# the parts: NAME TIMEOUT PROBLEMS MIN..MAX[/STEP] FORMS (PARTS overrides them all, parts separated by ';')
parts=${PARTS:-"op-bp5 90 BP5 2..8 $forms1; op-bp13 95 BP1,BP3 5..8 $forms1; op-p7 75 BP5,BP3,BP1 7..7 $forms2"}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== atomic26/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
# op TIMEOUT NAME PROBLEMS MIN..MAX[/STEP] FORMS
op() {
  local t=$1 name=$2 problems=$3 range=$4 forms=$5
  local step=1
  case "$range" in */*) step=${range#*/}; range=${range%/*} ;; esac
  timeout "$t" "${run[@]}" -Xmx40g -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi -o "$out/$name" \
    --commit "$commit" --time-limit $((t - 15)) --problems "$problems" --operator-forms "$forms" --dofs "$dofs" \
    --n-min "${range%..*}" --n-max "${range#*..}" --n-step "$step" --reps 5 ${VARIANTS:+--element-variants "$VARIANTS"} \
    > "$out/$name.log" 2>&1
}
# bp TIMEOUT NAME FORM PROBLEMS MIN..MAX: CG (bp, 50 iterations) with the form for the whole process
bp() {
  local t=$1 name=$2 f=$3 problems=$4 range=$5
  timeout "$t" "${run[@]}" -Xmx40g -Dlobatto.aparapi.atomicOperator="$f" -cp "$jar" io.lobatto.bench.BenchCli bp -b aparapi \
    -o "$out/$name" --commit "$commit" --time-limit $((t - 15)) --problems "$problems" --dofs "$dofs" \
    --n-min "${range%..*}" --n-max "${range#*..}" --iterations 50 --reps 3 > "$out/$name.log" 2>&1
}
# job TIMEOUT NAME FORM
job() {
  local t=$1 name=$2 f=$3
  timeout "$t" "${run[@]}" -Xmx20g -Dlobatto.aparapi.atomicOperator="$f" -cp "$jar" io.lobatto.examples.LobattoCli poisson \
    -b aparapi "${poisson[@]}" --profile > "$out/$name.log" 2>&1
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.mem \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
names=()
IFS=';' read -ra partlist <<< "$parts"
for part in "${partlist[@]}"; do
  read -r name t problems range forms <<< "$part"
  names+=("$name")
  timed "$name" op "$t" "$name" "$problems" "$range" "$forms"
done
# BPS: "TIMEOUT PROBLEMS MIN..MAX" runs bp once per form of BPFORMS (default "off auto"), alternated twice
if [ -n "${BPS:-}" ]; then
  read -r bpt bpp bpr <<< "$BPS"
  for round in 1 2; do
    for f in ${BPFORMS:-off auto}; do
      names+=("bp-$f-$round")
      timed "bp-$f-$round" bp "$bpt" "bp-$f-$round" "$f" "$bpp" "$bpr"
    done
  done
fi
timed job-warm job 40 job-warm off
for f in "${jobforms[@]}"; do
  timed "job-$f" job 25 "job-$f" "$f"
done
{
  echo "atomic26 at $commit"
  cat "$out/times.log"
  cat "$out/nvidia-smi.csv" 2>/dev/null
  for p in "${names[@]}"; do
    echo "---- $p"
    grep -E '^(BP[0-9]|op  |bp  )|max \|y_G|skipped|cut:|^reference:|Exception|error' "$out/$p.log" | head -60
  done
  for f in "${jobforms[@]}"; do
    echo "---- job $f"
    grep -E '^(CG:|time:|error:)|WARNING|SEVERE|Exception' "$out/job-$f.log" | head -8
  done
} > "$dest/atomic26-summary.txt" 2>&1
cat "$dest/atomic26-summary.txt"
tar czf "$dest/atomic26.tgz" -C "$out" .
echo "atomic26: $((SECONDS - start)) s"
