#!/usr/bin/env bash
# GPU runbook (issues 27/30: the Chebyshev-Jacobi step folded into the residual update's gather, 7aad308). About 1.5
# minutes on one H100. The main job at 32^3 (N = 7, p-MG), folded (the default) against -Dlobatto.pmg.foldChebyshevStep=false,
# alternated ROUNDS (3) times after a run that fills the kernel cache; then the README job warm, each way twice.
# Prints the CLI's time line, the per-iteration wall and the sum of kernels, and the gathers' launches.
# Writes $OUT/fold27-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha}
logs=$(mktemp -d)
mkdir -p "$OUT"
opts() { case $1 in fold) echo "" ;; nofold) echo "-Dlobatto.pmg.foldChebyshevStep=false" ;; esac; }
p() { # label, JVM options, poisson arguments...
  local label=$1 jopt=$2
  shift 2
  $RUN $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile "$@" > "$logs/$label.log" 2>&1
  echo "== $label rc=$?: $jopt $*"
  grep -E "^(CG:|time:|error:)|wall per iteration|sum of kernels|^(gather\+residual|chebyshevStep|gather \(rows\)) |WARNING|SEVERE|Exception" "$logs/$label.log" | head -10
}
echo "fold27 at $COMMIT: $(date -u +%FT%TZ)"
p fill "-Xmx60g" -N 7 -e 32,32,32 > /dev/null
p fill-nofold "-Xmx60g $(opts nofold)" -N 7 -e 32,32,32 > /dev/null
for i in $(seq 1 "${ROUNDS:-3}"); do
  for v in fold nofold; do
    p "p32-$v-$i" "-Xmx60g $(opts $v)" -N 7 -e 32,32,32
  done
done
for i in 1 2; do
  for v in fold nofold; do
    p "readme-$v-$i" "$(opts $v)"
  done
done
tar czf "$OUT/fold27-$COMMIT.tgz" -C "$logs" .
