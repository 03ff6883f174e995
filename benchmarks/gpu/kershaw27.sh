#!/usr/bin/env bash
# GPU runbook of issue 27, item 5: the Kershaw sweep beside NekRS's figures, on one H100, with the staged bench jar:
# lobatto-bench solve on Kershaw's cube, 24^3 elements, N = 3..10, p-MG with each smoother (cheb-jacobi and
# cheb4opt-ras, Chebyshev order 4, the default schedules), eps = 1.0 (the undistorted cube) and eps = 0.3.
# The eps = 0.3 cheb4opt-ras row repeats a30c7f9's sweep (its JSON is on the site); this adds cheb-jacobi there and both
# smoothers at eps = 1.0. Stage:
#   ./mvnw -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# then on the GPU machine:  COMMIT=<sha> bash benchmarks/gpu/kershaw27.sh
# Each sweep stops before a degree it could not finish within its --time-limit (JSON "cut" then says so).
# Writes $OUT/kershaw27-<eps>-$COMMIT.json and $OUT/kershaw27-$COMMIT-logs.tgz. About 3 minutes.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
K=${K:-24}
NMAX=${NMAX:-10}
mkdir -p "$OUT"
logs=$(mktemp -d)
for eps in ${EPS:-1.0 0.3}; do
  smoothers=cheb-jacobi,cheb4opt-ras
  t0=$(date +%s)
  timeout 290 $RUN -Xmx60g -jar "$JAR" solve -b aparapi -e "$K" --meshes kershaw --kershaw "$eps" --pcs pmg \
    --smoothers "$smoothers" --smoother-order 4 --n-min 3 --n-max "$NMAX" --commit "$COMMIT" --time-limit 270 \
    -o "$logs/k$eps" > "$logs/kershaw-$eps.log" 2>&1
  echo "== eps $eps rc=$? $(( $(date +%s) - t0 )) s"
  grep -vE "^\s*$" "$logs/kershaw-$eps.log" | tail -25
  for f in "$logs/k$eps"/*.json; do [ -e "$f" ] && cp "$f" "$OUT/kershaw27-$eps-$COMMIT.json"; done
done
tar czf "$OUT/kershaw27-$COMMIT-logs.tgz" -C "$logs" .
