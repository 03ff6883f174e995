#!/usr/bin/env bash
# libCEED CPU operator apply, like for like with the Java backend's op suite (issue 29).
#
#   benchmarks/libceed/run.sh RESULTS_DIR
#
# For each p in PS and BP in BPS:
#   1proc: one process on core 0 (taskset -c 0) with the whole mesh;
#   2proc: two processes at the same time on cores 0 and 1, each with half of the mesh (split along z),
#          started together through a file barrier; their samples overlap fully (see bps.c).
# Writes RESULTS_DIR/libceed.tsv (one row per process, plus a 'sum' row for 2proc) and the raw output
# RESULTS_DIR/libceed.log. Any failed correctness check stops the run.
#
# Environment (defaults): BPS_BIN (LIBCEED_SRC/build/bps), LIBCEED_SRC (/work/libceed-src), CEED (/cpu/self/avx/blocked),
# PS ("3 4 5 6 7 8"), BPS ("5 3 1"), DOFS (1728000 = 120^3, total of the mesh), WARM (1.0 s), SAMPLES (5),
# SAMPLE_TIME (0.2 s), CORES ("0 1"), MODES ("1proc 2proc").
set -euo pipefail

RES=${1:?usage: run.sh RESULTS_DIR}
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)
LIBCEED_SRC=${LIBCEED_SRC:-/work/libceed-src}
BPS_BIN=${BPS_BIN:-$LIBCEED_SRC/build/bps}
CEED=${CEED:-/cpu/self/avx/blocked}
PS=${PS:-"3 4 5 6 7 8"}
BPS=${BPS:-"5 3 1"}
DOFS=${DOFS:-1728000}
WARM=${WARM:-1.0}
SAMPLES=${SAMPLES:-5}
SAMPLE_TIME=${SAMPLE_TIME:-0.2}
CORES=${CORES:-"0 1"}
MODES=${MODES:-"1proc 2proc"}
read -r CORE0 CORE1 <<< "$CORES"

[ -x "$BPS_BIN" ] || { echo "no $BPS_BIN: run benchmarks/libceed/build.sh $LIBCEED_SRC first" >&2; exit 1; }
TSV=$RES/libceed.tsv
LOG=$RES/libceed.log
COMMON=(-ceed "$CEED" -dofs "$DOFS" -warm "$WARM" -samples "$SAMPLES" -sample_time "$SAMPLE_TIME")
printf 'p\tbp\tq\tqmode\tmode\tpart\tdofs\tlocal_elems\tgdofs_median\tgdofs_min\tgdofs_max\ts_per_apply_median\tsettled\tsamples\n' > "$TSV"
{
  echo "# libCEED BP operator apply, $(date -u +%FT%TZ), host $(hostname), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# bin $BPS_BIN backend $CEED dofs $DOFS warm $WARM samples $SAMPLES x >= $SAMPLE_TIME s, cores $CORE0 $CORE1"
  grep -m1 'model name' /proc/cpuinfo || true
} > "$LOG"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }

row() {  # mode part line
  local l=$3
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(field p "$l")" "$(field bp "$l")" "$(field q "$l")" \
    "$(field qmode "$l")" "$1" "$2" "$(field dofs "$l")" "$(field local_elems "$l")" "$(field gdofs_median "$l")" \
    "$(field gdofs_min "$l")" "$(field gdofs_max "$l")" "$(field s_per_apply_median "$l")" "$(field settled "$l")" \
    "$(field samples "$l")" >> "$TSV"
}

check() {  # output file
  cat "$1" >> "$LOG"
  grep -q '^CHECK.* PASS$' "$1" || { echo "correctness check failed, see $1" >&2; exit 3; }
}

for p in $PS; do
  for bp in $BPS; do
    for mode in $MODES; do
      if [ "$mode" = 1proc ]; then
        out=$RES/bp$bp-p$p-1proc.out
        taskset -c "$CORE0" "$BPS_BIN" -bp "$bp" -p "$p" "${COMMON[@]}" > "$out"
        check "$out"
        line=$(grep '^RESULT' "$out")
        row 1proc 0 "$line"
        echo "p=$p BP$bp 1proc: $(field gdofs_median "$line") GDOF/s"
      else
        bar=$(mktemp -d)
        out0=$RES/bp$bp-p$p-2proc-0.out out1=$RES/bp$bp-p$p-2proc-1.out
        taskset -c "$CORE0" "$BPS_BIN" -bp "$bp" -p "$p" -parts 2 -part 0 -barrier "$bar" "${COMMON[@]}" > "$out0" &
        pid0=$!
        taskset -c "$CORE1" "$BPS_BIN" -bp "$bp" -p "$p" -parts 2 -part 1 -barrier "$bar" "${COMMON[@]}" > "$out1" &
        pid1=$!
        wait "$pid0"
        wait "$pid1"
        rm -rf "$bar"
        check "$out0"
        check "$out1"
        l0=$(grep '^RESULT' "$out0") l1=$(grep '^RESULT' "$out1")
        row 2proc 0 "$l0"
        row 2proc 1 "$l1"
        sum=$(awk -v a="$(field gdofs_median "$l0")" -v b="$(field gdofs_median "$l1")" 'BEGIN{printf "%.4f", a+b}')
        dsum=$(( $(field dofs "$l0") + $(field dofs "$l1") ))
        printf '%s\t%s\t%s\t%s\t2proc\tsum\t%s\t\t%s\t\t\t\t\t\n' "$p" "$bp" "$(field q "$l0")" "$(field qmode "$l0")" "$dsum" "$sum" >> "$TSV"
        echo "p=$p BP$bp 2proc: $(field gdofs_median "$l0") + $(field gdofs_median "$l1") = $sum GDOF/s"
      fi
    done
  done
done
echo "wrote $TSV and $LOG"
