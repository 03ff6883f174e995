#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2), one lease, at most about 6 minutes: weak scaling from one GPU to two at two
# sizes per GPU, N = 7, every run with --profile, whose schedule rows now run interleaved (one solve of every row per
# round, best of 3 rounds; fa14bd5), so the run's own default row is no longer the first and slowest of a fixed order:
#   1. p-multigrid, 31^3 on one rank -> 31x31x62 on two (10.1M DOFs per GPU), as dist7.sh;
#   2. p-multigrid, 48^3 -> 48x48x96 (37.6M DOFs per GPU);
#   3. Jacobi PCG at 48^3 -> 48x48x96, 300 CG iterations (--max-it: a timing run, not converged), the two-rank run with
#      the scaling model fitted from the one-rank profile (--model, --model-curve);
#   4. where at most 300 s are gone: Jacobi at 31^3 -> 31x31x62 (converged, with the model), as dist6.sh.
# Stage as dist6.sh (the parallel module's jar and its class path, JDK 25) and run from the repository root on the GPU
# machine: COMMIT=<sha> bash benchmarks/gpu/dist8.sh. Results: $OUT/dist8.tgz and $OUT/dist8-summary.txt.
set -u
dest=${OUT:-gpu-dist8}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
cp_=${CP:-${JAR:-.gpu/lib/*}}   # the class path (a jar, or the staged jars' glob)
n=${N:-7}
s1=${S1:-31,31,31}; s2=${S2:-31,31,62}
l1=${L1:-48,48,48}; l2=${L2:-48,48,96}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out" "$dest"
start=$SECONDS
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
  echo "== dist8/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1
mp 1 45 pmg1-s -e "$s1" --pc pmg --profile
mp 2 60 pmg2-s -e "$s2" --pc pmg --profile
mp 1 100 pmg1-l -e "$l1" --pc pmg --profile
mp 2 150 pmg2-l -e "$l2" --pc pmg --profile
mp 1 80 jac1-l -e "$l1" --pc jacobi --max-it 300 --profile --profile-json "$out/one-l.json"
mp 2 100 jac2-l -e "$l2" --pc jacobi --max-it 300 --model "$out/one-l.json" --model-curve "$out/curve-l.json" --profile-json "$out/two-l.json"
if [ $((SECONDS - start)) -le 300 ]; then
  mp 1 45 jac1-s -e "$s1" --pc jacobi --profile --profile-json "$out/one-s.json"
  mp 2 70 jac2-s -e "$s2" --pc jacobi --model "$out/one-s.json" --model-curve "$out/curve-s.json" --profile-json "$out/two-s.json"
fi
echo "== dist8: $((SECONDS - start)) s in all" | tee -a "$out/times.log"
ms() { grep -E "$2" "$out/$1.log" | head -1 | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/'; }
best() { grep -E "$2" "$out/$1.log" | sed -E 's/.* ([0-9.]+) ms\/iteration.*/\1/' | sort -g | head -1; }
field() { grep '^RESULT ' "$out/$1.log" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
eff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.4f ms / %.4f ms = %.1f %%", a, b, 100 * a / b; else print "n/a" }'; }
{
  cat "$out/times.log"
  [ -e "$out/nvidia-smi.csv" ] && head -3 "$out/nvidia-smi.csv"
  for c in pmg-s pmg-l jac-l jac-s; do
    a=${c%-*}1-${c#*-}; b=${c%-*}2-${c#*-}
    [ -e "$out/$a.log" ] || continue
    p1=$(ms "$a" '^profile: schedule overlap +exchange on')   # one rank: no split, the first overlap row is the default
    echo "---- $c: one rank $p1 ms/iteration (default row; best row $(best "$a" '^profile: schedule .*exchange on')); CG $(field "$a" iterations) its, max error $(field "$a" max_error), DOFs $(field "$a" dofs)"
    grep -E '^profile: p-MG level N' "$out/$a.log" | sed -E 's/^profile: p-MG level (N = +[0-9]+) +([0-9.]+ ms per cycle).*/  one rank \1 \2/'
    echo "  two ranks, default row: $(eff "$p1" "$(ms "$b" '^profile: schedule overlap +exchange on .*split alongside$')"); best row: $(eff "$(best "$a" '^profile: schedule .*exchange on')" "$(best "$b" '^profile: schedule overlap +exchange on')")"
    grep -E '^profile: schedule' "$out/$b.log" | sed -E 's/\(per iteration.*\)//; s/^profile: /  two ranks /'
    grep -E '^profile: p-MG A/B new path \(' "$out/$b.log" | sed 's/^profile: /  two ranks /'
    grep -E "^profile: p-MG (level N|device per V-cycle)" "$out/$b.log" | sed -E 's/^profile: p-MG /  two ranks /'
    grep -E '^model' "$out/$b.log" | head -4 | sed 's/^/  /'
    echo "  two ranks CG $(field "$b" iterations) its, max error $(field "$b" max_error), DOFs $(field "$b" dofs)"
    grep -E "Exception|WARNING|SEVERE| error:" "$out/$a.log" "$out/$b.log" | head -3
  done
} > "$dest/dist8-summary.txt"
cat "$dest/dist8-summary.txt"
tar czf "$dest/dist8.tgz" -C "$out" . && echo "results: $dest/dist8.tgz, $dest/dist8-summary.txt"
