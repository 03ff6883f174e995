#!/usr/bin/env bash
# GPU runbook (issue 25): the cold start of a mid-size quick-first job (12^3, N = 7) with the PTX levels of 16c00b6 (quick
# builds at level 1) against both levels off, three interleaved rounds on fresh caches. Stage as first25.sh; OUT=<dir>.
# mid-size cold jobs: 12^3, N = 7 (884,736 points: quick-first, above 2^18), new defaults against both levels off
set -uo pipefail
RUN=${RUN:-bash .gpu/run}; JAR=${JAR:-.gpu/lib/lobatto-bench.jar}; OUT=${OUT:-$(mktemp -d)}
OLD="-Dlobatto.opencl.quickNvOptLevel=-1 -Dlobatto.opencl.quickFirstNvOptLevel=-1"
for i in 1 2 3; do for arm in new old; do
  export CUDA_CACHE_PATH=$(mktemp -d) LOBATTO_CACHE_DIR=$(mktemp -d)
  o=""; [ $arm = old ] && o="$OLD"
  t0=$(date +%s%N)
  timeout 60 $RUN $o -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile -N 7 -e 12,12,12 > "$OUT/mid-$arm-$i.log" 2>&1
  echo "== mid-$arm-$i rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  grep -E "^(CG:|time:|error:)|WARNING|SEVERE|Exception" "$OUT/mid-$arm-$i.log" | head -4
done; done
