#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, about 3 minutes (every step under its own timeout, at most 230 s in
# all): p-multigrid across ranks with the redundant coarse solve's link on the device (--coarse-link partial: the ranks'
# partial coarse right-hand sides allgathered and summed by a gather, x_r taken by an indexed gather: no blocking read
# per V-cycle, against two, and no halo sum into the coarse level) and each smoothed level's residual restricted as
# partial sums (one halo exchange fewer per smoothed level: 11 exchanges per V-cycle against 14), against the old path
# (--coarse-link host --partial-residual off, the code of 9cfda5d), N = 7, weak scaling 31^3 -> 31x31x62 (10.1M DOFs
# per GPU):
#   1. one rank, 31^3, Jacobi: --profile --profile-json one.json (the model's one-rank input; Jacobi did not change);
#   2. two ranks, 31x31x62, Jacobi: --model one.json --model-curve curve.json --profile-json two.json (the fitted model);
#   3. one rank, 31^3, p-MG: --profile (best of 3 per schedule row; levels timed);
#   4. two ranks, 31x31x62, p-MG, the new path: --profile, whose p-MG part runs in one process an interleaved A/B (old
#      path, new path, new path with the levels below the fine one fused, the owned-entries device link with the partial
#      residual; three rounds, best of each), the schedule rows
#      (best of 3), and for the old path then the new one: each level's ms per V-cycle, MPI calls, launches, queue
#      drains (blocking reads) and copy waits per V-cycle, the host's time in each level's exchanges and in the coarse link;
#   5. where time is left (at most 150 s gone), the same with the old path as the run's own (--coarse-link host
#      --partial-residual off): the A/B between processes, and its CG iterations and errors;
#   6. where time is left (at most 180 s gone), step 4 once more (the spread).
# Stage first, from the repository root on the build machine (the parallel module needs JDK 22+; its class path lists
# the installed jars of the other modules, so install those first):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   env -u LD_PRELOAD JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -pl parallel package -DskipTests \
#     -Dmaven.javadoc.skip=true
#   GPU_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ../shared/gpu/stage.sh \
#     parallel/target/lobatto-parallel-0.1.0-SNAPSHOT.jar $(tr ':' ' ' < parallel/target/classpath.txt)
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/dist6.sh (JAR= or CP= for another
# class path; the device copy's git HEAD is stale, so the commit comes from COMMIT).
# Results: $OUT/dist6.tgz (every log, the JSON profiles, times.log, nvidia-smi) and $OUT/dist6-summary.txt, plus
# $OUT/one.json, $OUT/two.json and $OUT/curve.json on their own (5 files).
# Local check on PoCL at a tiny size (two ranks sharing the CPU device):
#   J=/usr/lib/jvm/temurin-25-jdk-amd64; RUN="$J/bin/java" CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" \
#   ONE=3,3,3 TWO=3,3,6 N=3 XMX=2g COMMIT=$(git rev-parse --short HEAD) \
#   MPI_EXTRA="--oversubscribe -x LD_PRELOAD=$J/lib/libjsig.so -x LOBATTO_REQUIRE_OPENCL=1" OUT=/tmp/dist6 bash benchmarks/gpu/dist6.sh
set -u
dest=${OUT:-gpu-dist6}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
cp_=${CP:-${JAR:-.gpu/lib/*}}   # JAR= as in the other runbooks: the class path (a jar, or the staged jars' glob)
n=${N:-7}
one=${ONE:-31,31,31}
two=${TWO:-31,31,62}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
# the rank's command, with the class path quoted (a glob for the JVM, not for the shell)
cat > "$out/p.sh" <<P
#!/usr/bin/env bash
exec $run -Xmx${XMX:-60g} --enable-native-access=ALL-UNNAMED -cp '$cp_' io.lobatto.parallel.DistributedPoisson \
  --backend ${BACKEND:-aparapi} -N $n "\$@"
P
# mp NP TIMEOUT NAME ARGS...: DistributedPoisson on NP ranks under mpirun and timeout, output in $out/NAME.log
mp() {
  local np=$1 t=$2 name=$3; shift 3
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout "$t" mpirun --allow-run-as-root -np "$np" --bind-to none ${MPI_EXTRA:-} bash "$out/p.sh" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== dist6/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1 && nvidia-smi topo -m >> "$out/nvidia-smi.csv" 2>&1
mp 1 45 jacobi1 -e "$one" --profile --profile-json "$out/one.json"
mp 2 70 jacobi2 -e "$two" --model "$out/one.json" --model-curve "$out/curve.json" --profile-json "$out/two.json"
mp 1 30 pmg1 -e "$one" --pc pmg --profile --profile-json "$out/pmg1.json"
mp 2 45 pmg2 -e "$two" --pc pmg --profile --profile-json "$out/pmg2.json"
logs="jacobi1 jacobi2 pmg1 pmg2"
if [ $((SECONDS - start)) -le 150 ]; then
  mp 2 45 pmg2-old -e "$two" --pc pmg --profile --coarse-link host --partial-residual off --profile-json "$out/pmg2-old.json"
  logs="$logs pmg2-old"
else
  echo "== dist6/pmg2-old: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
if [ $((SECONDS - start)) -le 180 ]; then
  mp 2 45 pmg2-b -e "$two" --pc pmg --profile
  logs="$logs pmg2-b"
else
  echo "== dist6/pmg2-b: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
echo "== dist6: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
# ms per iteration of the first profile row matching PATTERN in log NAME: ms NAME PATTERN
ms() { grep -E "$2" "$out/$1.log" | head -1 | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/'; }
# the best (smallest) ms per iteration of the rows matching PATTERN: best NAME PATTERN
best() { grep -E "$2" "$out/$1.log" | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/' | sort -g | head -1; }
field() { grep '^RESULT ' "$out/$1.log" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for p in $logs; do
    echo "---- $p"
    grep -E '^(distributed poisson|setup|network|model|profile: (schedule|element|rank|p-MG)|RESULT)|^ +[0-9]+ +|rror|Exception|WARNING|SEVERE' \
      "$out/$p.log"
  done
  echo "---- weak-scaling efficiency per iteration (best 1-rank row over the 2-rank row)"
  eff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.4f ms / %.4f ms = %.1f %%", a, b, 100 * a / b; else print "n/a" }'; }
  j1=$(best jacobi1 '^profile: schedule .*exchange on')
  p1=$(best pmg1 '^profile: schedule .*exchange on')
  echo "jacobi, overlapped (default split): $(eff "$j1" "$(ms jacobi2 '^profile: schedule overlap +exchange on .*split alongside$')")"
  for v in pmg2 pmg2-b pmg2-old; do
    [ -e "$out/$v.log" ] || continue
    echo "$v, A/B in one process (interleaved, best of 3 each):"
    for path in "old path" "new path \(" "new path, levels below" "coarse link device"; do
      echo "  $(grep -E "^profile: p-MG A/B $path" "$out/$v.log" | sed -E 's/^profile: p-MG A\/B ([^0-9]*[^ ]) +([0-9.]+) ms.*/\1/'): $(eff "$p1" "$(ms "$v" "^profile: p-MG A/B $path")")"
    done
    echo "  the run's own path, default schedules: $(eff "$p1" "$(ms "$v" '^profile: schedule overlap +exchange on .*split alongside$')"); best schedule row: $(eff "$p1" "$(best "$v" '^profile: schedule overlap +exchange on')")"
    for which in old own; do
      if [ $which = old ]; then re='\(old path\) '; label='(old path) '; else re=''; label="(this run's path) "; fi
      grep -E "^profile: p-MG ${re}(MPI calls|device per V-cycle|level N|exchanges of level|coarse link)" "$out/$v.log" \
        | sed -E "s/^profile: p-MG (\(old path\) )?/  $label/"
    done
    echo "  CG iterations $(field "$v" iterations), max error $(field "$v" max_error)"
  done
  echo "p-MG one rank: CG iterations $(field pmg1 iterations), max error $(field pmg1 max_error); $(grep -E '^profile: p-MG level N' "$out/pmg1.log" | sed -E 's/^profile: p-MG level (N = +[0-9]+) +([0-9.]+ ms per cycle).*/\1 \2/' | paste -sd ';' -)"
  if [ -e "$out/pmg2-old.log" ]; then
    awk -v i1="$(field pmg2 iterations)" -v i2="$(field pmg2-old iterations)" -v m1="$(field pmg2 max_error)" \
        -v m2="$(field pmg2-old max_error)" 'function abs(x) { return x < 0 ? -x : x }
      BEGIN { ok = i1 != "" && i2 != "" && abs(i2 - i1) <= 1 && abs(m2 - m1) <= 1e-12
              printf "new path against old: CG iterations %s / %s, max error %s / %s: %s\n", i1, i2, m1, m2, ok ? "PASS" : "FAIL" }'
  fi
} > "$dest/dist6-summary.txt"
cat "$dest/dist6-summary.txt"
for f in one.json two.json curve.json; do [ -e "$out/$f" ] && cp "$out/$f" "$dest/$f"; done
tar czf "$dest/dist6.tgz" -C "$out" . && echo "results: $dest/dist6.tgz, $dest/dist6-summary.txt, one.json, two.json, curve.json"
