#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, at most about 7 minutes (each run under its own timeout; a budget
# that skips a run whose expected time would end past it): p-multigrid with distributed h-levels below N = 1 (each rank
# halves its z-slab, the h-level's operator across ranks, the redundant coarse solve on the whole h-coarsened problem)
# against the coarse level at N = 1 of the fine mesh (--h-levels 0: the redundant coarse solve of 581e450's dist8.sh),
# weak scaling from one GPU to two, N = 7, every run with --profile (schedule rows interleaved, best of 3; each level's
# time, MPI calls, launches per V-cycle; the coarse link's host time):
#   1. 48^3 -> 48x48x96 (37.6M DOFs per GPU): the new default (--h-levels auto, --gather-max 100000: one h-level, the
#      whole coarse problem 24x24x48 at N = 1, 24,863 unknowns on two ranks, 12,167 on one) and --h-levels 0 (the whole
#      N = 1 problem: 209,855 and 103,823 unknowns), interleaved: one rank new, one rank N = 1, two ranks new, two ranks
#      N = 1;
#   2. Jacobi PCG at 48^3 -> 48x48x96, 100 CG iterations (--max-it: a timing run, not converged), the lease's baseline
#      (dist8: 99.0 %);
#   3. 32^3 -> 32x32x64 (11.1M DOFs per GPU; 31 is odd, so 32): the new default, which has no h-level at this size
#      (the whole N = 1 problem has 29,791 and 60,543 unknowns, below the gather size), against one h-level
#      (--h-levels 1: 16x16x32 whole, 6,975 unknowns), interleaved as in 1.
# Stage as dist6.sh (the parallel module's jar and its class path, JDK 25):
#   ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true
#   env -u LD_PRELOAD JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -o -pl parallel package -DskipTests \
#     -Dmaven.javadoc.skip=true
#   GPU_JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ../shared/gpu/stage.sh \
#     parallel/target/lobatto-parallel-0.1.0-SNAPSHOT.jar $(tr ':' ' ' < parallel/target/classpath.txt)
# Run on the GPU machine (carry .gpu) from the repository root: COMMIT=<sha> bash benchmarks/gpu/dist9.sh
# (PARTS="large jacobi small" by default; e.g. PARTS=small runs only part 3).
# Results: $OUT/dist9.tgz (every log, times.log, nvidia-smi) and $OUT/dist9-summary.txt.
# Local check on the Java backend at a tiny size (EXTRA reaches every run; a small gather size makes auto coarsen):
#   J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; RUN=$J CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" \
#   BACKEND=cpu N=3 S1=8,8,8 S2=8,8,16 L1=8,8,8 L2=8,8,16 XMX=2g EXTRA="--threads 1 --gather-max 400" \
#   MPI_EXTRA=--oversubscribe COMMIT=$(git rev-parse --short HEAD) OUT=/tmp/dist9 bash benchmarks/gpu/dist9.sh
set -u
dest=${OUT:-gpu-dist9}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
cp_=${CP:-${JAR:-.gpu/lib/*}}   # the class path (a jar, or the staged jars' glob)
n=${N:-7}
s1=${S1:-32,32,32}; s2=${S2:-32,32,64}
l1=${L1:-48,48,48}; l2=${L2:-48,48,96}
budget=${BUDGET:-400}   # seconds: a run whose expected time would end past it is skipped
cap=${CAP:-430}         # seconds: no run's timeout reaches past it
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
cat > "$out/p.sh" <<P
#!/usr/bin/env bash
exec $run -Xmx${XMX:-60g} --enable-native-access=ALL-UNNAMED -cp '$cp_' io.lobatto.parallel.DistributedPoisson \
  --backend ${BACKEND:-aparapi} -N $n ${EXTRA:-} "\$@"
P
# mp NP EXPECTED TIMEOUT NAME ARGS...: DistributedPoisson on NP ranks under mpirun and timeout, output in $out/NAME.log;
# skipped where EXPECTED seconds from now would end past the budget
mp() {
  local np=$1 est=$2 t=$3 name=$4; shift 4
  local t0=$SECONDS gone=$((SECONDS - start))
  if [ $((gone + est)) -gt "$budget" ]; then
    echo "== dist9/$name: skipped (at $gone s, expected $est s, budget $budget s)" | tee -a "$out/times.log"
    return
  fi
  [ $((gone + t)) -gt "$cap" ] && t=$((cap - gone))
  # shellcheck disable=SC2086
  timeout "$t" mpirun --allow-run-as-root -np "$np" --bind-to none ${MPI_EXTRA:-} bash "$out/p.sh" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== dist9/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
# 1. 48: new default against the N = 1 coarse level, interleaved
parts=" ${PARTS:-large jacobi small} "   # PARTS: which of the three parts run (in this order)
if [[ $parts == *" large "* ]]; then
mp 1 50 100 pmg1-l-new -e "$l1" --pc pmg --profile
mp 1 45 100 pmg1-l-n1 -e "$l1" --pc pmg --profile --h-levels 0
mp 2 70 130 pmg2-l-new -e "$l2" --pc pmg --profile
mp 2 65 130 pmg2-l-n1 -e "$l2" --pc pmg --profile --h-levels 0
fi
# 2. the lease's Jacobi baseline
if [[ $parts == *" jacobi "* ]]; then
mp 1 35 70 jac1-l -e "$l1" --pc jacobi --max-it 100 --profile
mp 2 40 80 jac2-l -e "$l2" --pc jacobi --max-it 100 --profile
fi
# 3. 32: new default (no h-level at this size) against one h-level, interleaved
if [[ $parts == *" small "* ]]; then
mp 1 20 50 pmg1-s-new -e "$s1" --pc pmg --profile
mp 1 22 50 pmg1-s-h1 -e "$s1" --pc pmg --profile --h-levels 1
mp 2 25 60 pmg2-s-new -e "$s2" --pc pmg --profile
mp 2 27 60 pmg2-s-h1 -e "$s2" --pc pmg --profile --h-levels 1
fi
echo "== dist9: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
ms() { [ -e "$out/$1.log" ] && grep -E "$2" "$out/$1.log" | head -1 | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/'; }
field() { [ -e "$out/$1.log" ] && grep '^RESULT ' "$out/$1.log" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
eff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.4f ms / %.4f ms = %.1f %%", a, b, 100 * a / b; else print "n/a" }'; }
one() { ms "$1" '^profile: schedule overlap +exchange on'; }                      # one rank: the first overlap row
two() { ms "$1" '^profile: schedule overlap +exchange on .*split alongside$'; }   # two ranks: the default row
# levels LOG WHO: the levels line, each level's ms per V-cycle, MPI calls and launches per V-cycle, the coarse link
levels() {
  [ -e "$out/$1.log" ] || { echo "  $2: no log"; return; }
  grep -E '^p-MG' "$out/$1.log" | sed "s/^/  $2 /"
  grep -E '^profile: p-MG (level N|MPI calls|device per V-cycle|coarse link|exchanges of level)' "$out/$1.log" \
    | sed -E "s/^profile: p-MG /  $2 /; s/ \(max over ranks[^)]*\)//"
  echo "  $2 CG $(field "$1" iterations) its, converged $(field "$1" converged), max error $(field "$1" max_error), L2 error $(field "$1" l2_error), DOFs $(field "$1" dofs)"
  grep -E "Exception|WARNING|SEVERE| error:|distributed-poisson:" "$out/$1.log" | head -3 | sed "s/^/  $2 /"
}
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for c in l s; do
    size=$([ $c = l ] && echo "$l1 -> $l2" || echo "$s1 -> $s2")
    other=$([ $c = l ] && echo n1 || echo h1)
    echo "---- p-MG $size, N = $n: ms per CG iteration (default row), efficiency one rank / two ranks"
    for v in new $other; do
      a=pmg1-$c-$v; b=pmg2-$c-$v
      echo "  $v: $(eff "$(one "$a")" "$(two "$b")")"
    done
    echo "  two ranks new against the faster one-rank run: $(eff "$(printf '%s\n' "$(one pmg1-$c-new)" "$(one pmg1-$c-$other)" | grep . | sort -g | head -1)" "$(two pmg2-$c-new)")"
    for v in new $other; do
      levels "pmg1-$c-$v" "one rank $v:"
      levels "pmg2-$c-$v" "two ranks $v:"
    done
  done
  echo "---- Jacobi $l1 -> $l2 (100 iterations): $(eff "$(one jac1-l)" "$(two jac2-l)")"
  grep -E '^profile: schedule' "$out/jac2-l.log" 2>/dev/null | sed -E 's/\(per iteration.*\)//; s/^profile: /  two ranks /'
} > "$dest/dist9-summary.txt"
cat "$dest/dist9-summary.txt"
tar czf "$dest/dist9.tgz" -C "$out" . && echo "results: $dest/dist9.tgz, $dest/dist9-summary.txt"
