#!/usr/bin/env bash
# GPU runbook (issue 26): the pipelined BP3.5 kernel's geometric factors blocked by the group's elements
# (-Dlobatto.aparapi.factorBlocks=true, FactorLayout), with and without the element regions' bank padding
# (-Dlobatto.aparapi.elementBankPad=true) and a register cap of 64. Nsight Compute on the H200 (ptxprof26.sh at 1fbe6ab)
# put the N = 2 kernel at 78 % of the L1 and L2 throughput with 28 % excess L2 sectors, two thirds of them the factor
# loads (a layer of 9 doubles per element, 72 bytes, spans 3-4 sectors), and 48 % excess shared-store wavefronts.
#   N = 2 (the table's pipelined kernel), two rounds: base, blocks, blocks+pad; once: pad, blocks+pad+cap64
#   N = 4 (table: registers, atomic: shared), two rounds: table and pipelined on one mesh, pipelined+blocks,
#         pipelined+blocks+pad
#   N = 10 (the table's pipelined kernel, 2 elements per group), once: base, blocks
#   bp BP5 at N = 2 (CG's calls read the same factors), once: base, blocks
#   then SelfCheck (the correctness of every kernel, the table's choices)
# (PART=blocks, the default, ran at 4d198b2, where the three were off; since 7ad128c its "base" is the blocked and padded
# kernel with the cap.)
# PART=staged (after the blocks, the padding and the cap of 64 at N = 2 became the table's, 7ad128c):
#   N = 2, two rounds: the table, no cap (-Dlobatto.aparapi.elementMaxRegisters=none), a cap of 56, the group's points
#         read and written together (-Dlobatto.aparapi.stagedColumns=true), staged without a cap; bp the same but 56
#   N = 4, two rounds: the table and pipelined on one mesh, pipelined and staged
#   then SelfCheck
#   (the staged columns were taken out again at b8e8bc2: slower than the table at N = 2)
# PART=defaults: the same at N = 2 without the staged columns, the blocks, the padding and the cap taken off in turn and
#   all three together (the code before them), op and bp, then SelfCheck (about 5 minutes): to confirm the table on
#   another GPU
# PART=bk5: bk BK5 (the element kernel alone, 20M DOFs) at N = 2 and 3, the table against the code before the three
#   N = 2 choices, two rounds (about 2 minutes)
# PART=bp3: BP3.0's pipelined kernel with the factors blocked (N = 3, 5, 7) against element-major, N = 4 a control, two
#   rounds, no SelfCheck (about 2 minutes)
# op BP5 at 8M DOFs, reps 8. Stage as queue26.sh says; then (GPU machine, .gpu carried)
#   COMMIT=<sha> [PART=blocks|staged|defaults|bk5|bp3] bash benchmarks/gpu/blocks26.sh        About 2-6 minutes.
# Checked on PoCL (RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=30000 BK_DOFS=20000 SELFCHECK=0).
# Writes $OUT/blocks26-$PART.tgz and $OUT/blocks26-$PART-summary.txt.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
DOFS=${DOFS:-8000000}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
w=$(mktemp -d)/blocks26
mkdir -p "$w"
s="$w/summary.txt"
start=$SECONDS
echo "blocks26 at ${COMMIT:-unknown}: $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" | tee "$s"
B="-Dlobatto.aparapi.factorBlocks=true"
P="-Dlobatto.aparapi.elementBankPad=true"
C="-Dlobatto.aparapi.elementMaxRegisters=64"
# the code before the three N = 2 choices of 7ad128c (blocks, padding, cap), as options of the later commits
BEFORE="-Dlobatto.aparapi.factorBlocks=false -Dlobatto.aparapi.elementBankPad=false -Dlobatto.aparapi.elementMaxRegisters=none"
# one op run of problem BPk: BPk, label, N, element variants, JVM options...
opk() {
  local problem=$1 label=$2 n=$3 variants=$4
  shift 4
  local log="$w/op-$label.log"
  timeout 75 $RUN -Xmx60g "$@" -jar "$JAR" op --problems "$problem" --dofs "$DOFS" --n-min "$n" --n-max "$n" --reps 8 \
    --reference-copies 1 -b aparapi --element-variants "$variants" -o "$w/op-$label" --commit "${COMMIT:-unknown}" \
    --time-limit 60 > "$log" 2>&1
  local rc=$?
  # each variant's row: its name, us/apply and GDOF/s, then its kernel line
  awk -v p="$problem" -v l="$label" -v rc="$rc" '$1 == p { row = sprintf("%-22s exit %s  %-10s %8s us %8s GDOF/s", l, rc, $2, $7, $8) }
       /kernel: STIFFNESS_BP3/ && row != "" { sub(/.*kernel: /, ""); print row "  " $0; row = "" }' "$log" | tee -a "$s"
  grep -q "^$problem " "$log" || { echo "$label: no row (exit $rc)" | tee -a "$s"; tail -3 "$log" | tee -a "$s"; }
}
# one op run of BP5: label, N, element variants, JVM options...
op() {
  opk BP5 "$@"
}
bp() {
  local label=$1
  shift
  local log="$w/bp-$label.log"
  timeout 75 $RUN -Xmx60g "$@" -jar "$JAR" bp --problems BP5 --dofs "$DOFS" --n-min 2 --n-max 2 --iterations 50 --reps 9 \
    -b aparapi -o "$w/bp-$label" --commit "${COMMIT:-unknown}" > "$log" 2>&1
  echo "$label (exit $?): $(grep -E '^BP5 ' "$log" | head -1)" | tee -a "$s"
}
if [ "${PART:-blocks}" = staged ] || [ "${PART:-blocks}" = defaults ]; then
  # PART=staged ran at 7e2800f with the staged columns (-Dlobatto.aparapi.stagedColumns=true, taken out at b8e8bc2);
  # PART=defaults is the same A/B without them, each of the table's three N = 2 choices taken off in turn: the run that
  # confirms them on another GPU (the H100)
  NC="-Dlobatto.aparapi.elementMaxRegisters=none"
  C56="-Dlobatto.aparapi.elementMaxRegisters=56"
  NB="-Dlobatto.aparapi.factorBlocks=false"
  NP="-Dlobatto.aparapi.elementBankPad=false"
  S="-Dlobatto.aparapi.stagedColumns=true"
  for round in 1 2; do
    echo "== round $round ($((SECONDS - start)) s)" | tee -a "$s"
    op "n2-table-$round" 2 table
    op "n2-nocap-$round" 2 table $NC
    op "n2-cap56-$round" 2 table $C56
    if [ "$PART" = staged ]; then
      op "n2-staged-$round" 2 table $S
      op "n2-staged+nocap-$round" 2 table $S $NC
    else
      op "n2-noblocks-$round" 2 table $NB
      op "n2-nopad-$round" 2 table $NP
      op "n2-before-$round" 2 table $BEFORE
    fi
    bp "bp2-table-$round"
    bp "bp2-nocap-$round" $NC
    if [ "$PART" = staged ]; then
      bp "bp2-staged-$round" $S
      bp "bp2-staged+nocap-$round" $S $NC
      op "n4-table-$round" 4 table,pipelined
      op "n4-staged-$round" 4 pipelined $S
    else
      bp "bp2-before-$round" $BEFORE
    fi
  done
fi
if [ "${PART:-blocks}" = bk5 ]; then
  # the element kernel alone (bk BK5, 20M DOFs, as gpu-run.sh's kernels-bk5) at N = 2 and 3: the table against the code
  # before the blocks, the padding and the cap (N = 3, the register kernel, a control), two rounds, no SelfCheck
  for round in 1 2; do
    for v in table before; do
      o=""
      [ "$v" = before ] && o=$BEFORE
      log="$w/bk5-$v-$round.log"
      # shellcheck disable=SC2086
      timeout 60 $RUN -Xmx60g $o -jar "$JAR" bk --kernels BK5 --dofs "${BK_DOFS:-20000000}" --n-min 2 --n-max 3 --reps 4 -b aparapi \
        --reference-copies 1 -o "$w/bk5-$v-$round" --commit "${COMMIT:-unknown}" > "$log" 2>&1
      echo "bk5 $v round $round (exit $?):" | tee -a "$s"
      grep -E '^BK5 ' "$log" | tee -a "$s"
    done
  done
  SELFCHECK=0
fi
if [ "${PART:-blocks}" = bp3 ]; then
  # BP3.0's pipelined kernel with its factors blocked where the Gauss points per direction are odd (N = 3, 5, 7; N = 4
  # and 6 are even: unchanged, a control), element-major (-Dlobatto.aparapi.factorBlocks=false) against the default
  for round in 1 2; do
    echo "== round $round ($((SECONDS - start)) s)" | tee -a "$s"
    for n in 3 4 5 7; do
      opk BP3 "bp3-n$n-off-$round" "$n" table -Dlobatto.aparapi.factorBlocks=false
      opk BP3 "bp3-n$n-blocks-$round" "$n" table
    done
  done
  SELFCHECK=0
fi
if [ "${PART:-blocks}" = blocks ]; then
for round in 1 2; do
  echo "== round $round ($((SECONDS - start)) s)" | tee -a "$s"
  op "n2-base-$round" 2 table
  op "n2-blocks-$round" 2 table $B
  op "n2-blocks+pad-$round" 2 table $B $P
  op "n4-base-$round" 4 table,pipelined
  op "n4-blocks-$round" 4 pipelined $B
  op "n4-blocks+pad-$round" 4 pipelined $B $P
done
echo "== once ($((SECONDS - start)) s)" | tee -a "$s"
op n2-pad 2 table $P
op n2-blocks+pad+cap64 2 table $B $P $C
op n10-base 10 table
op n10-blocks 10 table $B
bp bp2-base
bp bp2-blocks $B
fi
if [ "${SELFCHECK:-1}" = 1 ]; then
  echo "== SelfCheck ($((SECONDS - start)) s)" | tee -a "$s"
  timeout 120 $RUN -Xmx16g -cp "$JAR" io.lobatto.backend.aparapi.SelfCheck > "$w/selfcheck.log" 2>&1
  echo "SelfCheck exit $?: $(grep -c '^PASS' "$w/selfcheck.log") PASS, $(grep -c '^FAIL' "$w/selfcheck.log") FAIL; $(tail -1 "$w/selfcheck.log")" | tee -a "$s"
fi
echo "blocks26: $((SECONDS - start)) s" | tee -a "$s"
tar czf "$OUT/blocks26-${PART:-blocks}.tgz" -C "$(dirname "$w")" blocks26
cp "$s" "$OUT/blocks26-${PART:-blocks}-summary.txt"
