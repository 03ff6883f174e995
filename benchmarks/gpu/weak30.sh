#!/usr/bin/env bash
# Issue 30 on two GPUs (nvidia-h100-x2 or nvidia-h200-x2), one lease, at most about 9 minutes: weak scaling from one
# GPU to two at N = 7 per GPU size, rank 0's device time by p-MG level beside it (scope30.sh, run once per part):
#   pmg64: p-multigrid, 64^3 on one rank against 64x64x128 on two (89.9M DOFs per GPU);
#   jac64: Jacobi PCG, the same sizes, 100 CG iterations (--max-it: a timing run, not converged);
#   pmg48: p-multigrid, 48^3 against 48x48x96 (37.6M DOFs per GPU; scope30.sh's own size, 92.3 % at ce48d78).
# The per-iteration times are the --profile rows (rows interleaved, best of 3 rounds); the efficiency is one rank's
# "schedule overlap exchange on" row over two ranks'. A part whose expected time would end past BUDGET (s) is skipped.
# Stage as scope30.sh (the parallel module's jar and its class path, JDK 25; scala-library removed from .gpu/lib), then
# on the GPU machine (carry .gpu), from the repository root: COMMIT=<sha> bash benchmarks/gpu/weak30.sh
# (PARTS="pmg64 jac64 pmg48" by default.)
# Results: $OUT/weak30.tgz (each part's scope30 tarball and summary) and $OUT/weak30-summary.txt (every part's summary
# and the efficiencies).
# Local check on PoCL at a tiny size:
#   J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; RUN="env LD_PRELOAD=/usr/lib/jvm/temurin-25-jdk-amd64/lib/libjsig.so $J" \
#   CP="parallel/target/classes:$(cat parallel/target/classpath.txt)" SIZES="4 3 3" XMX=2g MPI_EXTRA=--oversubscribe \
#   COMMIT=$(git rev-parse --short HEAD) OUT=/tmp/weak30 bash benchmarks/gpu/weak30.sh
set -u
dest=${OUT:-gpu-weak30}
commit=${COMMIT:-unknown}
budget=${BUDGET:-540}
read -r big jac small <<< "${SIZES:-64 64 48}"
work=$(mktemp -d)
mkdir -p "$dest"
start=$SECONDS
eff() { # SUMMARY: one rank's first overlap row (before its RESULT line) over two ranks' first (after it)
  awk '/^RESULT/ { k++ } /^profile: schedule overlap +exchange on/ && !((k + 1) in t) {
         for (i = 1; i <= NF; i++) if ($i == "ms/iteration") t[k + 1] = $(i - 1) }
       END { if (t[1] && t[2]) printf "one rank %.4f ms, two ranks %.4f ms per CG iteration: %.1f %%\n", t[1], t[2], 100 * t[1] / t[2];
             else print "(no pair of rows)" }' "$1"
}
part() { # NAME EXPECTED_S T1 T2 SIZE PC ARGS XMX1 XMX2
  local name=$1 est=$2 t1=$3 t2=$4 n=$5 pc=$6 args=$7 gone=$((SECONDS - start))
  if [ $((gone + est)) -gt "$budget" ]; then
    echo "== weak30/$name: skipped (at $gone s, expected $est s, budget $budget s)" | tee -a "$work/times.log"
    return
  fi
  local t0=$SECONDS
  mkdir -p "$work/$name"
  # one rank, then two (scope30.sh runs both with the same XMX; the two-rank run takes the smaller heap per rank)
  OUT="$work/$name" L1="$n,$n,$n" L2="$n,$n,$((2 * n))" T1=$t1 T2=$t2 PC=$pc ARGS1="$args" ARGS2="$args" \
    XMX=${XMX:-80g} bash benchmarks/gpu/scope30.sh > "$work/$name/stdout.log" 2>&1
  echo "== weak30/$name: $((SECONDS - t0)) s; $(eff "$work/$name/scope30-summary.txt")" | tee -a "$work/times.log"
}
echo "commit $commit" > "$work/times.log"
for p in ${PARTS:-pmg64 jac64 pmg48}; do
  case $p in
    pmg64) part pmg64 270 150 190 "$big" pmg "" ;;
    jac64) part jac64 330 150 175 "$jac" jacobi "--max-it 100" ;;
    pmg48) part pmg48 120 70 90 "$small" pmg "" ;;
    *) echo "weak30: unknown part $p" | tee -a "$work/times.log" ;;
  esac
done
{
  cat "$work/times.log"
  for p in pmg64 jac64 pmg48; do
    [ -f "$work/$p/scope30-summary.txt" ] && { echo "---- $p"; cat "$work/$p/scope30-summary.txt"; }
  done
} > "$dest/weak30-summary.txt"
cat "$dest/weak30-summary.txt"
tar -czf "$dest/weak30.tgz" -C "$work" .
