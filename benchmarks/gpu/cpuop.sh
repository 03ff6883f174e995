#!/usr/bin/env bash
# Runbook for the GPU machine's host CPU (its GPU is not used): the Java backend's operator apply, `op -b cpu`,
# BP1/BP3/BP5 at p = 3..8 and about 1.73M DOFs, the command meant to run within 3 minutes on a 2-core machine
# (issue 29, item 1). The GPU machine's host is quiet (nothing else runs there), so this is where the command's
# duration and the agreement of two runs one after the other can be seen; its CPU is not the 2-core development
# machine's, so its GDOF/s are not the figures to set beside libCEED's row measured there.
#
# Two runs, one after the other, each pinned to two CPUs on different physical cores (taskset) with the JVM told it
# has 2 processors (-XX:ActiveProcessorCount=2: 2 backend threads and a 2-CPU JIT, as on the 2-core machine).
# Each run is limited by the sweep itself (--time-limit 175: it starts no degree that would probably end later, judged
# by the longest degree so far; the JSON then says "cut": true) and to 200 s by timeout; the script ends within 7 minutes.
#
# Stage (on the development machine, from the repository root):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true      # builds benchmarks/target/lobatto-bench.jar
#   ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run (on the GPU machine, from the repository root, with .gpu carried):
#   COMMIT=$(git rev-parse --short HEAD) bash benchmarks/gpu/cpuop.sh
# Prints: the CPUs used, each run's table and elapsed seconds, then per problem and p the two runs' median GDOF/s,
# their ratio, each run's relative spread (max - min) / median, warm-up seconds and JIT ms inside the samples.
# Writes $OUT/cpuop.tgz (run1/ and run2/: op-cpu.json and .csv; the two logs; times.log; cpu.txt).
set -u
dest=${OUT:-cpuop-out}
commit=${COMMIT:-unknown}
jar=.gpu/lib/lobatto-bench.jar
[ -e "$jar" ] || { echo "cpuop: no $jar: stage it first (../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar)" >&2; exit 2; }
out=$(mktemp -d)
mkdir -p "$dest"

# two CPUs on different physical cores: cpu0 and the first CPU that is not one of cpu0's hardware threads
first=0
second=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
  n=${c##*cpu}
  [ "$n" = 0 ] && continue
  sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo 0)
  case ",$sib," in *",$n,"*) continue ;; esac
  echo "$n"; break
done | sort -n | head -1)
second=${second:-1}
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c "$first,$second"); fi
{
  echo "host CPUs: $(nproc); pinned to: ${pin[*]:-(taskset missing: not pinned)}"
  grep -m1 'model name' /proc/cpuinfo
  echo "cpu0's hardware threads: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
  echo "load average before: $(cat /proc/loadavg)"
} | tee "$out/cpu.txt"

start=$SECONDS
for run in 1 2; do
  t0=$SECONDS
  timeout 200 ${pin[@]+"${pin[@]}"} bash .gpu/run -XX:ActiveProcessorCount=2 -Xmx12g -jar "$jar" op -b cpu \
    --dofs 1728000 --n-min 3 --n-max 8 --reps 5 --time-limit 175 -o "$out/run$run" --commit "$commit" 2>&1 \
    | tee "$out/run$run.log"
  rc=${PIPESTATUS[0]}
  echo "== run $run: $((SECONDS - t0)) s, exit $rc$([ "$rc" -eq 124 ] && echo ' (timed out)'), script at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
done

# the two runs side by side, from their CSVs (columns found by name)
if [ -e "$out/run1/op-cpu.csv" ] && [ -e "$out/run2/op-cpu.csv" ]; then
  echo "problem N  GDOF/s run1  run2  run2/run1  spread1 spread2  warm1 warm2  jit1 jit2" | tee -a "$out/times.log"
  awk -F, '
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { key = $col["problem"] " " $col["N"]
      if (FILENAME ~ /run1/) { order[++n] = key; g1[key] = $col["GDOF_per_s"]; s1[key] = $col["relative_spread"]; w1[key] = $col["warmup_s"]; j1[key] = $col["jit_ms_during_samples"] }
      else { g2[key] = $col["GDOF_per_s"]; s2[key] = $col["relative_spread"]; w2[key] = $col["warmup_s"]; j2[key] = $col["jit_ms_during_samples"] } }
    END { for (i = 1; i <= n; i++) { k = order[i]
            if (g1[k] == "" || g2[k] == "") { printf "%-6s  (a run has no row)\n", k; continue }
            printf "%-6s %.4f %.4f %6.3f %6.1f%% %6.1f%% %5.1f %5.1f %5d %5d\n", k, g1[k], g2[k], g2[k] / g1[k],
                   100 * s1[k], 100 * s2[k], w1[k], w2[k], j1[k], j2[k] } }' \
    "$out/run1/op-cpu.csv" "$out/run2/op-cpu.csv" | tee -a "$out/times.log"
fi
grep -o "\"cut\": *[a-z]*" "$out"/run*/op-cpu.json 2>/dev/null
tar czf "$dest/cpuop.tgz" -C "$out" .
echo "cpuop: $((SECONDS - start)) s; results in $dest/cpuop.tgz"
