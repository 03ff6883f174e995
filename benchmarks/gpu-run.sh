#!/usr/bin/env bash
# Runs the benchmark suites on a GPU machine that has no JDK or Maven: build the jars here, then stage
# benchmarks/target/lobatto-bench.jar and examples/target/lobatto.jar into .gpu/lib/ (ignored by git) with a
# Java runtime in .gpu/jre (e.g. jlink --add-modules java.base,java.logging,java.management,jdk.unsupported)
# and a .gpu/run launcher, and copy the repository with .gpu/ to the GPU machine.
# Usage: COMMIT=<sha> bash benchmarks/gpu-run.sh [part], each part under the device tool's 10 minutes: the timeouts of
# a part's commands add up to at most 570 s, every lobatto-bench sweep gets --time-limit (its timeout less 20 s) so that
# it stops starting points it could not finish and writes its JSON with "cut": true and the last completed row (a
# command killed by its timeout leaves the JSON of the rows it completed, also "cut": true), and every command and part
# prints its elapsed time (also in $OUT/<part>.tgz: times.log):
#   kernels  SelfCheck (correctness first, buffers above 2^31 bytes) + launch + bs + bk BK1, BK3 (~7 min)
#   kernels-bk5  bk BK5, N = 1..15 (one part of its own: at 9c68c10 one bk sweep of all three was cut before BK5)  (~2 min)
#   solves   op (y_G = A x_G, 8M DOFs), N = 1..11, + bp (CG, 8M DOFs), N = 1..10, + nekbone               (~7 min)
#   solves-high  op at N = 12..15 and bp at N = 11..15 (at 9c68c10 one sweep over N = 1..15 was cut before N = 12)  (~6 min)
#   size     the README's main job at 32^3 elements twice (setup with a warm build cache, --profile),
#            then a BP3.5 Poisson solve at N = 7 with 67^3 elements (102.5M DOFs)             (~5 min)
#   pmg      lobatto-bench solve: p-multigrid against Jacobi PCG, time to solution, at
#            N = 7 on 32^3 elements (11.1M DOFs, deformed, 2 interleaved rounds) and 30^3 (Kershaw
#            0.3); then the main job with its default --pc pmg at 32^3                      (~6 min)
#   pmg-sweep  the same over N = 3..15 on 8^3 (deformed) and 12^3 (Kershaw, N = 3, 7, 11, 15) (~8 min)
#   pointwise  the user operators' general path: bk for BK1/BK3/BK5 specialised and general (pointwise functions, with the
#            general/specialised time ratio), N = 1..15, 20M DOFs (90 points, >= 3 s warm-up each)  (~7 min, estimate)
#   pointwise-vector  bk for the 3-component BK2/BK4/BK6, N = 1..15, 20M DOFs; bp (CG, 8M DOFs) for BP1/BP3/BP5,
#            BP5-general and BP2/BP4/BP6 at N = 3, 5, 7; the lobatto diffusion and elasticity tables  (~8 min, estimate)
#   onfly    BP5 with stored factors against factors computed on the fly (trilinear box), N = 2..8: op (8M DOFs) and bp
#            (CG, 8M DOFs), one row each per N on the same mesh; kernel-info of the BP3.5 kernels at N = 7
#            (registers, spills)                                                              (~6 min, estimate)
#   profile  Nsight Compute on the BP3.5 one-kernel operator at NS=2,3,5,7 through its PTX (ptxprof26.sh; needs the
#            machine's CUDA toolkit, CuPy and ncu: the H100/H200 images have them)                    (~1.5 min)
# Built kernels are cached in $LOBATTO_CACHE_DIR (/tmp/lobatto-cache here), so later parts of one
# lease reuse them. Everything of a part lands in one file, $OUT/<part>.tgz (the device tool returns at most 8 files).
set -u
part=${1:-kernels}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=.gpu/lib/lobatto-bench.jar
# the lobatto CLI: its own jar when staged, else from the bench jar, which holds the examples' classes (both jars
# together no longer fit the 64 MiB the device tool carries)
if [ -e .gpu/lib/lobatto.jar ]; then app=(-jar .gpu/lib/lobatto.jar); else app=(-cp "$jar" io.lobatto.examples.LobattoCli); fi
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$out"
part_start=$SECONDS
# timed NAME CMD...: runs CMD, then prints (and logs to times.log) its elapsed seconds and exit status (124: timed out)
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== $part/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), part at $((SECONDS - part_start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
# JOPTS: extra JVM options, e.g. JOPTS=-Dlobatto.aparapi.elementGroup=1024 for an A/B run
# j TIMEOUT SUITE ARGS...: lobatto-bench SUITE under timeout, its sweep limited to TIMEOUT - 20 s
j() { local t=$1; shift; timeout "$t" bash .gpu/run -Xmx60g ${JOPTS:-} -jar "$jar" "$@" -b aparapi -o "$out" --commit "$commit" \
  --time-limit $((t - 20)); }
case "$part" in
  kernels)
    timed selfcheck timeout 120 bash .gpu/run -Xmx16g ${JOPTS:-} -cp "$jar" io.lobatto.backend.aparapi.SelfCheck 2>&1 | tee "$out/selfcheck.log" | grep -v '^PASS'
    timed launch j 60 launch --reps 15 2>&1 | tee "$out/launch.log"
    timed bs j 150 bs --max-bytes 2000000000 --gs-nodes 16000000 --reps 6 2>&1 | tee "$out/bs.log"
    timed bk j 240 bk --kernels BK1,BK3 --dofs 20000000 --n-min 1 --n-max 15 --reps 4 2>&1 | tee "$out/bk.log" ;;
  kernels-bk5)
    timed bk j 200 bk --kernels BK5 --dofs 20000000 --n-min 1 --n-max 15 --reps 4 2>&1 | tee "$out/bk5.log" ;;
  solves)
    timed op j 260 op --dofs 8000000 --n-min 1 --n-max 11 --reps 6 2>&1 | tee "$out/op.log"
    # bp stops at N = 10: at 787dca1 its sweep to 11 was cut by its time limit before N = 11 (solves-high runs 11); bp and
    # nekbone take reps / 3 solves: 15 gives 5 samples (3 gave one until f85ccfd)
    timed bp j 200 bp --dofs 8000000 --n-min 1 --n-max 10 --iterations 50 --reps 15 2>&1 | tee "$out/bp.log"
    timed nekbone j 100 nekbone --dofs 8000000 --n-min 3 --n-max 15 --n-step 2 --reps 15 2>&1 | tee "$out/nekbone.log" ;;
  solves-high)
    timed op j 260 op --dofs 8000000 --n-min 12 --n-max 15 --reps 6 2>&1 | tee "$out/op-high.log"
    timed bp j 250 bp --dofs 8000000 --n-min 11 --n-max 15 --iterations 50 --reps 3 2>&1 | tee "$out/bp-high.log" ;;
  size)
    for i in 1 2; do
      timed poisson-32-run$i timeout 100 bash .gpu/run -Xmx60g "${app[@]}" poisson -b aparapi -N 7 -e 32,32,32 --profile 2>&1 | tee "$out/poisson-32-run$i.log" | grep -v 'CG iteration'
    done
    timed poisson-67 timeout 300 bash .gpu/run -Xmx110g "${app[@]}" poisson -b aparapi -N 7 -e 67,67,67 --profile 2>&1 | tee "$out/poisson-67.log" | grep -v 'CG iteration' ;;
  pointwise)
    timed bk-pointwise j 570 bk --kernels BK1,BK3,BK5,BK1-general,BK3-general,BK5-general --dofs 20000000 --n-min 1 --n-max 15 --reps 4 2>&1 | tee "$out/bk-pointwise.log" ;;
  pointwise-vector)
    timed bk-vector j 260 bk --kernels BK2,BK4,BK6 --dofs 20000000 --n-min 1 --n-max 15 --reps 4 2>&1 | tee "$out/bk-vector.log"
    timed bp-pointwise j 200 bp --problems all --dofs 8000000 --n-min 3 --n-max 7 --n-step 2 --iterations 50 --reps 3 2>&1 | tee "$out/bp-pointwise.log"
    timed diffusion timeout 50 bash .gpu/run -Xmx60g "${app[@]}" diffusion -b aparapi -e 4,4,4 --sweep 2..12 2>&1 | tee "$out/diffusion.log" | grep -v 'CG iteration'
    timed elasticity timeout 60 bash .gpu/run -Xmx60g "${app[@]}" elasticity -b aparapi -e 4,4,4 --sweep 2..10 2>&1 | tee "$out/elasticity.log" | grep -v 'CG iteration' ;;
  onfly)
    timed op j 280 op --problems BP5 --geometry stored,onthefly --dofs 8000000 --n-min 2 --n-max 8 --reps 6 2>&1 | tee "$out/op-onfly.log"
    timed bp j 180 bp --problems BP5 --geometry stored,onthefly --dofs 8000000 --n-min 2 --n-max 8 --iterations 50 --reps 3 2>&1 | tee "$out/bp-onfly.log"
    timed kernel-info timeout 100 bash .gpu/run -Xmx16g ${JOPTS:-} -jar "$jar" kernel-info -N 7 -o "$out" --commit "$commit" 2>&1 | tee "$out/kernel-info-7.log" | grep -A3 '^== BP3.5' ;;
  pmg|pmg-sweep)
    s() { local t=$1 o=$2; shift 2; timeout "$t" bash .gpu/run -Xmx60g ${JOPTS:-} -jar "$jar" solve -b aparapi -o "$out/$o" --commit "$commit" --time-limit $((t - 20)) "$@"; }
    if [ "$part" = pmg ]; then
      timed solve-32 s 200 solve-32 -e 32 --n-min 7 --n-max 7 --meshes deformed --solve-reps 2 2>&1 | tee "$out/solve-32.log"
      timed solve-30-kershaw s 200 solve-30-kershaw -e 30 --n-min 7 --n-max 7 --meshes kershaw 2>&1 | tee "$out/solve-30-kershaw.log"
      timed poisson-32-pmg timeout 90 bash .gpu/run -Xmx60g "${app[@]}" poisson -b aparapi -N 7 -e 32,32,32 2>&1 | tee "$out/poisson-32-pmg.log"
    else
      timed solve-8 s 300 solve-8 -e 8 --n-min 3 --n-max 15 --meshes deformed 2>&1 | tee "$out/solve-8.log"
      timed solve-12-kershaw s 200 solve-12-kershaw -e 12 --n-min 3 --n-max 15 --n-step 4 --meshes kershaw 2>&1 | tee "$out/solve-12-kershaw.log"
    fi
    ;;
  profile)
    # Nsight Compute on the BP3.5 element kernels through their PTX (benchmarks/gpu/ptxprof.py): NS degrees (2,3,5,7), the
    # op's one-kernel operator (FG=5) or CG's queued iteration (FG=11); stall reasons, occupancy, the SASS attribution
    timed ptxprof timeout 400 env OUT="$out" COMMIT="$commit" bash benchmarks/gpu/ptxprof26.sh 2>&1 | tee "$out/ptxprof.log" \
      | grep -E '^(kernel|median|registers|ncu|  smsp__pcsamp_warps_issue_stalled_(long|short|barrier|mio)[a-z_]*  )|Occupancy|DRAM Throughput|stall samples by|^  [A-Z]+ [0-9]+%|excess shared' ;;
  *)
    echo "unknown part '$part'; expected kernels, kernels-bk5, solves, solves-high, size, pointwise, pointwise-vector, onfly, pmg, pmg-sweep or profile" >&2
    exit 2 ;;
esac
echo "== $part: $((SECONDS - part_start)) s in all" | tee -a "$out/times.log"
mkdir -p "$dest"
tar czf "$dest/$part.tgz" -C "$out" . && echo "results: $dest/$part.tgz"
