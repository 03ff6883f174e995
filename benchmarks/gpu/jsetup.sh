#!/usr/bin/env bash
# Runbook for the GPU machine's host CPU (its GPU is not used): issue 25's Java-backend target, "the main job on a
# 2-core machine: setup at most half of today's (60aa185), measured interleaved with the old jar". The README's job on
# the Java backend, `java -jar lobatto.jar poisson -b cpu` (6^3 elements, N = 7, 69k DOFs, p-MG 7 -> 3 -> 1), run as
# the README runs it (no JVM options), in a fresh JVM each time, pinned to two CPUs on different physical cores
# (taskset; the JVM then sees 2 processors: 2 backend threads and a 2-CPU JIT, as on the 2-core machine). The host is
# quiet, so wall times mean something here, unlike on the shared 2-core development machine.
#
# Variants, interleaved ROUNDS (default 5) times each, in this order every round:
#   old      .gpu/ab/lobatto-old.jar (OLDJAR): the examples' shaded jar built at 60aa185 (host setup)
#   base     .gpu/ab/lobatto-base.jar (BASEJAR), only if that file exists: a jar of the commit this branch started from
#            (jsetup3 started at 50cc358), to see this branch's own gain against the same lease
#   new      .gpu/lib/lobatto.jar (JAR): this branch
#   new-k0   the same jar with -Dlobatto.cpu.compactLaunches=0: every launch on the generated contractions (the path
#            before jsetup3, where the loops run an operator's launches until it has applied 2^25 element-local nodes)
#   (new-keep, the warm-up kept, is gone: at 05ee95d stopping the warm-up gave the same setup and a 0.18 s slower solve,
#   so it was reverted and the warm-up always runs)
#   new-c1   the same jar with -XX:TieredStopAtLevel=1 (C1 only, no C2): information, not the README's command
# Every new-* run and base pass --profile (at 60aa185 --profile prints nothing for the Java backend, so old runs
# without it): the summary gives the setup's process CPU seconds (all threads, JIT compilers included) beside the wall
# times, and the CPU of the phases that moved (geometry, eigenvalue bounds, right-hand side).
# About 25-30 runs of 2-4 s each: about 1.5-2.5 minutes; every run is limited to 60 s (timeout), the whole at 230 s.
#
# Stage (on the development machine, from the repository root of this branch):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true          # examples/target/lobatto.jar
#   ../shared/gpu/stage.sh examples/target/lobatto.jar                  # .gpu/jre, .gpu/run, .gpu/lib/lobatto.jar
#   git worktree add /work/wt-js-old 60aa185 && cp -r /root/.m2/repository /work/m2-js-old   # once
#   (cd /work/wt-js-old && ./mvnw -q -o -Dmaven.repo.local=/work/m2-js-old install -DskipTests -Dmaven.javadoc.skip=true)
#   mkdir -p .gpu/ab && cp /work/wt-js-old/examples/target/lobatto.jar .gpu/ab/lobatto-old.jar
#   zip -q -d .gpu/ab/lobatto-old.jar 'win/*' 'osx/*' 'linux/libaparapi_armhf.so' 'linux/libaparapi_aarch64.so' \
#       'linux/libaparapi_x86.so'                                       # as stage.sh strips the new jar: 12 MB each
#   optional, the same way: a jar of the branch's start (50cc358 for jsetup3) as .gpu/ab/lobatto-base.jar
# Files it needs: .gpu/run, .gpu/jre, .gpu/lib/lobatto.jar, .gpu/ab/lobatto-old.jar (.gpu/ab/lobatto-base.jar
# optional). JAR=.gpu/lib/lobatto-bench.jar runs the new side from the bench jar's copy of the CLI (io.lobatto.examples.LobattoCli), so one staged jar serves this
# runbook and final25.sh.
# Run (on the GPU machine, repository root, .gpu carried):  COMMIT=<sha> bash benchmarks/gpu/jsetup.sh
# Check elsewhere with a local JDK: RUN=java JAR=examples/target/lobatto.jar OLDJAR=<old jar> ROUNDS=1 bash benchmarks/gpu/jsetup.sh
#
# Prints per run: the CLI's setup (with --profile its process CPU and three phases' CPU), solve and total, the process
# wall (the script's clock around the JVM), CG iterations and errors; then per variant the medians, min and max, and
# new/old, new/base, new/new-k0 and new/new-keep of the medians.
# Writes $OUT/jsetup.tgz (every log, runs.tsv, cpu.txt).
set -uo pipefail
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto.jar}
OLDJAR=${OLDJAR:-.gpu/ab/lobatto-old.jar}
BASEJAR=${BASEJAR:-.gpu/ab/lobatto-base.jar}
ROUNDS=${ROUNDS:-5}
COMMIT=${COMMIT:-unknown}
OUT=${OUT:-$(mktemp -d)}
for j in "$JAR" "$OLDJAR"; do
  [ -e "$j" ] || { echo "jsetup: no $j: stage it first (see this script's header)" >&2; exit 2; }
done
logs=$(mktemp -d)
mkdir -p "$OUT"

# two CPUs on different physical cores: cpu0 and the first CPU that is not one of cpu0's hardware threads
second=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
  n=${c##*cpu}
  [ "$n" = 0 ] && continue
  sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo 0)
  case ",$sib," in *",$n,"*) continue ;; esac
  echo "$n"
done | sort -n | head -1)
second=${second:-1}
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c "0,$second"); fi
{
  echo "commit $COMMIT; host CPUs: $(nproc); pinned to: ${pin[*]:-(taskset missing: not pinned)}"
  grep -m1 'model name' /proc/cpuinfo
  echo "cpu0's hardware threads: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
  echo "load average before: $(cat /proc/loadavg)"
} | tee "$logs/cpu.txt"

# one run: label, jar, JVM options (may be empty), extra poisson arguments...
one() {
  local label=$1 jar=$2 jopt=$3
  shift 3
  local t0 t1 rc
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  local launch=(-jar "$jar")
  # the bench jar holds the examples' CLI too (one staged jar for this runbook and final25.sh): its main is another
  case "$jar" in *lobatto-bench.jar) launch=(-cp "$jar" io.lobatto.examples.LobattoCli) ;; esac
  timeout 60 ${pin[@]+"${pin[@]}"} $RUN $jopt "${launch[@]}" poisson -b cpu "$@" > "$logs/$label.log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  local wall=$(( (t1 - t0) / 1000000 ))
  local setup solve total its err cpu geo eig rhs
  setup=$(sed -n 's/^time: setup \([0-9.]*\) s.*/\1/p' "$logs/$label.log")
  cpu=$(sed -n 's/^setup by phase ([0-9.]* s, process CPU \([0-9.]*\) s.*/\1/p' "$logs/$label.log")
  geo=$(awk 'index($0, "  geometry ") == 1 { print $(NF - 2) }' "$logs/$label.log")
  eig=$(awk 'index($0, "  eigenvalue bounds ") == 1 { print $(NF - 2) }' "$logs/$label.log")
  rhs=$(awk 'index($0, "  right-hand side ") == 1 { print $(NF - 2) }' "$logs/$label.log")
  solve=$(sed -n 's/^time: .*solve \([0-9.]*\) s.*/\1/p' "$logs/$label.log")
  total=$(sed -n 's/^time: .*total \([0-9.]*\) s.*/\1/p' "$logs/$label.log")
  its=$(sed -n 's/^CG: .* after \([0-9]*\) iterations.*/\1/p' "$logs/$label.log")
  err=$(sed -n 's/^error: //p' "$logs/$label.log")
  printf "%-12s rc=%s setup %6s s (CPU %5s s: geometry %s, bounds %s, rhs %s)  solve %6s s  total %6s s  process wall %6.3f s  its %s  %s\n" \
    "$label" "$rc" "${setup:-?}" "${cpu:--}" "${geo:--}" "${eig:--}" "${rhs:--}" "${solve:-?}" "${total:-?}" \
    "$(echo "$wall" | awk '{print $1 / 1000}')" "${its:-?}" "${err:-?}"
  grep -E "WARNING|SEVERE|Exception|error:" "$logs/$label.log" | grep -v "^error: max" | head -3
  echo -e "${label%-*}\t${setup:-nan}\t${solve:-nan}\t${total:-nan}\t$(echo "$wall" | awk '{print $1 / 1000}')\t${its:-?}\t${err:-?}\t${cpu:-nan}\t${geo:-nan}\t${eig:-nan}\t${rhs:-nan}" >> "$logs/runs.tsv"
}

start=$SECONDS
havebase=
[ -e "$BASEJAR" ] && havebase=1
echo "== the README job on the Java backend, $ROUNDS rounds of: old (60aa185)${havebase:+, base ($BASEJAR)}, new ($COMMIT), new-k0, new-c1"
for r in $(seq 1 "$ROUNDS"); do
  [ $((SECONDS - start)) -gt 200 ] && { echo "jsetup: stopping after round $((r - 1)) (time)"; break; }
  one "old-$r" "$OLDJAR" ""
  [ -n "$havebase" ] && one "base-$r" "$BASEJAR" "" --profile
  one "new-$r" "$JAR" "" --profile
  [ -z "${SKIP_K0:-}" ] && one "new-k0-$r" "$JAR" "-Dlobatto.cpu.compactLaunches=0" --profile
  one "new-c1-$r" "$JAR" "-XX:TieredStopAtLevel=1" --profile
  [ -n "${X_OPTS:-}" ] && one "new-x-$r" "$JAR" "$X_OPTS" --profile   # X_OPTS: one more variant, the new jar with these options
done
echo "== new, --profile (setup by phase), round 1"
sed -n '/^setup by phase/,/^host heap/p' "$logs/new-1.log"

echo "== medians (min..max) per variant; setup, solve, total are the CLI's, wall is the process's"
awk -F'\t' '
  function median(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
                                   return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { v = $1; if (!(v in n)) order[++nv] = v; k = ++n[v]
      for (c = 2; c <= 11; c++) { if (c == 6 || c == 7) continue
        x[v, c, k] = $c; if (k == 1 || $c < lo[v, c]) lo[v, c] = $c; if (k == 1 || $c > hi[v, c]) hi[v, c] = $c }
      t = " [" $6 " its, " $7 "]"; if (!index(res[v], t)) res[v] = res[v] t }
  END { name[2] = "setup"; name[3] = "solve"; name[4] = "total"; name[5] = "wall"
        name[8] = "setup CPU"; name[9] = "geometry CPU"; name[10] = "bounds CPU"; name[11] = "rhs CPU"
        for (i = 1; i <= nv; i++) { v = order[i]; line = sprintf("%-8s n=%d", v, n[v])
          for (c = 2; c <= 11; c++) { if (c == 6 || c == 7) continue
            delete a; for (k = 1; k <= n[v]; k++) a[k] = x[v, c, k]; m[v, c] = median(a, n[v])
            if (x[v, c, 1] == "nan") continue
            line = line sprintf("  %s %.3f (%.3f..%.3f)", name[c], m[v, c], lo[v, c], hi[v, c]) }
          print line res[v] }
        if (("old", 2) in m && ("new", 2) in m)
          printf "new/old: setup %.3f, solve %.3f, total %.3f, process wall %.3f (target: setup <= 0.5)\n",
                 m["new", 2] / m["old", 2], m["new", 3] / m["old", 3], m["new", 4] / m["old", 4], m["new", 5] / m["old", 5]
        if (("base", 2) in m && ("new", 2) in m)
          printf "new/base: setup %.3f, setup CPU %.3f, solve %.3f, process wall %.3f (this branch against its start)\n",
                 m["new", 2] / m["base", 2], m["new", 8] / m["base", 8], m["new", 3] / m["base", 3], m["new", 5] / m["base", 5]
        if (("new-k0", 2) in m && ("new", 2) in m)
          printf "new/new-k0: setup %.3f, setup CPU %.3f, solve %.3f, process wall %.3f (the loop contractions)\n",
                 m["new", 2] / m["new-k0", 2], m["new", 8] / m["new-k0", 8], m["new", 3] / m["new-k0", 3], m["new", 5] / m["new-k0", 5]
        if (("new-keep", 2) in m && ("new", 2) in m)
          printf "new/new-keep: setup %.3f, setup CPU %.3f, process wall %.3f (the warm-up stopped)\n",
                 m["new", 2] / m["new-keep", 2], m["new", 8] / m["new-keep", 8], m["new", 5] / m["new-keep", 5]
        if (("new-x", 2) in m && ("old", 2) in m)
          printf "new-x/old: setup %.3f, solve %.3f, total %.3f, process wall %.3f (X_OPTS)\n",
                 m["new-x", 2] / m["old", 2], m["new-x", 3] / m["old", 3], m["new-x", 4] / m["old", 4], m["new-x", 5] / m["old", 5]
        if (("new-c1", 2) in m && ("old", 2) in m)
          printf "new-c1/old: setup %.3f, solve %.3f, process wall %.3f (C1 only: not the README command)\n",
                 m["new-c1", 2] / m["old", 2], m["new-c1", 3] / m["old", 3], m["new-c1", 5] / m["old", 5] }' \
  "$logs/runs.tsv" | tee "$logs/summary.txt"
echo "load average after: $(cat /proc/loadavg)" | tee -a "$logs/cpu.txt"
tar czf "$OUT/jsetup.tgz" -C "$logs" .
echo "jsetup: $((SECONDS - start)) s; results in $OUT/jsetup.tgz"
