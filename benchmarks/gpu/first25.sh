#!/usr/bin/env bash
# GPU runbook of issue 25's cold target, one H100, about 1.5 minutes; run it as a lease's FIRST call, so that its first
# command is the machine's first process. Stage the commit's fat jar (./mvnw -q -o -pl benchmarks -am package -DskipTests;
# ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar), then (GPU machine, .gpu carried)
#   COMMIT=<sha> FRESH_ROUNDS=6 bash benchmarks/gpu/first25.sh
# The README's main job (poisson -b aparapi, 6^3, N = 7) on fresh caches, the driver's cache empty (CUDA_CACHE_PATH a new
# folder) and an empty kernel cache: first as the machine's first process, then FRESH_ROUNDS more times, then once warm.
# B_OPTS="<JVM options>": each fresh round also runs the job with those options on fresh caches (freshb-i), an A/B.
# ARMS="label|jar|JVM options|form;...": each fresh round also runs one job per arm, on fresh caches of its own, with that
# jar or class path (empty: JAR) and those options (fresh<label>-i), in the order given; form "readme" runs the README's
# command as it stands (poisson, no -b, no --profile: what a user runs), else -b aparapi --profile;
# e.g. ARMS="old|.gpu/ab/old:.gpu/lib/lobatto-bench.jar|;t16||-Dx=16;plain|||readme".
# Prints each run's process wall, the CLI's times, when the backend was open and the build span. Logs to $OUT.
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
COMMIT=${COMMIT:-unknown}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
echo "first25 at $COMMIT: $(date -u +%FT%TZ), uptime $(cut -d' ' -f1 /proc/uptime) s"
p() { # label, then poisson arguments
  local label=$1
  shift
  local t0=$(date +%s%N) jfr=""
  # JFR=1: the fresh runs record Java Flight Recorder (JFC: its settings) into $OUT/<label>.jfr (stage jdk.jfr)
  [ -n "${JFR:-}" ] && [[ $label == fresh* ]] && jfr="-XX:StartFlightRecording=filename=$OUT/$label.jfr,settings=${JFC:-profile}"
  local form=(-b aparapi --profile)
  [ "${cli:-}" = readme ] && form=()
  timeout 60 $RUN ${jopts:-} $jfr -cp "${jar:-$JAR}" io.lobatto.examples.LobattoCli poisson ${form[@]+"${form[@]}"} "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  echo "== $label rc=$rc process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  grep -E "^(CG:|time:|error:|kernel builds|process:)|WARNING|SEVERE|Exception|warnings generated" "$OUT/$label.log" | head -8
}
cache() { mktemp -d; }
fresh() { export CUDA_CACHE_PATH=$(cache) LOBATTO_CACHE_DIR=$(cache); }
[ -n "${B_OPTS:-}" ] && ARMS="b||$B_OPTS${ARMS:+;$ARMS}"   # B_OPTS: the arm "b" (freshb-i), first
fresh
p first-process
for i in $(seq 1 "${FRESH_ROUNDS:-6}"); do
  fresh
  p fresh-$i
  IFS=';' read -ra arms <<< "${ARMS:-}"
  for arm in ${arms[@]+"${arms[@]}"}; do
    IFS='|' read -r label ajar aopts aform <<< "$arm"
    fresh
    jar="$ajar" jopts="$aopts" cli="$aform" p "fresh$label-$i"
  done
done
p warm
nvidia-smi --query-gpu=name,persistence_mode,pstate,clocks.sm,clocks.mem --format=csv 2>&1 | tail -2
cd "$OUT" && tar czf first25.tgz *.log $(ls *.jfr 2>/dev/null) && rm -f *.log *.jfr
