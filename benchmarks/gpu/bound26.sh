#!/usr/bin/env bash
# GPU runbook of issue 26, one H100, about 1.5 minutes: where BP5's element kernels spend their time. source-probe
# (mode 1: u from x_G through identity ids, y_L written, no gather) times each kernel alone in source variants that give
# a wrong y on purpose, to bound it:
#   base       the backend's source (its tables; built without the register cap, as source-probe builds everything)
#   nofactors  the geometric factors from their index instead of loaded (no factor traffic, the same arithmetic)
#   nou        u from its index and the ids the identity (no u or id traffic)
#   nofactors+nou  neither: what compute, local memory and barriers cost alone
#   nobar      no local barriers (what waiting at them costs; the sums read stale local memory)
# at stored N = 6..9 (source-probe takes the points and 3D kernels, not the pipelined one at N = 10) and on the fly at
# N = 7.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true; rm -rf .gpu; ../shared/gpu/stage.sh
#   benchmarks/target/lobatto-bench.jar; zip -q -d .gpu/lib/lobatto-bench.jar 'org/apache/pdfbox/*' 'org/apache/fontbox/*'
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/bound26.sh
# Results: $OUT/bound26-<commit>.log (also printed) and $OUT/bound26-<commit>.tgz (sources and PTX).
# Local check on PoCL: RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 OUT=/tmp/bound26 COMMIT=local \
#   DEVICE=pthread bash benchmarks/gpu/bound26.sh
set -u
COMMIT=${COMMIT:?pass COMMIT=sha}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
mkdir -p "$dest"
log="$dest/bound26-$COMMIT.log"
timeout 150 "${run[@]}" -Xmx16g -cp "$jar" io.lobatto.bench.BenchCli source-probe ${DEVICE:+--device "$DEVICE"} \
  --stored 6,7,8,9 --onthefly 7 --variants base,nofactors,nou,nofactors+nou,nobar --mode 1 --rounds 3 --reps 20 \
  --dofs "${DOFS:-8000000}" -o "$out" 2>&1 | tee "$log"
echo "== bound26: exit ${PIPESTATUS[0]}" | tee -a "$log"
tar czf "$dest/bound26-$COMMIT.tgz" -C "$out" . && echo "results: $log and $dest/bound26-$COMMIT.tgz"
