#!/usr/bin/env bash
# Issue 26, the reductions' latency (target: BS3-BS5 T0 <= 20 us on the H100), on one GPU in one lease (about 2 minutes;
# every command under its own timeout, 168 s at most in all):
#   bs --tests BS3,BS4,BS5 (norm, dot, fused CG update; raw JOCL's dot beside BS3 and BS4) up to 512 MiB moved, six runs,
#   the dedicated and the general reduction kernels alternated three times (ded1 gen1 ded2 gen2 ded3 gen3):
#     ded:   -Dlobatto.aparapi.reductionKernels=dedicated (the default): dot and norm in DotKernel (x, y, partials, n,
#            the local tree and Aparapi's passid: 6 arguments), the CG update in CgUpdateKernel (9 arguments);
#     gen:   -Dlobatto.aparapi.reductionKernels=general, all three in ReductionKernel (13 arguments, 4 of them bound to an
#            unused 8-byte buffer for dot and norm), the path the 74c27ae and 3ce4b08 runs measured.
#   Both give the same bits (DedicatedReductionsTest); on NVIDIA the reductions' group is 256 in both, raw JOCL's dot's.
#   The earlier arms still run when RUNS names them: base* (the default path, now the dedicated kernels), array*
#   (-Dlobatto.aparapi.pinnedPartials=false, the partials read into a Java array as raw JOCL reads them, not into pinned
#   host memory) and g128* (-Dlobatto.aparapi.smallReduceGroup=128, reductions over at most 32768 entries in groups of 128).
#   Per-call tests take 25 samples per size; each test prints its T0 + B/Wmax fit (beside raw JOCL's) and the median over
#   the sizes of at most 64 KiB per vector (a T0 that needs no fit) beside raw JOCL's dot and beside the backend's own
#   kernel (the OpenCL C it built; the line names its class and argument count) launched through raw JOCL: backend - own
#   kernel = the backend's host path (Java, checks, the read into pinned memory); own kernel - raw dot = the kernel and its
#   arguments (BS5 has no raw dot, only its own kernel). ded against gen in the same lease is the arguments' share.
# Checked on PoCL (4 MiB, 6 runs, about 40 s on 2 cores): every run exit 0, every line present. Expected on the
#   H100: 15-25 s per run; raw JOCL's dot about 15-20 us at the small sizes (its floor moves 4-5 us from run to run),
#   gen 1-4 us above it (74c27ae, 3ce4b08); ded at raw's dot (25be850, 995d83e, 52ffb9f: benchmarks.md). BS3 is BS4's
#   code path (norm2 is the dot kernel with y = x), so their difference is the measurement's.
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/bst0.sh
# Results: $OUT/bst0.tgz (the six JSONs, CSVs and logs, times.log, nvidia-smi) and $OUT/bst0-summary.txt (the lines to
# read). Local check on PoCL at a small size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar MAX_BYTES=4194304 REF_BYTES=4194304 OUT=/tmp/bst0 bash benchmarks/gpu/bst0.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
max_bytes=${MAX_BYTES:-536870912}
ref_bytes=${REF_BYTES:-268435456}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== bst0/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" | tee -a "$out/times.log"
  return $rc
}
# bench TIMEOUT DIR JAVA-OPTIONS: lobatto-bench bs BS3-BS5 under timeout, its sweep limited to TIMEOUT - 8 s
bench() {
  local t=$1 d=$2; shift 2
  timeout "$t" "${run[@]}" -Xmx16g "$@" -cp "$jar" io.lobatto.bench.BenchCli bs -b aparapi -o "$out/$d" --commit "$commit" \
    --time-limit $((t - 8)) --tests BS3,BS4,BS5 --max-bytes "$max_bytes" --reference-bytes "$ref_bytes" \
    --reference-copies 2 --reps 6
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
runs="${RUNS:-ded1 gen1 ded2 gen2 ded3 gen3}"   # RUNS: another list of ded*, gen*, base*, array*, g128* runs
for r in $runs; do
  case $r in
    ded*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.reductionKernels=dedicated > "$out/$r.log" 2>&1 ;;
    gen*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.reductionKernels=general > "$out/$r.log" 2>&1 ;;
    base*) timed "$r" bench 28 "$r" > "$out/$r.log" 2>&1 ;;
    array*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.pinnedPartials=false > "$out/$r.log" 2>&1 ;;
    g128*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.smallReduceGroup=128 > "$out/$r.log" 2>&1 ;;
    *) echo "== bst0/$r: not a run (RUNS takes ded*, gen*, base*, array*, g128*)" | tee -a "$out/times.log" ;;
  esac
done
echo "== bst0: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "commit $commit"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for r in $runs; do
    [ -e "$out/$r.log" ] || continue
    echo "---- $r"
    grep -E 'fit over|fit rejected|median over the|^reference|error|Exception|WARNING|SEVERE|cut' "$out/$r.log"
  done
  echo "---- small-size medians by run, us (the backend; raw JOCL's dot; the backend's kernel through raw JOCL)"
  for r in $runs; do
    [ -e "$out/$r.log" ] || continue
    grep -E '^BS[345] .*median over the' "$out/$r.log" | sed -E "s/^(BS[345]) +([a-z-]+) +median over the [0-9]+ sizes of at most [0-9]+ bytes per vector: /$r \1 \2: /; s/ \([0-9]+ samples per size\)$//"
  done
  echo "---- per size, median us (backend / raw JOCL), sizes up to 1 MiB per vector"
  for r in $runs; do
    [ -e "$out/$r.log" ] || continue
    grep -E '^BS[345] ' "$out/$r.log" | awk -v r=$r '$3 ~ /^[0-9]+$/ && $3 <= 131072 && $5 == 1 {printf "%s %s %s entries: %s / %s\n", r, $1, $3, $6, $8}'
  done
} > "$dest/bst0-summary.txt"
cat "$dest/bst0-summary.txt"
tar czf "$dest/bst0.tgz" -C "$out" . && echo "results: $dest/bst0.tgz and $dest/bst0-summary.txt"
