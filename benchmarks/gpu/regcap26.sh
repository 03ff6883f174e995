#!/usr/bin/env bash
# GPU runbook (issue 26): the element kernels' register cap on the GPU at hand. Nsight Compute through ptxprof26.sh
# (H200, 1fbe6ab) found BP3.5's one-kernel operator latency-bound (long-scoreboard stalls first) at N = 2 and 3 with 70
# and 48 registers, 37.5 % and 62.5 % theoretical occupancy, and the N = 7 kernel spilling under the table's cap of 32.
# Part 1 times the same PTX through CUDA (ptxprof.py) at each cap; part 2 runs the backend's op BP5 at N = 2..7 with
# -Dlobatto.aparapi.elementMaxRegisters = table (the H100's table), none, 64, 48, 40, 32, the table again last.
# Stage as queue26.sh says; then (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/regcap26.sh
# About 5 minutes (308 s on an H200 at 1fbe6ab). Writes $OUT/regcap26.tgz and $OUT/regcap26-summary.txt.
# Measured there (GDOF/s, op BP5, table / none / 48 / 40 / 32 / table): N = 2 12.15 / 12.15 / 9.23 / 6.82 / 5.09 / 12.15,
# N = 3 19.03 / 19.14 / 18.50 / 19.42 / 16.25 / 19.60, N = 5 21.05 / 21.10 / 18.66 / 18.80 / 19.97 / 21.03, N = 7 26.40 /
# 25.10 / 24.80 / 24.91 / 26.38 / 26.54: the H100's table holds on the H200. Part 1's ptxas timings disagree with the
# backend's builds (ptxas's uncapped N = 7 code is 9 % faster than any build of the driver's), so only part 2 decides.
# Not yet run on the backend: a cap of 64 at N = 2 (part 1: 70 -> 64 registers, 37.5 -> 50 % occupancy, 626 -> 565 us);
# VARIANTS="table 64 table" NS=2 runs it.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
NS=${NS:-2,3,5,7}
CAPS=${CAPS:-0 64 48 40 32}
VARIANTS=${VARIANTS:-table none 48 40 32 table}
OUT=${OUT:-$(mktemp -d)}
w=$(mktemp -d)/regcap26
mkdir -p "$w"
here=$(dirname "$0")
s="$w/summary.txt"
echo "regcap26 at ${COMMIT:-unknown}: $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" | tee "$s"
timeout 120 $RUN -Xmx8g -jar "$JAR" kernel-info -N "$NS" --label BP3.5 --source-out "$w/src.cl" --binary-out "$w/ptx" \
  -o "$w/ki" > "$w/kernel-info.log" 2>&1
echo "kernel-info exit $?" | tee -a "$s"
i=0
while :; do
  for cap in $CAPS; do
    python3 "$here/ptxprof.py" "$w/src.cl" "$w/ptx" BP3.5 --from-global 5 --index $i --reps 40 --maxnreg $cap > "$w/t.txt" 2>&1
    rc=$?
    [ $rc -eq 3 ] && break 2
    echo "cap $cap: $(grep -E '^(kernel|median|registers)' "$w/t.txt" | sed 's/(one kernel, atomic): //' | tr '\n' ' ')" | tee -a "$s"
  done
  i=$((i + 1))
done
t0=$SECONDS
for v in $VARIANTS; do
  [ $((SECONDS - t0)) -gt ${BUDGET_S:-240} ] && { echo "op $v: not started (budget)" | tee -a "$s"; continue; }
  st=$SECONDS
  mkdir -p "$w/op-$v-$st"
  timeout 100 $RUN -Xmx60g -Dlobatto.aparapi.elementMaxRegisters=$v -jar "$JAR" op --problems BP5 --dofs 8000000 \
    --n-min 2 --n-max 7 --reps 6 --reference-copies 1 -b aparapi -o "$w/op-$v-$st" --commit "${COMMIT:-unknown}" \
    --time-limit 80 > "$w/op-$v-$st.log" 2>&1
  echo "op $v (exit $?): $(grep -E "^BP5 " "$w/op-$v-$st.log" | awk '{printf "N=%s %s  ", $2, $7}')" | tee -a "$s"
done
tar czf "$OUT/regcap26.tgz" -C "$(dirname "$w")" regcap26
cp "$s" "$OUT/regcap26-summary.txt"
