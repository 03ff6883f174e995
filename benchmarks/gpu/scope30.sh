#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2 or nvidia-h200-x2), one lease, about 2.5 minutes: where two ranks spend more
# device time than one, per p-MG level. p-multigrid at N = 7, 48^3 on one rank against 48x48x96 on two (37.6M DOFs per
# GPU), the default schedule, --profile; since df932de the kernel list names each level's launches "p-MG L<l> N=<degree> |
# kernel" (Backend.profileScope), so the two runs' lists can be set side by side per level.
# Stage as dist9.sh (the parallel module's jar and its class path, JDK 25), then on the GPU machine (carry .gpu), from
# the repository root: COMMIT=<sha> bash benchmarks/gpu/scope30.sh
# Results: $OUT/scope30.tgz (both logs, nvidia-smi) and $OUT/scope30-summary.txt: per scope (level or CG) the device
# time per CG iteration of rank 0 on one and on two ranks, and each kernel's difference where it is at least 20 us.
# Other sizes and preconditioners (weak30.sh): L1/L2 the element grids, T1/T2 their timeouts in seconds, PC (pmg),
# ARGS1/ARGS2 more arguments of each run (e.g. --max-it 100), XMX the heap of each rank.
set -u
dest=${OUT:-gpu-scope30}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
run=${RUN:-bash .gpu/run}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$dest"
cat > "$out/p.sh" <<P
#!/usr/bin/env bash
exec $run -Xmx${XMX:-60g} --enable-native-access=ALL-UNNAMED -cp '${CP:-.gpu/lib/*}' io.lobatto.parallel.DistributedPoisson \
  --backend ${BACKEND:-aparapi} -N ${N:-7} ${EXTRA:-} "\$@"
P
mp() { # NP TIMEOUT NAME ARGS...
  local np=$1 t=$2 name=$3 t0=$SECONDS; shift 3
  timeout "$t" mpirun --allow-run-as-root -np "$np" --bind-to none ${MPI_EXTRA:-} bash "$out/p.sh" "$@" > "$out/$name.log" 2>&1
  echo "== scope30/$name: $((SECONDS - t0)) s, exit $?" | tee -a "$out/times.log"
}
echo "commit $commit" > "$out/times.log"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$out/nvidia-smi.csv" 2>&1
mp 1 "${T1:-110}" pmg1 -e "${L1:-48,48,48}" --pc "${PC:-pmg}" ${ARGS1:-} --profile
mp 2 "${T2:-140}" pmg2 -e "${L2:-48,48,96}" --pc "${PC:-pmg}" ${ARGS2:-} --profile
kernels() { # LOG: "scope<TAB>kernel<TAB>us" per profiled kernel
  sed -n 's/^profile: kernel \(.*[^ ]\) \+\([0-9.]*\) us per iteration, \([0-9.]*\) launches.*/\1\t\2\t\3/p' "$1" |
    awk -F'\t' '{ n = split($1, a, " [|] "); s = n > 1 ? a[1] : "CG (no level)"; k = n > 1 ? a[2] : a[1]; print s "\t" k "\t" $2 "\t" $3 }'
}
{
  cat "$out/times.log"; cat "$out/nvidia-smi.csv" 2>/dev/null
  grep -h -E '^profile: schedule overlap +exchange on|^RESULT' "$out/pmg1.log" "$out/pmg2.log" 2>/dev/null
  kernels "$out/pmg1.log" > "$out/k1.tsv"; kernels "$out/pmg2.log" > "$out/k2.tsv"
  echo "-- rank 0's device time per CG iteration by scope, us: one rank / two ranks / difference"
  awk -F'\t' 'FNR == NR { a[$1] += $3; next } { b[$1] += $3 } END { for (s in a) u[s]; for (s in b) u[s];
    for (s in u) printf "%-28s %10.1f %10.1f %+9.1f\n", s, a[s], b[s], b[s] - a[s] }' "$out/k1.tsv" "$out/k2.tsv" | sort
  echo "-- kernels whose time per iteration differs by 20 us or more: scope, kernel, one rank (launches) / two ranks (launches)"
  awk -F'\t' 'FNR == NR { a[$1 "\t" $2] = $3; la[$1 "\t" $2] = $4; next } { b[$1 "\t" $2] = $3; lb[$1 "\t" $2] = $4 }
    END { for (k in a) u[k]; for (k in b) u[k]; for (k in u) { d = b[k] - a[k]; if (d >= 20 || d <= -20) {
      split(k, p, "\t"); printf "%-28s %-36s %9.1f (%5.2f) / %9.1f (%5.2f) %+9.1f\n", p[1], p[2], a[k], la[k], b[k], lb[k], d } } }' \
    "$out/k1.tsv" "$out/k2.tsv" | sort
} > "$dest/scope30-summary.txt" 2>&1
cat "$dest/scope30-summary.txt"
tar -czf "$dest/scope30.tgz" -C "$out" .
