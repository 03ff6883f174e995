#!/usr/bin/env bash
# The main job's Poisson problem solved on 1, 2 and 4 MPI ranks (Open MPI, the Java CPU backend, z-slabs),
# checking that the distributed solves agree with the one-rank one: the same unknowns, CG iterations within ±1, and
# max/L2 errors within 1e-10 of the solution's size (|u|_max = 1, |u|_L2 = 2^(-3/2)).
#
#   parallel/mpi-test.sh                 # builds lobatto-parallel with a JDK 22+ first
#   parallel/mpi-test.sh --no-build      # uses parallel/target as it is
#   MPI_TEST_ARGS="-N 5 -e 4,4,8" parallel/mpi-test.sh   # another problem (default: the main job, -N 7 -e 6,6,6)
#   MPI_TEST_POCL=1 parallel/mpi-test.sh  # also 2 ranks sharing PoCL (the Aparapi backend, one OpenCL device per rank,
#                                         # overlapped exchange), checked against the Java backend's one-rank solve, and
#                                         # bitwise against the blocking exchange and the element-launch splits
# Also p-multigrid PCG (--pc pmg) on 1, 2 and 4 ranks: iterations within ±1, max errors within 1e-10, with the coarsest
# level solved whole on every rank (the default, --coarse redundant) and, on 2 ranks, across ranks (--coarse local) and
# with the paths before the partial residual and the coarse solve's device injections (--partial-residual off
# --coarse-link host); with MPI_TEST_POCL=1 also on 2 ranks sharing PoCL (new and old paths).
# And p-multigrid with one distributed h-level below N = 1 (--h-levels 1: each rank halves its slab, the whole h-coarse
# problem gathered) on 1, 2 and 4 ranks of 8x8x16 elements at N = 3: the levels line shows the h-level on every run,
# iterations within ±1, max and L2 errors within 1e-12.
#
# Needs Open MPI (apt-get install openmpi-bin libopenmpi-dev) and a JDK 22+ (JAVA22_HOME, default Temurin 25).
# Extra Maven arguments (e.g. -o -Dmaven.repo.local=...) come from MVN_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA22_HOME="${JAVA22_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
if [ ! -x "$JAVA22_HOME/bin/java" ]; then
  echo "mpi-test: no java in JAVA22_HOME=$JAVA22_HOME; set it to a JDK 22 or later" >&2; exit 2
fi
command -v mpirun >/dev/null || { echo "mpi-test: mpirun not found; install openmpi-bin libopenmpi-dev" >&2; exit 2; }
if [ "${1:-}" != "--no-build" ]; then
  # shellcheck disable=SC2086
  JAVA_HOME="$JAVA22_HOME" ./mvnw -B -q ${MVN_ARGS:-} -pl parallel -am package -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true
fi
CP="parallel/target/classes:$(cat parallel/target/classpath.txt)"
ARGS=(${MPI_TEST_ARGS:--N 7 -e 6,6,6})
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

run() { # ranks [name backend [extra arguments...]]
  local np=$1 name=${2:-np$1} backend=${3:-cpu}
  shift $(( $# < 3 ? $# : 3 ))
  local env=()
  # PoCL's LLVM replaces the JVM's signal handlers: the JDK's signal-chaining library keeps them
  [ "$backend" = cpu ] || env=(-x LD_PRELOAD="$JAVA22_HOME/lib/libjsig.so" -x LOBATTO_REQUIRE_OPENCL=1)
  if ! timeout 600 mpirun --allow-run-as-root --oversubscribe -np "$np" "${env[@]}" \
      "$JAVA22_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$CP" io.lobatto.parallel.DistributedPoisson \
      "${ARGS[@]}" --backend "$backend" "$@" >"$OUT/$name.txt" 2>&1; then
    echo "mpi-test: the $np-rank solve ($backend) failed:" >&2; cat "$OUT/$name.txt" >&2; exit 1
  fi
  cat "$OUT/$name.txt"
}
field() { # file key
  grep '^RESULT ' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

status=0
for np in 1 2 4; do
  run "$np"
done
runs="np2 np4"
# the lobatto command line under mpirun (lobatto-examples' shaded jar, Java 17 code, with this module on the class path):
# it finds the distributed solve through ServiceLoader; --pc jacobi, since the CLI's default is p-MG and the runs above are Jacobi
if [ -e examples/target/lobatto.jar ]; then
  if ! timeout 600 mpirun --allow-run-as-root --oversubscribe -np 2 "$JAVA22_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
      -cp "examples/target/lobatto.jar:parallel/target/classes" io.lobatto.examples.LobattoCli poisson "${ARGS[@]}" --pc jacobi \
      --backend cpu >"$OUT/cli2.txt" 2>&1; then
    echo "mpi-test: 'mpirun -np 2 lobatto poisson' failed:" >&2; cat "$OUT/cli2.txt" >&2; exit 1
  fi
  cat "$OUT/cli2.txt"
  runs="$runs cli2"
fi
# p-multigrid PCG across ranks (distributed levels, restriction and coarse solve): 1, 2 and 4 ranks agree
for np in 1 2 4; do
  run "$np" pmg$np cpu --pc pmg
done
run 2 pmg2local cpu --pc pmg --coarse local
# the paths before the partial residual and the coarse solve's device injections (A/B switches)
run 2 pmg2old cpu --pc pmg --partial-residual off --coarse-link host
pmgruns="pmg2 pmg4 pmg2local pmg2old"
# distributed h-levels (their own mesh: slabs of even layers at 1, 2 and 4 ranks)
for np in 1 2 4; do
  run "$np" hpmg$np cpu --pc pmg -N 3 -e 8,8,16 --h-levels 1
done
for np in 2 4; do
  name=hpmg$np
  if grep -q '1 h-level(s)' "$OUT/hpmg1.txt" && grep -q '1 h-level(s).*whole on every rank (63 DOFs)' "$OUT/$name.txt" \
    && awk -v i1="$(field "$OUT/hpmg1.txt" iterations)" -v in_="$(field "$OUT/$name.txt" iterations)" \
      -v m1="$(field "$OUT/hpmg1.txt" max_error)" -v mn="$(field "$OUT/$name.txt" max_error)" \
      -v l1="$(field "$OUT/hpmg1.txt" l2_error)" -v ln="$(field "$OUT/$name.txt" l2_error)" \
      -v c="$(field "$OUT/$name.txt" converged)" 'function abs(x) { return x < 0 ? -x : x }
      BEGIN { exit !(c == "true" && abs(in_ - i1) <= 1 && abs(mn - m1) <= 1e-12 && abs(ln - l1) <= 1e-12) }'; then
    echo "mpi-test: $name (p-multigrid, one h-level, $np ranks) vs 1: iterations $(field "$OUT/$name.txt" iterations)/$(field "$OUT/hpmg1.txt" iterations), max error $(field "$OUT/$name.txt" max_error)/$(field "$OUT/hpmg1.txt" max_error): PASS"
  else
    echo "mpi-test: $name (p-multigrid, one h-level, $np ranks) vs 1: FAIL" >&2
    grep -E '^(p-MG|RESULT)' "$OUT/hpmg1.txt" "$OUT/$name.txt" >&2
    status=1
  fi
done
if [ "${MPI_TEST_POCL:-0}" = 1 ]; then
  run 2 poclpmg2 aparapi --pc pmg
  run 2 poclpmg2old aparapi --pc pmg --partial-residual off --coarse-link host
  pmgruns="$pmgruns poclpmg2 poclpmg2old"
fi
for name in $pmgruns; do
  np=${name//[!0-9]/}
  i1="$(field "$OUT/pmg1.txt" iterations)"; in_="$(field "$OUT/$name.txt" iterations)"
  m1="$(field "$OUT/pmg1.txt" max_error)"; mn="$(field "$OUT/$name.txt" max_error)"
  if awk -v i1="$i1" -v in_="$in_" -v m1="$m1" -v mn="$mn" -v c="$(field "$OUT/$name.txt" converged)" \
      'function abs(x) { return x < 0 ? -x : x } BEGIN { exit !(c == "true" && abs(in_ - i1) <= 1 && abs(mn - m1) <= 1e-10) }'; then
    echo "mpi-test: $name (p-multigrid, $np ranks) vs 1: iterations $in_/$i1, max error $mn/$m1: PASS"
  else
    echo "mpi-test: $name (p-multigrid, $np ranks) vs 1: iterations $in_/$i1, max error $mn/$m1: FAIL" >&2
    status=1
  fi
done
if [ "${MPI_TEST_POCL:-0}" = 1 ]; then
  run 2 pocl2 aparapi
  runs="$runs pocl2"
  # the blocking exchange on the same kernels: bitwise the overlapped one (asynchronous boundary read and halo write)
  run 2 pocl2b aparapi --schedule blocking
  for key in iterations max_error l2_error; do
    if [ "$(field "$OUT/pocl2.txt" $key)" != "$(field "$OUT/pocl2b.txt" $key)" ]; then
      echo "mpi-test: pocl2 overlap vs blocking: $key $(field "$OUT/pocl2.txt" $key) vs $(field "$OUT/pocl2b.txt" $key): FAIL" >&2
      status=1
    fi
  done
  [ $status = 0 ] && echo "mpi-test: pocl2 overlap vs blocking: iterations and errors bitwise equal: PASS"
  # the splits of the overlapped element launch (pocl2: the default, part of the interior on a second kernel queue):
  # the one-queue split of 187584f and 20 interior elements on the second queue (the rest after the boundary gather) give
  # bitwise the same
  for split in serial alongside:20; do
    run 2 pocl2-$split aparapi --split "$split"
    bad=0
    for key in iterations max_error l2_error; do
      if [ "$(field "$OUT/pocl2.txt" $key)" != "$(field "$OUT/pocl2-$split.txt" $key)" ]; then
        echo "mpi-test: pocl2 split $split vs default: $key $(field "$OUT/pocl2-$split.txt" $key) vs $(field "$OUT/pocl2.txt" $key): FAIL" >&2
        status=1; bad=1
      fi
    done
    [ $bad = 0 ] && echo "mpi-test: pocl2 split $split vs default: iterations and errors bitwise equal: PASS"
  done
fi
for name in $runs; do
  np=${name//[!0-9]/}
  awk -v np="$np" \
      -v d1="$(field "$OUT/np1.txt" dofs)" -v dn="$(field "$OUT/$name.txt" dofs)" \
      -v i1="$(field "$OUT/np1.txt" iterations)" -v in_="$(field "$OUT/$name.txt" iterations)" \
      -v c="$(field "$OUT/$name.txt" converged)" \
      -v m1="$(field "$OUT/np1.txt" max_error)" -v mn="$(field "$OUT/$name.txt" max_error)" \
      -v l1="$(field "$OUT/np1.txt" l2_error)" -v ln="$(field "$OUT/$name.txt" l2_error)" -v name="$name" '
    function abs(x) { return x < 0 ? -x : x }
    BEGIN {
      ok = (dn == d1) && (c == "true") && abs(in_ - i1) <= 1 && abs(mn - m1) <= 1e-10 * 1 && abs(ln - l1) <= 1e-10 * 0.35355339059327373
      printf "mpi-test: %s (%d ranks) vs 1: dofs %d/%d, iterations %d/%d, max error %.6e/%.6e (diff %.1e, %.1e of the error), L2 error %.6e/%.6e (diff %.1e, %.1e of the error): %s\n",
        name, np, dn, d1, in_, i1, mn, m1, abs(mn - m1), abs(mn - m1) / m1, ln, l1, abs(ln - l1), abs(ln - l1) / l1, ok ? "PASS" : "FAIL"
      exit ok ? 0 : 1
    }' || status=1
done
exit $status
