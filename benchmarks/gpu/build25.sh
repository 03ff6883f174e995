#!/usr/bin/env bash
# GPU runbook (issue 25: where a cold README run's setup waits). About 1 minute on one H100. The README job on a cold start
# (empty CUDA_CACHE_PATH and kernel cache), VARIANTS alternated ROUNDS (2) times: base (the default, 8 build threads),
# t16 / t4 (-Dlobatto.aparapi.buildThreads), fixedtr (the six transfer kernels per level pair instead of the one with its
# degrees as arguments that a small problem builds since the commit after 9ae8e80). Then a warm run of each variant's last cache. At c1b40c5 and f93039a it also
# had qerr (the error kernel built quickly) and nvo0/nvo1 (quick builds with -cl-nv-opt-level=0/1): no gain, removed.
# Each log has every build's start and end on the JVM's clock and the setup by phase. Writes $OUT/build25-$COMMIT.tgz.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha}
logs=$(mktemp -d)
declare -A keep
mkdir -p "$OUT"
opts() { case $1 in base) echo "" ;; t16) echo "-Dlobatto.aparapi.buildThreads=16" ;; t4) echo "-Dlobatto.aparapi.buildThreads=4" ;;
  fixedtr) echo "-Dlobatto.aparapi.transferKernel=fixed" ;; esac; }
echo "build25 at $COMMIT: $(date -u +%FT%TZ)"
$RUN -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi -N 2 -e 2,2,2 > /dev/null 2>&1   # the machine's first process
for i in $(seq 1 "${ROUNDS:-2}"); do
  for v in ${VARIANTS:-base t16 t4}; do
    cache=$(mktemp -d); cuda=$(mktemp -d); label=cold-$v-$i; keep[$v]="$cache $cuda"
    t0=$(date +%s%N)
    CUDA_CACHE_PATH=$cuda $RUN -Dlobatto.cache.dir=$cache $(opts $v) -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile > "$logs/$label.log" 2>&1
    echo "== $label rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms $(opts $v)"
    grep -E "^(time:|error:)|^  (Z|geometry|eigen) |WARNING|SEVERE|Exception" "$logs/$label.log" | tr -s ' ' | tr '\n' ';'; echo
  done
done
for v in ${VARIANTS:-base t16 t4}; do
  set -- ${keep[$v]}
  t0=$(date +%s%N)
  CUDA_CACHE_PATH=$2 $RUN -Dlobatto.cache.dir=$1 $(opts $v) -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile > "$logs/warm-$v.log" 2>&1
  echo "== warm-$v rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  grep -E "^(time:|error:)" "$logs/warm-$v.log" | tr '\n' ';'; echo
done
for v in ${VARIANTS:-base t16 t4}; do sed -n '/^builds in start order/,/^kernel  /p' "$logs/cold-$v-1.log"; done
tar czf "$OUT/build25-$COMMIT.tgz" -C "$logs" .
