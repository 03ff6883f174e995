#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, about 3.5 minutes (every step under its own timeout, at most 220 s in all):
#   1. one rank, 31^3 elements, N = 7, Jacobi: --profile (overlap, blocking, fused, exchange off; best of 3; launches
#      per iteration; kernel device times) and --profile-json one.json (the one-rank fit input of the model);
#   2. two ranks, 31x31x62 (10.1M DOFs per GPU, weak scaling), Jacobi: the same profile with the default split of the
#      overlapped element launch (alongside: 4 x the boundary elements on a second kernel queue beside the boundary
#      launch, its gather and copy), then each split of --profile-splits, best of 3 each, with its launches per
#      iteration: serial (the one-queue split of 187584f: the old path), alongside:all (the whole interior on the
#      second queue), alongside:1679 (the second queue's launch fills one wave of the device with the boundary: 2640
#      elements at 5 groups of 4 elements per SM on 132 SMs, BP3.5 N = 7 shared, 37.4 KB of local memory per group),
#      first:2640 (one queue, the first launch padded to that wave); --measure-network and the model fitted from
#      one.json and this run (--model), its curve to 1000 GPUs (--model-curve curve.json);
#   3. p-multigrid on one rank (31^3) and on two (31x31x62) with --profile: ms per iteration best of 3 (on two ranks
#      also with the levels below the fine one fused, blocking, and overlapped with the one-queue split: their interiors
#      are too small to hide the exchange, and the second queue costs them one launch more per apply),
#      and each level's time per V-cycle (levels timed), the coarse Chebyshev iterations;
#   4. where time is left (at most 165 s gone), p-multigrid on two ranks once more with the copies on the kernel queue
#      (-Dlobatto.opencl.copyQueue=false: the coarse levels' exchanges without the cross-queue hop), and (at most 185 s
#      gone) with the host polling for the boundary copy instead of blocking in clWaitForEvents
#      (-Dlobatto.opencl.spinWait=true; its network probe's "device read 8 B" is the latency that polling sees).
# Stage first, from the repository root on the build machine (the parallel module needs JDK 22+; its class path lists
# the installed jars of the other modules, so install those first):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   env -u LD_PRELOAD JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -pl parallel package -DskipTests \
#     -Dmaven.javadoc.skip=true
#   GPU_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ../shared/gpu/stage.sh \
#     parallel/target/lobatto-parallel-0.1.0-SNAPSHOT.jar $(tr ':' ' ' < parallel/target/classpath.txt)
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/dist4.sh (JAR= or CP= for another class path)
# Results: $OUT/dist4.tgz (every log, one.json, two.json, curve.json, times.log, nvidia-smi) and $OUT/dist4-summary.txt,
# plus $OUT/curve.json, $OUT/one.json and $OUT/two.json on their own (5 files).
# Local check on PoCL at a tiny size (two ranks sharing the CPU device):
#   J=/usr/lib/jvm/temurin-25-jdk-amd64; RUN="$J/bin/java" CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" \
#   ONE=3,3,3 TWO=3,3,6 N=3 XMX=2g SPLITS=serial,alongside:all,alongside:5,first:12 \
#   MPI_EXTRA="--oversubscribe -x LD_PRELOAD=$J/lib/libjsig.so -x LOBATTO_REQUIRE_OPENCL=1" OUT=/tmp/dist4 bash benchmarks/gpu/dist4.sh
set -u
dest=${OUT:-gpu-dist4}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
cp_=${CP:-${JAR:-.gpu/lib/*}}   # JAR= as in the other runbooks: the class path (a jar, or the staged jars' glob)
n=${N:-7}
one=${ONE:-31,31,31}
two=${TWO:-31,31,62}
splits=${SPLITS:-serial,alongside:all,alongside:1679,first:2640}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
# the rank's command, with the class path quoted (a glob for the JVM, not for the shell); p-noq.sh: copies on the kernel
# queue; p-spin.sh: the copies' waits poll
for v in p p-noq p-spin; do
  props=""
  [ $v = p-noq ] && props="-Dlobatto.opencl.copyQueue=false"
  [ $v = p-spin ] && props="-Dlobatto.opencl.spinWait=true"
  cat > "$out/$v.sh" <<P
#!/usr/bin/env bash
exec $run -Xmx${XMX:-60g} $props --enable-native-access=ALL-UNNAMED -cp '$cp_' io.lobatto.parallel.DistributedPoisson \
  --backend ${BACKEND:-aparapi} -N $n "\$@"
P
done
# mp SCRIPT NP TIMEOUT NAME ARGS...: DistributedPoisson on NP ranks under mpirun and timeout, output in $out/NAME.log
mp() {
  local script=$1 np=$2 t=$3 name=$4; shift 4
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout "$t" mpirun --allow-run-as-root -np "$np" --bind-to none ${MPI_EXTRA:-} bash "$out/$script.sh" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== dist4/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1 && nvidia-smi topo -m >> "$out/nvidia-smi.csv" 2>&1
mp p 1 50 jacobi1 -e "$one" --profile --profile-json "$out/one.json"
mp p 2 100 jacobi2 -e "$two" --model "$out/one.json" --model-curve "$out/curve.json" --profile-json "$out/two.json" \
  --profile-splits "$splits"
mp p 1 35 pmg1 -e "$one" --pc pmg --profile
mp p 2 35 pmg2 -e "$two" --pc pmg --profile
logs="jacobi1 jacobi2 pmg1 pmg2"
if [ $((SECONDS - start)) -le 165 ]; then
  mp p-noq 2 35 pmg2-noq -e "$two" --pc pmg --profile
  logs="$logs pmg2-noq"
else
  echo "== dist4/pmg2-noq: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
if [ $((SECONDS - start)) -le 185 ]; then
  mp p-spin 2 35 pmg2-spin -e "$two" --pc pmg --profile --measure-network
  logs="$logs pmg2-spin"
else
  echo "== dist4/pmg2-spin: skipped (at $((SECONDS - start)) s)" | tee -a "$out/times.log"
fi
echo "== dist4: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
# ms per iteration of a profile row: ms NAME PATTERN
ms() { grep -E "$2" "$out/$1.log" | head -1 | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/'; }
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for p in $logs; do
    echo "---- $p"
    grep -E '^(distributed poisson|setup|network|model|profile: (schedule|element|rank|p-MG)|RESULT)|^ +[0-9]+ +|rror|Exception|WARNING|SEVERE' \
      "$out/$p.log"
  done
  echo "---- weak-scaling efficiency per iteration (best 1-rank schedule over the 2-rank overlapped apply)"
  # the one-rank runs apply the fused operator in every schedule: their best row
  best1() { grep -E '^profile: schedule' "$out/$1.log" | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/' | sort -g | head -1; }
  j1=$(best1 jacobi1)
  p1=$(best1 pmg1)
  eff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.4f ms / %.4f ms = %.1f %%", a, b, 100 * a / b; else print "n/a" }'; }
  echo "jacobi, default split (alongside): $(eff "$j1" "$(ms jacobi2 '^profile: schedule overlap +exchange on .*split alongside$')")"
  for s in ${splits//,/ }; do
    echo "jacobi, split $s: $(eff "$j1" "$(ms jacobi2 "^profile: schedule overlap +exchange on .*split $s\$")")"
  done
  echo "p-MG, default split: $(eff "$p1" "$(ms pmg2 '^profile: schedule overlap +exchange on .*split alongside$')")"
  for c in fused blocking "overlap split serial"; do
    echo "p-MG, levels below the fine one $c: $(eff "$p1" "$(ms pmg2 "^profile: schedule overlap +exchange on .*coarse levels $c\$")")"
  done
  [ -e "$out/pmg2-noq.log" ] && echo "p-MG, copies on the kernel queue: $(eff "$p1" "$(ms pmg2-noq '^profile: schedule overlap +exchange on .*split alongside$')")"
  [ -e "$out/pmg2-spin.log" ] && echo "p-MG, copy waits polled: $(eff "$p1" "$(ms pmg2-spin '^profile: schedule overlap +exchange on .*split alongside$')")"
} > "$dest/dist4-summary.txt"
cat "$dest/dist4-summary.txt"
for f in one.json two.json curve.json; do [ -e "$out/$f" ] && cp "$out/$f" "$dest/$f"; done
tar czf "$dest/dist4.tgz" -C "$out" . && echo "results: $dest/dist4.tgz, $dest/dist4-summary.txt, one.json, two.json, curve.json"
