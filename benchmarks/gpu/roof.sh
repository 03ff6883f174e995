#!/usr/bin/env bash
# Issue 26, items 5 and 3 on one GPU, in one lease (about 2 minutes; every command under its own timeout, 220 s in all):
#   1. bs --tests BS1,BS6,BS7: BS1 (copy sweep and its T0 + B/Wmax fit), then BS6 gather and BS7 scatter at N = 7 on about
#      16M local nodes with the gather/scatter kinds blocks (the old kernels), rows and tiles (the new ones), each on its
#      own Z in the same JVM; reference copies of 1 GiB per vector before, after BS1, after each kind and after the suite
#      (7 in all): every ratio is against the best and flagged above 1.02.
#   2. the same BS6/BS7 with the kinds in the reverse order (tiles, rows, blocks), 5 reference copies: an order effect
#      (clocks, caches) shows as a difference between the two passes.
# Stage first, from the repository root on the build machine:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/roof.sh
# Results: $OUT/roof.tgz (both JSONs and CSVs, the logs, times.log, nvidia-smi) and $OUT/roof-summary.txt (the lines to
# read: reference copies, BS1 fit, BS6/BS7 rows, flags). Local check on PoCL at a small size:
#   RUN=java JAR=benchmarks/target/lobatto-bench.jar GS_NODES=200000 MAX_BYTES=33554432 REF_BYTES=16777216 \
#     OUT=/tmp/roof bash benchmarks/gpu/roof.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
gs_nodes=${GS_NODES:-16000000}
max_bytes=${MAX_BYTES:-2000000000}
ref_bytes=${REF_BYTES:-0}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== roof/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" | tee -a "$out/times.log"
  return $rc
}
# bench TIMEOUT DIR ARGS...: lobatto-bench bs under timeout, its sweep limited to TIMEOUT - 15 s, results in $out/DIR
bench() {
  local t=$1 d=$2; shift 2
  timeout "$t" "${run[@]}" -Xmx60g ${JOPTS:-} -cp "$jar" io.lobatto.bench.BenchCli bs -b aparapi -o "$out/$d" --commit "$commit" \
    --time-limit $((t - 15)) --gs-nodes "$gs_nodes" --gs-degrees 7 --max-bytes "$max_bytes" --reference-bytes "$ref_bytes" --reps 6 "$@"
}
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
timed ab bench 150 ab --tests BS1,BS6,BS7 --gs-kinds blocks,rows,tiles --reference-copies 7 > "$out/ab.log" 2>&1
timed reversed bench 70 reversed --tests BS6,BS7 --gs-kinds tiles,rows,blocks --reference-copies 5 > "$out/reversed.log" 2>&1
echo "== roof: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && cat "$out/nvidia-smi.csv"
  for p in ab reversed; do
    echo "---- $p"
    grep -E '^(reference|BS1 copy +fit|BS6 gather|BS7 scatter|lobatto-bench bs:|cut:|  BS[67] |  BS1 copy fit)|<- above reference|ratio\(s\) above|error|Exception|WARNING|SEVERE' "$out/$p.log"
  done
} > "$dest/roof-summary.txt"
cat "$dest/roof-summary.txt"
tar czf "$dest/roof.tgz" -C "$out" . && echo "results: $dest/roof.tgz and $dest/roof-summary.txt"
