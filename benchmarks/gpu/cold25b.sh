#!/usr/bin/env bash
# GPU runbook (issue 25, item 4: the README's main job on a cold start). About 2.5 minutes on one H100.
# A/B of the aparapi backend: OLD = the module jar of the commit before (.gpu/ab/lobatto-backend-aparapi.jar first on the
# class path), NEW = the staged fat jar. Stage:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
#   mkdir -p .gpu/ab && cp <old worktree>/backends/aparapi/target/lobatto-backend-aparapi-*-SNAPSHOT.jar .gpu/ab/lobatto-backend-aparapi.jar
# then on the GPU machine (repository root, .gpu carried):  COMMIT=<sha> OLD=<sha> bash benchmarks/gpu/cold25b.sh
# 1. The README's default job on a cold start (an empty CUDA_CACHE_PATH and an empty kernel cache), the VARIANTS
#    (default "old new": OLD and NEW; "new8": NEW with -Dlobatto.aparapi.vectorBundle=8) alternated, ROUNDS (3) times
#    each: process wall, the CLI's setup/solve, kernel builds, the process lines. COLD_ONLY=1 stops after this part.
# 2. The main job at 32^3 with a warm cache, NEW with its setup kernels optimised (-Dlobatto.opencl.quickSetup=false)
#    and quick (true), twice each after one run of each that fills the cache: what the quick builds cost at run time.
# 3. build-cost on the sources NEW's first cold run compiled (one program each, 1 thread, the driver's cache off).
# Writes $OUT/cold25b-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
AB=${AB:-.gpu/ab/lobatto-backend-aparapi.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
OLD=${OLD:?pass OLD=sha of the jar in .gpu/ab}
logs=$(mktemp -d)
mkdir -p "$OUT"
p() { # label, class path, JVM options, poisson arguments...
  local label=$1 cp=$2 jopt=$3
  shift 3
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$cp" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$logs/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|kernel builds|process:)|WARNING|SEVERE|Exception|warnings generated" "$logs/$label.log" | head -8
  sed -n '/^setup by phase/,/^host heap/p' "$logs/$label.log" | grep -E "^  (mesh|Z|geometry|diagonals|eigen|p-MG|other|right)" \
    | tr -s ' ' | tr '\n' ';'
  echo
  grep -E "^(geometry|errors|BP3.5 diagonal)" "$logs/$label.log" | head -4
}
echo "== cold README job: OLD $OLD (module jar first), NEW $COMMIT"
for i in $(seq 1 "${ROUNDS:-3}"); do
  for v in ${VARIANTS:-old new}; do
    cache=$(mktemp -d); cuda=$(mktemp -d)
    cp=$JAR; [ $v = old ] && cp=$AB:$JAR
    opt="-Dlobatto.cache.dir=$cache"
    [ $v = new8 ] && opt="$opt -Dlobatto.aparapi.vectorBundle=8"
    [ $i = 1 ] && [ $v = new ] && opt="$opt -Dlobatto.opencl.sourceDir=$logs/src"
    CUDA_CACHE_PATH=$cuda p "readme-cold-$v-$i" "$cp" "$opt"
  done
done
if [ "${COLD_ONLY:-0}" = 1 ]; then
  tar czf "$OUT/cold25b-$COMMIT.tgz" -C "$logs" .
  exit 0
fi
echo "== 32^3 warm, NEW, setup kernels optimised (false) and quick (true)"
p fill32-false "$JAR" "-Xmx60g -Dlobatto.opencl.quickSetup=false" -N 7 -e 32,32,32 > /dev/null
p fill32-true "$JAR" "-Xmx60g -Dlobatto.opencl.quickSetup=true" -N 7 -e 32,32,32 > /dev/null
for i in 1 2; do
  for q in false true; do
    p "p32-$q-$i" "$JAR" "-Xmx60g -Dlobatto.opencl.quickSetup=$q" -N 7 -e 32,32,32
  done
done
CUDA_CACHE_DISABLE=1 timeout 100 $RUN -jar "$JAR" build-cost "$logs/src" --threads 1 --no-binaries > "$logs/build-cost.txt" 2>&1
grep -vE 'warnings? generated' "$logs/build-cost.txt" | head -30
tar czf "$OUT/cold25b-$COMMIT.tgz" -C "$logs" .
