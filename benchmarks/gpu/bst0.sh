#!/usr/bin/env bash
# Issue 26, the reductions' latency (target: BS3-BS5 T0 <= 20 us on the H100), on one GPU in one lease (about 2 minutes;
# every command under its own timeout, 168 s at most in all):
#   bs --tests BS3,BS4,BS5 (norm, dot, fused CG update; raw JOCL's dot beside BS3 and BS4) up to 512 MiB moved, six runs,
#   three variants alternated twice (base array g128 base array g128):
#     base:  the default path (on NVIDIA the reductions' group is already 256, raw JOCL's dot's);
#     array: -Dlobatto.aparapi.pinnedPartials=false, the partials read into a Java array as raw JOCL reads them (not
#            into pinned host memory);
#     g128:  -Dlobatto.aparapi.smallReduceGroup=128, reductions over at most 32768 entries in groups of 128.
#   Per-call tests take 25 samples per size (was 6); each test prints its T0 + B/Wmax fit (beside raw JOCL's) and the
#   median over the sizes of at most 64 KiB per vector (a T0 that needs no fit) beside raw JOCL's dot and beside the
#   backend's own kernel (the OpenCL C it built, 13 arguments) launched through raw JOCL: backend - own kernel = the
#   backend's host path (Java, checks, the read into pinned memory); own kernel - raw dot = the kernel and its arguments
#   (BS5 has no raw dot, only its own kernel).
# Checked on PoCL (1 MiB, 6 runs, about 30 s): every run exit 0, every line present. Expected on the H100: 15-25 s per
#   run; raw JOCL's dot about 15-17 us and BS4 about 17 us at the small sizes (1e8556a), BS3 the same as BS4 (the same
#   code path: norm2 is the dot kernel with x = p).
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/bst0.sh
# Results: $OUT/bst0.tgz (the four JSONs, CSVs and logs, times.log, nvidia-smi) and $OUT/bst0-summary.txt (the lines to
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
runs="${RUNS:-base1 array1 g1281 base2 array2 g1282}"   # RUNS: another list of base*, array*, g128* runs
for r in $runs; do
  case $r in
    base*) timed "$r" bench 28 "$r" > "$out/$r.log" 2>&1 ;;
    array*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.pinnedPartials=false > "$out/$r.log" 2>&1 ;;
    g128*) timed "$r" bench 28 "$r" -Dlobatto.aparapi.smallReduceGroup=128 > "$out/$r.log" 2>&1 ;;
  esac
done
echo "== bst0: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  echo "commit $commit"
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for r in $runs; do
    echo "---- $r"
    grep -E 'fit over|fit rejected|median over the|^reference|error|Exception|WARNING|SEVERE|cut' "$out/$r.log"
  done
  echo "---- per size, median us (backend / raw JOCL), sizes up to 1 MiB per vector"
  for r in $runs; do
    grep -E '^BS[345] ' "$out/$r.log" | awk -v r=$r '$3 ~ /^[0-9]+$/ && $3 <= 131072 && $5 == 1 {printf "%s %s %s entries: %s / %s\n", r, $1, $3, $6, $8}'
  done
} > "$dest/bst0-summary.txt"
cat "$dest/bst0-summary.txt"
tar czf "$dest/bst0.tgz" -C "$out" . && echo "results: $dest/bst0.tgz and $dest/bst0-summary.txt"
