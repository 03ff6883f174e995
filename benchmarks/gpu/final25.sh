#!/usr/bin/env bash
# GPU runbook of issue 25 at a final commit, one H100, about 3 minutes. Stage the commit's fat jar
# (./mvnw -q -o -pl benchmarks -am package -DskipTests; ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar), then
# (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/final25.sh
# The main job's setup by phase (32^3 twice, with huge pages, Jacobi; 67^3 with -Xmx16g with and without huge pages), the
# README's default on no caches at all (CUDA_CACHE_DISABLE=1, an empty kernel cache) and then warm, and twice with the
# driver's cache empty instead of off (CUDA_CACHE_PATH a fresh folder: a first run on a fresh machine), and the solve suite's
# JSON rows (setup_s and its phases) at 32^3 (p-MG, Jacobi) and 67^3 (p-MG). Logs and JSON to $OUT.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
COMMIT=${COMMIT:-unknown}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
THP=-XX:+UseTransparentHugePages
echo "final25 at $COMMIT: $(date -u +%FT%TZ)"
p() { # label, JVM options (one word or ""), poisson arguments...
  local label=$1 jopt=$2
  shift 2
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|host heap|kernel builds|process:)|WARNING|SEVERE|Exception|warnings generated" "$OUT/$label.log" | head -8
  sed -n '/^setup by phase/,/^host heap/p' "$OUT/$label.log" | grep -E "^  (mesh|Z|geometry|eigen|p-MG|other|right)" | tr -s ' ' | tr '\n' ';'
  echo
}
p warm -Xmx60g -N 7 -e 32,32,32 > /dev/null
p p32-1 -Xmx60g -N 7 -e 32,32,32
p p32-2 -Xmx60g -N 7 -e 32,32,32
p p32-thp "-Xmx60g $THP" -N 7 -e 32,32,32
p j32 -Xmx60g -N 7 -e 32,32,32 --pc jacobi
p p67 -Xmx16g -N 7 -e 67,67,67
p p67-thp "-Xmx16g $THP" -N 7 -e 67,67,67
cache=$(mktemp -d)
export CUDA_CACHE_DISABLE=1
p readme-cold "-Dlobatto.cache.dir=$cache"
unset CUDA_CACHE_DISABLE
p readme-warm "-Dlobatto.cache.dir=$cache"
# a first run on a fresh machine: the driver's cache empty (not off) and an empty kernel cache, twice
for i in $(seq 1 "${FRESH_ROUNDS:-2}"); do
  export CUDA_CACHE_PATH=$(mktemp -d)
  p readme-fresh-$i "-Dlobatto.cache.dir=$(mktemp -d)"
  unset CUDA_CACHE_PATH
done
s() { local t=$1 o=$2 x=$3; shift 3; timeout "$t" $RUN $x -jar "$JAR" solve -b aparapi -o "$OUT/$o" --commit "$COMMIT" \
        --time-limit $((t - 20)) "$@" 2>&1 | grep -vE 'CG iteration' | tail -8; }
s 120 solve-32 -Xmx60g -e 32 --n-min 7 --n-max 7 --meshes deformed --pcs pmg,jacobi --solve-reps 2
s 150 solve-67 -Xmx16g -e 67 --n-min 7 --n-max 7 --meshes deformed --pcs pmg
