#!/usr/bin/env bash
# GPU runbook of the numbering made where Z is built (branch dnum), one H100, about 3 minutes. Stage the commit's fat jar
# (./mvnw -q -o -pl benchmarks -am package -DskipTests; ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar), then
# (GPU machine, .gpu carried)  COMMIT=<sha> bash benchmarks/gpu/dnum.sh
# The main job (poisson -b aparapi -N 7, p-MG, --profile) in fresh JVMs, the variants interleaved in ROUNDS rounds at
# E32^3 after one warm-up run (kernel cache filled), then one E67^3 run (-Xmx16g) of each:
#   new   the map made on the device from the entities, the box's topology in closed form (the branch's default)
#   walk  the map made on the device, the box walked (-Dlobatto.mesh.boxTopology=false)
#   old   the path before: the host walk and fill, Z from the uploaded map (-Dlobatto.numbering.device=false
#         -Dlobatto.mesh.boxTopology=false)
# VARIANTS (default "new walk old") and VARIANTS67 choose the variants at each size; nowarm is the default without
# SetupWarmup's topology rounds. JFR_RUNS=n adds n runs of the default with Java Flight Recorder (JFC: the settings, default
# profile) writing $OUT/jfr-*.jfr; stage the runtime with jdk.jfr for them
# (GPU_JRE_MODULES=java.base,java.logging,java.management,jdk.unsupported,jdk.jfr ../shared/gpu/stage.sh ...).
# Prints per run the setup phases and the times, then per variant the medians; a run that would end past BUDGET (450 s)
# is skipped. Logs to $OUT. Checked on PoCL (2 cores) at 7ae84f5 with RUN=java JAR=examples/target/lobatto.jar E32=24
# E67=8 ROUNDS=3 BUDGET=590 (252 s; 13 iterations at 24^3, 12 at 8^3, the same residuals and errors in every variant).
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
COMMIT=${COMMIT:-unknown}
OUT=${OUT:-$(mktemp -d)}
ROUNDS=${ROUNDS:-3}
E32=${E32:-32}
E67=${E67:-67}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.tsv"
printf 'variant\tsize\tround\tsetup\tsolve\ttotal\tmesh\tmask\tZ\tpmg_numbering\tpmg_Z\twall_ms\n' > "$SUMMARY"
echo "dnum at $COMMIT: $(date -u +%FT%TZ)"
opts() {
  case $1 in
    new) echo "" ;;
    walk) echo "-Dlobatto.mesh.boxTopology=false" ;;
    old) echo "-Dlobatto.numbering.device=false -Dlobatto.mesh.boxTopology=false" ;;
    nowarm) echo "-Dlobatto.setup.warmupTopology=false" ;;   # SetupWarmup without its topology rounds (the path before fba8d28)
    jfr) echo "-XX:StartFlightRecording=filename=$OUT/jfr-$2.jfr,settings=${JFC:-profile}" ;;   # needs jdk.jfr staged
  esac
}
phase() { # log, phase name: its wall seconds (0 if absent)
  sed -n '/^setup by phase/,/^host heap/p' "$1" | grep -E "^  $2 {2,}[0-9]" | head -1 | awk '{for (i = 1; i <= NF; i++) if ($i == "s") {print $(i-1); exit}}' | grep . || echo 0
}
START=$(date +%s)
p() { # variant, size, round, JVM heap option, time limit (s)
  local v=$1 e=$2 r=$3 heap=$4 limit=$5 label="$1-$2-$3"
  if (( $(date +%s) - START + limit > ${BUDGET:-450} )); then   # the whole script stays under 8 minutes
    echo "== $label skipped: $(( $(date +%s) - START )) s used of ${BUDGET:-450}"
    return
  fi
  local t0=$(date +%s%N)
  timeout "$limit" $RUN $heap $(opts "$v" "$label") -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi --profile -N 7 -e "$e,$e,$e" \
    > "$OUT/$label.log" 2>&1
  local rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "== $label rc=$rc process wall $wall ms: $(opts "$v")"
  grep -E "^(CG:|time:|error:)|WARNING|SEVERE|Exception" "$OUT/$label.log" | head -5
  sed -n '/^setup by phase/,/^host heap/p' "$OUT/$label.log" | grep -E "^  (mesh|mask|Z|geometry|eigen|p-MG|other|right|diag)" \
    | tr -s ' ' | tr '\n' ';'
  echo
  local t=$(grep -E '^time:' "$OUT/$label.log" | head -1)
  local setup=$(echo "$t" | sed -n 's/.*setup \([0-9.]*\) s.*/\1/p') solve=$(echo "$t" | sed -n 's/.*solve \([0-9.]*\) s.*/\1/p')
  local total=$(echo "$t" | sed -n 's/.*total \([0-9.]*\) s.*/\1/p')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$e" "$r" "${setup:-NA}" "${solve:-NA}" "${total:-NA}" \
    "$(phase "$OUT/$label.log" 'mesh and numbering')" "$(phase "$OUT/$label.log" mask)" "$(phase "$OUT/$label.log" Z)" \
    "$(phase "$OUT/$label.log" 'p-MG numbering')" "$(phase "$OUT/$label.log" 'p-MG Z')" "$wall" >> "$SUMMARY"
}
p new "$E32" 0 -Xmx60g 60 > /dev/null   # warm-up: the kernel cache
for r in $(seq 1 "$ROUNDS"); do
  for v in ${VARIANTS:-new walk old}; do
    p "$v" "$E32" "$r" -Xmx60g 60
  done
done
for r in $(seq 1 "${JFR_RUNS:-0}"); do   # profiles of the default at E32 (JFR_RUNS > 0: stage jdk.jfr, see the header)
  p jfr "$E32" "$r" -Xmx60g 60
done
for v in ${VARIANTS67:-new walk old}; do
  p "$v" "$E67" 1 -Xmx16g 90
done
echo "== medians (seconds; round 0 is the warm-up, left out)"
printf 'variant\tsize\truns\tsetup\tsolve\ttotal\tmesh\tmask\tZ\tpMGnum\tpMGZ\n'
awk -F'\t' 'NR > 1 && $3 > 0 {k = $1 "\t" $2; n[k]++; for (c = 4; c <= 11; c++) v[k, c, n[k]] = $c}
  END {for (k in n) {line = k "\t" n[k];
         for (c = 4; c <= 11; c++) {m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, c, i];
           for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) {x = a[i]; a[i] = a[j]; a[j] = x}
           line = line "\t" (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)}
         print line}}' "$SUMMARY" | sort
cp "$SUMMARY" "$OUT/summary-$COMMIT.tsv" 2>/dev/null || true
cd "$OUT" && tar czf dnum-logs.tgz *.log && rm -f *.log
