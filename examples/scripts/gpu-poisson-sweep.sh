#!/usr/bin/env bash
# Runs on a GPU machine from the repository root after examples/target/lobatto.jar was staged into
# .gpu/lib/ with a Java runtime and launcher (.gpu/jre, .gpu/run; see benchmarks/gpu-run.sh): Poisson CG
# solves on the aparapi backend for N = 1..15 at about 1-2M DOFs each, plus one solve above 10M DOFs, with
# the per-kernel time split (--profile).
# Writes one log per run and a summary to $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
jar=.gpu/lib/lobatto.jar
summary="$out/poisson-summary.txt"
: > "$summary"
run() { # name, args...
  local name=$1; shift
  timeout "${PER_RUN_TIMEOUT:-120}" bash .gpu/run -Xmx48g -jar "$jar" poisson -b aparapi --profile "$@" > "$out/$name.txt" 2>&1
  echo "== $name: $*  (exit $?)" >> "$summary"
  grep -E "^N = |^CG:|^time:|^error:|^sum |^STIFFNESS|^gather|^cgUpdate|^dot" "$out/$name.txt" >> "$summary"
}
for n in ${DEGREES:-1 2 3 4 5 6 7 8 9 10 11 12 13 14 15}; do
  if [ "$n" -le 2 ]; then k=$(( 100 / n )); else k=$(( (126 + n / 2) / n )); fi
  run "poisson-N$n" -N "$n" -e "$k,$k,$k"
done
[ "${BIG:-1}" = 1 ] && PER_RUN_TIMEOUT=240 run poisson-N7-big -N 7 -e 32,32,32
cat "$summary"
