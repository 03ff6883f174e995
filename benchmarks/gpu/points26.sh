#!/usr/bin/env bash
# Issue 26: the POINTS element-kernel variant (the shared kernel's 3D structure with several points per work-item where
# P^3 exceeds the group; ElementVariant.POINTS) against the table, on the H100, one lease, about 5 minutes:
#   1. atomic26.sh with VARIANTS=table,points: BP1 and BP3 at p = 2..10 in the PTX form (PARTS overrides it);
#   2. BP5 in the points variant at p = 6..9, PTX form, groups of 256 and of 128 work-items
#      (-Dlobatto.aparapi.elementGroup; 128: twice the points per work-item, two elements per group), alternated twice.
# Stage first: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true && ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/points26.sh
# Local check on PoCL: RUN="java" JAR=benchmarks/target/lobatto-bench.jar DOFS=20000 PARTS="p13 240 BP1,BP3 2..3 cas" FORM=cas \
#   GROUP_NMIN=6 GROUP_NMAX=6 OUT=/tmp/points26 bash benchmarks/gpu/points26.sh
# Results: $OUT/atomic26-summary.txt, $OUT/atomic26.tgz, $OUT/points26-groups.txt.
set -u
dest=${OUT:-gpu-bench}
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
mkdir -p "$dest"
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
start=$SECONDS
PARTS=${PARTS:-"p13 240 BP1,BP3 2..10 ptx"} VARIANTS=${VARIANTS:-table,points} JOBFORMS=${JOBFORMS:-auto} \
  COMMIT="$commit" OUT="$dest" bash "$(dirname "$0")/atomic26.sh" > /dev/null 2>&1
echo "== points26/atomic26: exit $?, at $((SECONDS - start)) s"
groups=$(mktemp -d)
for round in 1 2; do
  for g in ${GROUPS_AB:-256 128}; do
    t0=$SECONDS
    timeout "${GROUP_TIMEOUT:-60}" "${run[@]}" -Xmx40g -Dlobatto.aparapi.elementGroup="$g" -cp "$jar" io.lobatto.bench.BenchCli op \
      -b aparapi -o "$groups/g$g-$round" --commit "$commit" --problems BP5 --operator-forms "${FORM:-ptx}" --element-variants points \
      --dofs "${DOFS:-8000000}" --n-min "${GROUP_NMIN:-6}" --n-max "${GROUP_NMAX:-9}" --reps 5 > "$groups/g$g-$round.log" 2>&1
    echo "== points26/group $g round $round: exit $?, $((SECONDS - t0)) s, at $((SECONDS - start)) s"
    grep -E '^BP5|kernel:' "$groups/g$g-$round.log"
  done
done > "$dest/points26-groups.txt"
cat "$dest/atomic26-summary.txt" "$dest/points26-groups.txt"
echo "points26: $((SECONDS - start)) s"
