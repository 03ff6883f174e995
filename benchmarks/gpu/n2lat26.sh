#!/usr/bin/env bash
# GPU runbook (issue 26): BP5 at N = 2, the op's weakest degree against libCEED. Nsight Compute on the H200 (ptxprof26.sh at
# 1fbe6ab) found its pipelined kernel latency-bound at 37.5 % occupancy (70 registers, 3 groups of 252 work-items per SM)
# with 18.7M excess shared wavefronts, the largest at the own columns' stores and loads (28 elements of 90 doubles per
# group). Two leads, alone and together, alternated twice in one lease:
#   base      the table
#   pad       -Dlobatto.aparapi.elementBankPad=true (element regions of 105 doubles: the same bits, no overlapping banks)
#   cap64     -Dlobatto.aparapi.elementMaxRegisters=64 (every element kernel capped; 50 % occupancy at N = 2)
#   pad+cap64 both
# op BP5 at N = 2 (8M DOFs), then bp BP5 at N = 2 with the better of them is for the next run. Stage as queue26.sh says;
# then (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/n2lat26.sh   About 3 minutes. Checked on PoCL
# (RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=30000): the padded plan reads "2949 doubles local" (2529 unpadded).
# Writes $OUT/n2lat26.tgz and $OUT/n2lat26-summary.txt.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
N=${N:-2}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
w=$(mktemp -d)/n2lat26
mkdir -p "$w"
s="$w/summary.txt"
echo "n2lat26 at ${COMMIT:-unknown}, N = $N: $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" | tee "$s"
opts() {
  case "$1" in
    base) echo "" ;;
    pad) echo "-Dlobatto.aparapi.elementBankPad=true" ;;
    cap64) echo "-Dlobatto.aparapi.elementMaxRegisters=64" ;;
    pad+cap64) echo "-Dlobatto.aparapi.elementBankPad=true -Dlobatto.aparapi.elementMaxRegisters=64" ;;
  esac
}
for round in 1 2; do
  for v in base pad cap64 pad+cap64; do
    log="$w/op-$v-$round.log"
    timeout 60 $RUN -Xmx60g $(opts $v) -jar "$JAR" op --problems BP5 --dofs ${DOFS:-8000000} --n-min $N --n-max $N --reps 8 \
      --reference-copies 1 -b aparapi -o "$w/op-$v-$round" --commit "${COMMIT:-unknown}" --time-limit 45 > "$log" 2>&1
    rc=$?
    echo "round $round $v (exit $rc): $(grep -E '^BP5 ' "$log" | awk '{printf "%s GDOF/s, %s us", $7, $6}'); $(grep -E 'kernel: STIFFNESS_BP35' "$log" | sed 's/.*kernel: //')" | tee -a "$s"
  done
done
tar czf "$OUT/n2lat26.tgz" -C "$(dirname "$w")" n2lat26
cp "$s" "$OUT/n2lat26-summary.txt"
