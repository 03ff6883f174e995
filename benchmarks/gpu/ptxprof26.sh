#!/usr/bin/env bash
# GPU runbook (issue 26): Nsight Compute on the BP3.5 element kernels. ncu sees no OpenCL launch, so kernel-info writes
# the kernels' OpenCL C and the PTX NVIDIA's OpenCL compiler made of it, and benchmarks/gpu/ptxprof.py launches that PTX
# through CUDA (CuPy) with the backend's group shape and shared memory, on a K^3 box with its real scatter ids, first
# timed with CUDA events, then once under ncu --set full. Stage as queue26.sh says; then (GPU machine, .gpu carried)
#   COMMIT=<sha> NS=2,3,5,7 bash benchmarks/gpu/ptxprof26.sh
# FG: the LB_FROM_GLOBAL of the kernels profiled (5: the op's one-kernel operator with NVIDIA's red.global.add.f64;
# 11: CG's queued iteration). CAP, CAP2: the register caps of the backend's builds at N = 7 and N = 2 (.maxnreg; 0: none).
# Writes $OUT/ptxprof26.tgz (sources, PTX, timings, ncu reports, details, raw metrics, SASS source pages) and prints a
# summary. About 1.5 minutes for four degrees (72 s on an H200 at 1fbe6ab: site/.../nvidia-h200/ptxprof26-1fbe6ab*).
# The timings are ptxas's code (the CUDA toolkit's, -O3), not the driver's JIT that builds the backend's program: at
# N = 7 uncapped ptxas takes 48 registers and runs 267 us, the backend's build about 290 us. Read the stall reasons and
# the SASS pages, not the caps' timings (regcap26.sh).
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
NS=${NS:-2,3,5,7}
FG=${FG:-5}
OUT=${OUT:-$(mktemp -d)}
w=$(mktemp -d)/ptxprof26
mkdir -p "$w"
here=$(dirname "$0")
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ptxprof26 at ${COMMIT:-unknown}: N = $NS, LB_FROM_GLOBAL $FG, ncu ${ncu:-none}; $(date -u +%FT%TZ)" | tee "$w/summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$w/summary.txt"
timeout 240 $RUN -Xmx8g -jar "$JAR" kernel-info -N "$NS" --label BP3.5 --source-out "$w/src.cl" --binary-out "$w/ptx" \
  -o "$w/ki" > "$w/kernel-info.log" 2>&1
echo "kernel-info exit $?" | tee -a "$w/summary.txt"
grep -E '^== |registers|spill' "$w/kernel-info.log" | head -60 >> "$w/summary.txt"
python3 "$here/ptxprof.py" "$w/src.cl" "$w/ptx" BP3.5 --list > "$w/labels.txt" 2>&1
cat "$w/labels.txt" >> "$w/summary.txt"
i=0
while :; do
  cap=0
  python3 "$here/ptxprof.py" "$w/src.cl" "$w/ptx" BP3.5 --from-global "$FG" --index $i --reps 30 > "$w/time-$i.txt" 2>&1
  rc=$?
  [ $rc -eq 3 ] && break
  cat "$w/time-$i.txt" | tee -a "$w/summary.txt"
  # the table's register caps: 32 at N = 7 (CAP), 64 at N = 2 (CAP2, since 7ad128c); 0 takes one off
  want=0
  grep -q 'N = 7,' "$w/time-$i.txt" && want=${CAP:-32}
  grep -q 'N = 2,' "$w/time-$i.txt" && want=${CAP2:-64}
  if [ "$want" != 0 ]; then
    python3 "$here/ptxprof.py" "$w/src.cl" "$w/ptx" BP3.5 --from-global "$FG" --index $i --reps 30 --maxnreg "$want" \
      2>&1 | tee -a "$w/summary.txt"
    cap=$want
  fi
  if [ $rc -eq 0 ] && [ -n "$ncu" ]; then
    timeout 120 "$ncu" --clock-control none --set full -k regex:run --launch-skip 1 -c 1 -f -o "$w/prof-$i" \
      python3 "$here/ptxprof.py" "$w/src.cl" "$w/ptx" BP3.5 --from-global "$FG" --index $i --reps 3 --maxnreg $cap \
      > "$w/ncu-$i.log" 2>&1
    echo "ncu $i exit $?" | tee -a "$w/summary.txt"
    "$ncu" -i "$w/prof-$i.ncu-rep" --page details > "$w/details-$i.txt" 2>&1
    "$ncu" -i "$w/prof-$i.ncu-rep" --page raw --csv > "$w/raw-$i.csv" 2>&1
    "$ncu" -i "$w/prof-$i.ncu-rep" --page source --csv --print-source sass > "$w/sass-$i.csv" 2>&1
    grep -E 'Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\) Throughput|Warp Cycles Per Issued|Issue Slots Busy|Block Limit|Shared Memory Configuration Size|Dynamic Shared|Bank' \
      "$w/details-$i.txt" | head -40 | tee -a "$w/summary.txt"
    python3 - "$w/raw-$i.csv" <<'PY' | tee -a "$w/summary.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = next((r for r in rows if "ID" in r[:2] or (r and r[0] == "ID")), None)
if hdr is None:
    print("raw: no header"); sys.exit()
data = rows[rows.index(hdr) + 2:] if len(rows) > rows.index(hdr) + 2 else []
if not data:
    print("raw: no data"); sys.exit()
vals = dict(zip(hdr, data[0]))
def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return -1.0
st = sorted(((k, v) for k, v in vals.items() if "issue_stalled" in k and (k.endswith(".ratio") or "pcsamp" in k)),
            key=lambda kv: -num(kv[1]))
print("stall reasons (top 16):")
for k, v in st[:16]:
    print("  %-90s %s" % (k, v))
for k in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed.sum", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", "lts__t_sectors_op_red.sum", "dram__bytes.sum.per_second"):
    if k in vals:
        print("  %-90s %s" % (k, vals[k]))
PY
    # where the stalls and the excess shared wavefronts sit in the SASS (the stalled instruction is the one that waits)
    python3 - "$w/sass-$i.csv" <<'PY' | tee -a "$w/summary.txt"
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))
hdr = next((r for r in rows if "Source" in r and "Address" in r), None)
if hdr is None:
    print("sass: no source page"); sys.exit()
data = rows[rows.index(hdr) + 1:]
def col(name):
    return hdr.index(name) if name in hdr else None
st, ex, ie = col("Warp Stall Sampling (All Samples)"), col("L1 Wavefronts Shared Excessive"), col("Instructions Executed")
def n(r, i):
    try:
        return int(r[i])
    except (TypeError, ValueError, IndexError):
        return 0
def op(r):
    w = r[1].split()
    w = w[1:] if w and w[0].startswith("@") else w
    return w[0].split(".")[0] if w else "?"
stalls, insts = Counter(), Counter()
for r in data:
    stalls[op(r)] += n(r, st); insts[op(r)] += n(r, ie)
ts, ti = sum(stalls.values()) or 1, sum(insts.values()) or 1
print("stall samples by the waiting instruction's opcode (share of samples / of instructions executed):")
print("  " + ", ".join("%s %.0f%% / %.0f%%" % (k, 100 * v / ts, 100 * insts[k] / ti) for k, v in stalls.most_common(8)))
if ex is not None:
    top = sorted(data, key=lambda r: -n(r, ex))[:4]
    print("excess shared wavefronts %d; the largest at: %s" % (sum(n(r, ex) for r in data),
          "; ".join("%s %d" % (" ".join(r[1].split())[:40], n(r, ex)) for r in top if n(r, ex) > 0) or "none"))
PY
  fi
  i=$((i + 1))
done
tar czf "$OUT/ptxprof26.tgz" -C "$(dirname "$w")" ptxprof26
cp "$w/summary.txt" "$OUT/ptxprof26-summary.txt"
