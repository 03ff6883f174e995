#!/usr/bin/env bash
# GPU runbook of issue 25 (setup on the device): the main job's setup, A/B in one lease, on one H100.
# Stage the base fat jar as usual (../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar at the base commit), then
# put the new commit's thin module jars in .gpu/ab/ (core, gather-scatter, operators, solvers, examples, aparapi):
#   for m in core gather-scatter operators solvers examples backends/aparapi; do cp $m/target/lobatto-*-0.1.0-SNAPSHOT.jar .gpu/ab/; done
# (GPU machine, .gpu carried)  bash benchmarks/gpu/setup25.sh
# Runs, one JVM each, interleaved: base and new at 32^3 p-MG (twice each), new with -XX:+UseTransparentHugePages,
# new --pc jacobi (the baseline), 67^3 (-Xmx16g) base and new with huge pages and new without, and the README
# default (6^3) on a cold kernel cache (an empty cache directory) for base and new. Logs to $OUT. About 2 minutes.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
BASE=${BASE:-.gpu/lib/lobatto-bench.jar}
NEW=${NEW:-.gpu/ab/*:.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
THP=-XX:+UseTransparentHugePages
echo "setup25: $(date -u +%FT%TZ), thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
p() { # label, classpath, JVM options (one word or ""), poisson arguments...
  local label=$1 cp=$2 jopt=$3
  shift 3
  local t0=$(date +%s%N)
  $RUN $jopt -cp "$cp" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  echo "== $label rc=$rc process wall $(( (t1 - t0) / 1000000 )) ms: $jopt $*"
  grep -E "^(CG:|time:|error:|host heap|kernel builds)|WARNING|SEVERE|Exception" "$OUT/$label.log" | head -8
  sed -n '/^setup by phase/,/^host heap/p' "$OUT/$label.log" | grep -E "^  (mesh|Z|geometry|eigen|p-MG|other|right)" | tr -s ' ' | tr '\n' ';'
  echo
}
p warm-base "$BASE" -Xmx60g -N 7 -e 32,32,32 > /dev/null
p warm-new "$NEW" -Xmx60g -N 7 -e 32,32,32 > /dev/null
for i in 1 2; do
  p base32-$i "$BASE" -Xmx60g -N 7 -e 32,32,32
  p new32-$i "$NEW" -Xmx60g -N 7 -e 32,32,32
done
p new32-thp "$NEW" "-Xmx60g $THP" -N 7 -e 32,32,32
p new32-jacobi "$NEW" -Xmx60g -N 7 -e 32,32,32 --pc jacobi
p base67-thp "$BASE" "-Xmx16g $THP" -N 7 -e 67,67,67
p new67-thp "$NEW" "-Xmx16g $THP" -N 7 -e 67,67,67
p new67 "$NEW" -Xmx16g -N 7 -e 67,67,67
for v in base new; do
  cp=$BASE; [ $v = new ] && cp=$NEW
  cache=$(mktemp -d)
  p readme-cold-$v "$cp" "-Dlobatto.cache.dir=$cache"
  p readme-warm-$v "$cp" "-Dlobatto.cache.dir=$cache"
done
