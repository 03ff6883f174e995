#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, about 2.5 minutes (every step under its own timeout, at most 225 s
# in all): the p-multigrid coarse level solved whole on every rank (redundant: one MPI_Allgatherv of the owned coarse
# right-hand side per V-cycle, then one rank's Chebyshev iterations on the whole p = 1 problem) against the old path
# (Chebyshev iterations across ranks, one halo exchange each), N = 7, weak scaling 31^3 -> 31x31x62 (10.1M DOFs per GPU):
#   1. one rank, 31^3, Jacobi: --profile --profile-json one.json (the model's one-rank input; Jacobi did not change);
#   2. two ranks, 31x31x62, Jacobi: --model one.json --model-curve curve.json --profile-json two.json (the fitted model);
#   3. one rank, 31^3, p-MG: --profile (best of 3 per schedule row; levels timed; on one rank the coarse path is the same);
#   4. two ranks, 31x31x62, p-MG, --coarse redundant (new) and --coarse local (old, as at 493feb7): --profile, best of 3
#      per row (the fine level overlapped; the levels below it overlapped, fused, blocking, serial), each level's ms per
#      V-cycle, and MPI calls per V-cycle (halo exchanges, allreduces, allgathers);
#   5. where time is left (at most 145 s gone), p-MG on one rank on the two-rank mesh 31x31x62 (20.2M DOFs on one GPU):
#      the one-rank CG iterations, coarse Chebyshev iterations and errors that the two-rank runs must give (±1, 1e-12);
#   6. where time is left (at most 185 s gone), the redundant run once more (the spread of the A/B).
# Stage first, from the repository root on the build machine (the parallel module needs JDK 22+; its class path lists
# the installed jars of the other modules, so install those first):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   env -u LD_PRELOAD JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -pl parallel package -DskipTests \
#     -Dmaven.javadoc.skip=true
#   GPU_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ../shared/gpu/stage.sh \
#     parallel/target/lobatto-parallel-0.1.0-SNAPSHOT.jar $(tr ':' ' ' < parallel/target/classpath.txt)
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/dist5.sh (JAR= or CP= for another
# class path; the device copy's git HEAD is stale, so the commit comes from COMMIT).
# Results: $OUT/dist5.tgz (every log, the JSON profiles, times.log, nvidia-smi) and $OUT/dist5-summary.txt, plus
# $OUT/one.json, $OUT/two.json and $OUT/curve.json on their own (5 files).
# Local check on PoCL at a tiny size (two ranks sharing the CPU device):
#   J=/usr/lib/jvm/temurin-25-jdk-amd64; RUN="$J/bin/java" CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" \
#   ONE=3,3,3 TWO=3,3,6 N=3 XMX=2g COMMIT=$(git rev-parse --short HEAD) \
#   MPI_EXTRA="--oversubscribe -x LD_PRELOAD=$J/lib/libjsig.so -x LOBATTO_REQUIRE_OPENCL=1" OUT=/tmp/dist5 bash benchmarks/gpu/dist5.sh
set -u
dest=${OUT:-gpu-dist5}
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
  echo "== dist5/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1 && nvidia-smi topo -m >> "$out/nvidia-smi.csv" 2>&1
mp 1 45 jacobi1 -e "$one" --profile --profile-json "$out/one.json"
mp 2 70 jacobi2 -e "$two" --model "$out/one.json" --model-curve "$out/curve.json" --profile-json "$out/two.json"
mp 1 30 pmg1 -e "$one" --pc pmg --profile --profile-json "$out/pmg1.json"
mp 2 35 pmg2-redundant -e "$two" --pc pmg --profile --coarse redundant --profile-json "$out/pmg2-redundant.json"
mp 2 35 pmg2-local -e "$two" --pc pmg --profile --coarse local --profile-json "$out/pmg2-local.json"
logs="jacobi1 jacobi2 pmg1 pmg2-redundant pmg2-local"
if [ $((SECONDS - start)) -le 145 ]; then
  mp 1 45 pmg1-two -e "$two" --pc pmg --profile
  logs="$logs pmg1-two"
else
  echo "== dist5/pmg1-two: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
if [ $((SECONDS - start)) -le 185 ]; then
  mp 2 35 pmg2-redundant-b -e "$two" --pc pmg --profile --coarse redundant
  logs="$logs pmg2-redundant-b"
else
  echo "== dist5/pmg2-redundant-b: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
echo "== dist5: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
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
  for v in redundant local redundant-b; do
    [ -e "$out/pmg2-$v.log" ] || continue
    echo "p-MG coarse $v, levels below the fine one overlapped: $(eff "$p1" "$(ms "pmg2-$v" '^profile: schedule overlap +exchange on .*split alongside$')")"
    for c in fused blocking "overlap split serial"; do
      echo "p-MG coarse $v, levels below the fine one $c: $(eff "$p1" "$(ms "pmg2-$v" "^profile: schedule overlap +exchange on .*coarse levels $c\$")")"
    done
    echo "p-MG coarse $v, best row: $(eff "$p1" "$(best "pmg2-$v" '^profile: schedule overlap +exchange on')")"
    echo "p-MG coarse $v: $(grep -E '^profile: p-MG MPI calls' "$out/pmg2-$v.log" | sed 's/^profile: //')"
    echo "p-MG coarse $v: coarse level $(grep -E '^profile: p-MG level N = +1 ' "$out/pmg2-$v.log" | sed -E 's/^profile: p-MG level N = +1 +([0-9.]+ ms per cycle).*/\1/'), CG iterations $(field "pmg2-$v" iterations), max error $(field "pmg2-$v" max_error)"
  done
  echo "p-MG one rank: coarse level $(grep -E '^profile: p-MG level N = +1 ' "$out/pmg1.log" | sed -E 's/^profile: p-MG level N = +1 +([0-9.]+ ms per cycle).*/\1/'), CG iterations $(field pmg1 iterations)"
  if [ -e "$out/pmg1-two.log" ]; then
    echo "---- the two-rank mesh on one rank against two ranks (CG iterations within 1, max error within 1e-12)"
    coarse() { grep -E '^profile: p-MG level N = +1 ' "$out/$1.log" | sed -E 's/.*coarse Chebyshev of ([0-9]+) iterations.*/\1/'; }
    i1=$(field pmg1-two iterations); m1=$(field pmg1-two max_error)
    echo "one rank: CG iterations $i1, coarse Chebyshev iterations $(coarse pmg1-two), max error $m1"
    for v in redundant local redundant-b; do
      [ -e "$out/pmg2-$v.log" ] || continue
      i2=$(field "pmg2-$v" iterations); m2=$(field "pmg2-$v" max_error)
      awk -v v="$v" -v i1="$i1" -v i2="$i2" -v m1="$m1" -v m2="$m2" -v c="$(coarse "pmg2-$v")" 'function abs(x) { return x < 0 ? -x : x }
        BEGIN { ok = i1 != "" && i2 != "" && abs(i2 - i1) <= 1 && abs(m2 - m1) <= 1e-12
                printf "two ranks, coarse %s: CG iterations %s, coarse Chebyshev iterations %s, max error %s (diff %.1e): %s\n", v, i2, c, m2, abs(m2 - m1), ok ? "PASS" : "FAIL" }'
    done
  fi
} > "$dest/dist5-summary.txt"
cat "$dest/dist5-summary.txt"
for f in one.json two.json curve.json; do [ -e "$out/$f" ] && cp "$out/$f" "$dest/$f"; done
tar czf "$dest/dist5.tgz" -C "$out" . && echo "results: $dest/dist5.tgz, $dest/dist5-summary.txt, one.json, two.json, curve.json"
