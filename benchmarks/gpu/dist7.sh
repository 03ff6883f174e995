#!/usr/bin/env bash
# Issues 27/30 on two GPUs (nvidia-h100-x2), one lease, about 2.5 minutes: the Chebyshev-Jacobi step folded into the
# residual update's gather (7aad308) against -Dlobatto.pmg.foldChebyshevStep=false, p-multigrid N = 7, weak scaling
# 31^3 on one rank -> 31x31x62 on two (10.1M DOFs per GPU), each --profile (its p-MG part runs the interleaved path A/B
# of dist6.sh). Stage and run as dist6.sh (COMMIT=<sha> bash benchmarks/gpu/dist7.sh). Results: $OUT/dist7.tgz and
# $OUT/dist7-summary.txt.
set -u
dest=${OUT:-gpu-dist7}
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
exec $run -Xmx${XMX:-60g} \${JOPTS:-} --enable-native-access=ALL-UNNAMED -cp '$cp_' io.lobatto.parallel.DistributedPoisson \
  --backend ${BACKEND:-aparapi} -N $n "\$@"
P
# mp NP TIMEOUT NAME ARGS...: DistributedPoisson on NP ranks under mpirun and timeout, output in $out/NAME.log
mp() {
  local np=$1 t=$2 name=$3; shift 3
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout "$t" mpirun --allow-run-as-root -np "$np" --bind-to none ${MPI_EXTRA:-} bash "$out/p.sh" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== dist7/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
for v in fold nofold; do
  if [ $v = nofold ]; then export JOPTS=-Dlobatto.pmg.foldChebyshevStep=false; else export JOPTS=; fi
  mp 1 30 pmg1-$v -e "$one" --pc pmg --profile
  mp 2 45 pmg2-$v -e "$two" --pc pmg --profile
done
echo "== dist7: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
ms() { grep -E "$2" "$out/$1.log" | head -1 | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/'; }
best() { grep -E "$2" "$out/$1.log" | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/' | sort -g | head -1; }
field() { grep '^RESULT ' "$out/$1.log" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
eff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.4f ms / %.4f ms = %.1f %%", a, b, 100 * a / b; else print "n/a" }'; }
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for v in fold nofold; do
    p1=$(best pmg1-$v '^profile: schedule .*exchange on')
    echo "---- $v: one rank best schedule row $p1 ms/iteration; CG $(field pmg1-$v iterations) its, max error $(field pmg1-$v max_error)"
    grep -E '^profile: p-MG level N' "$out/pmg1-$v.log" | sed -E 's/^profile: p-MG level (N = +[0-9]+) +([0-9.]+ ms per cycle).*/  one rank \1 \2/'
    echo "  two ranks, the run's own path, default schedules: $(eff "$p1" "$(ms pmg2-$v '^profile: schedule overlap +exchange on .*split alongside$')"); best schedule row: $(eff "$p1" "$(best pmg2-$v '^profile: schedule overlap +exchange on')")"
    echo "  two ranks, A/B in one process, new path: $(eff "$p1" "$(ms pmg2-$v '^profile: p-MG A/B new path \(')")"
    grep -E "^profile: p-MG (level N|device per V-cycle)" "$out/pmg2-$v.log" | sed -E 's/^profile: p-MG /  two ranks /'
    echo "  two ranks CG $(field pmg2-$v iterations) its, max error $(field pmg2-$v max_error)"
    grep -E "Exception|WARNING|SEVERE| error:" "$out/pmg1-$v.log" "$out/pmg2-$v.log" | head -3
  done
} > "$dest/dist7-summary.txt"
cat "$dest/dist7-summary.txt"
tar czf "$dest/dist7.tgz" -C "$out" . && echo "results: $dest/dist7.tgz, $dest/dist7-summary.txt"
