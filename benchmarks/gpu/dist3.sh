#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, about 2.5 minutes (every step under its own timeout, 240 s in all):
#   1. one rank, 31^3 elements, N = 7, Jacobi: --profile (overlap, blocking, fused, exchange off; best of 3; launches
#      per iteration; kernel device times) and --profile-json one.json (the one-rank fit input of the model);
#   2. two ranks, 31x31x62 (10.1M DOFs per GPU, weak scaling), Jacobi: the same profile, --measure-network
#      (pairwise exchange, 8-byte Allreduce, device read, launch), the scaling model fitted from one.json and this run
#      (--model: its prediction beside the measurement) and its curve to 1000 GPUs (--model-curve curve.json);
#   3. p-multigrid once on one rank (31^3) and once on two (31x31x62).
# Stage first, from the repository root on the build machine (the parallel module needs JDK 22+; its class path lists
# the installed jars of the other modules, so install those first):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   env -u LD_PRELOAD JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -pl parallel package -DskipTests \
#     -Dmaven.javadoc.skip=true
#   GPU_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ../shared/gpu/stage.sh \
#     parallel/target/lobatto-parallel-0.1.0-SNAPSHOT.jar $(tr ':' ' ' < parallel/target/classpath.txt)
# Run on the GPU machine from the repository root: COMMIT=<sha> bash benchmarks/gpu/dist3.sh
# Results: $OUT/dist3.tgz (every log, one.json, two.json, curve.json, times.log, nvidia-smi) and $OUT/dist3-summary.txt,
# plus $OUT/curve.json, $OUT/one.json and $OUT/two.json on their own (5 files).
# Local check on PoCL at a tiny size (two ranks sharing the CPU device):
#   J=/usr/lib/jvm/temurin-25-jdk-amd64; RUN="$J/bin/java" CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" \
#   ONE=3,3,3 TWO=3,3,6 N=3 XMX=2g MPI_EXTRA="--oversubscribe -x LD_PRELOAD=$J/lib/libjsig.so -x LOBATTO_REQUIRE_OPENCL=1" \
#   OUT=/tmp/dist3 bash benchmarks/gpu/dist3.sh
set -u
dest=${OUT:-gpu-dist3}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
cp_=${CP:-.gpu/lib/*}
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
  echo "== dist3/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1 && nvidia-smi topo -m >> "$out/nvidia-smi.csv" 2>&1
mp 1 60 jacobi1 -e "$one" --profile --profile-json "$out/one.json"
mp 2 100 jacobi2 -e "$two" --model "$out/one.json" --model-curve "$out/curve.json" --profile-json "$out/two.json"
mp 1 40 pmg1 -e "$one" --pc pmg
mp 2 40 pmg2 -e "$two" --pc pmg
echo "== dist3: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for p in jacobi1 jacobi2 pmg1 pmg2; do
    echo "---- $p"
    grep -E '^(distributed poisson|setup|network|model|profile: (schedule|element|rank)|RESULT)|^ +[0-9]+ +|rror|Exception|WARNING|SEVERE' \
      "$out/$p.log"
  done
} > "$dest/dist3-summary.txt"
cat "$dest/dist3-summary.txt"
for f in one.json two.json curve.json; do [ -e "$out/$f" ] && cp "$out/$f" "$dest/$f"; done
tar czf "$dest/dist3.tgz" -C "$out" . && echo "results: $dest/dist3.tgz, $dest/dist3-summary.txt, one.json, two.json, curve.json"
