#!/usr/bin/env bash
# Issue 26: CG's search direction folded into the atomic operator (-Dlobatto.aparapi.foldSearchDirection=true: the
# element kernel reads z + beta p through Z and adds into y_G, then ReductionKernel.UPDATE_DOT writes p and sums p . y)
# against the default (an axpby, then the atomic apply and a dot). Folding was turned off at 4f171e6, when the folded
# read slowed the gather that the atomic form no longer runs; the folded atomic path works since 3fcb82f.
# One GPU, one lease, about 3 minutes, every command under its own timeout:
#   1. bp BP5 (and BP3: BP3.0 folds too) at p = 5..9, 8M DOFs, fold off and on, alternated twice (a process each);
#   2. the main job at 32^3 (p-MG; CG's fine-level calls fold) with fold off and on, after a warm-up run.
# Stage: ./mvnw -q -o install -DskipTests -Dmaven.javadoc.skip=true && ../shared/gpu/stage.sh benchmarks/target/lobatto-bench.jar
# Run on the GPU machine: COMMIT=<sha> OUT=$OUT bash benchmarks/gpu/fold26.sh      Results: $OUT/fold26.tgz, -summary.txt.
# Local check on PoCL (the CAS form): RUN=java JAR=benchmarks/target/lobatto-bench.jar DOFS=30000 FORM=cas \
#   POISSON="-N 3 -e 4,4,4" OUT=/tmp/fold26 bash benchmarks/gpu/fold26.sh
set -u
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
commit=${COMMIT:-unknown}
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
dofs=${DOFS:-8000000}
form=${FORM:-auto}
problems=${PROBLEMS:-BP5,BP3}
range=${RANGE:-5..9}
poisson=(${POISSON:--N 7 -e 32,32,32})
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$dest"
start=$SECONDS
names=()
for round in 1 2; do
  for fold in false true; do
    name=bp-fold-$fold-$round
    names+=("$name")
    t0=$SECONDS
    timeout "${BP_TIMEOUT:-80}" "${run[@]}" -Xmx40g -Dlobatto.aparapi.atomicOperator="$form" \
      -Dlobatto.aparapi.foldSearchDirection="$fold" -cp "$jar" io.lobatto.bench.BenchCli bp -b aparapi -o "$out/$name" \
      --commit "$commit" --time-limit $((${BP_TIMEOUT:-80} - 15)) --problems "$problems" --dofs "$dofs" \
      --n-min "${range%..*}" --n-max "${range#*..}" --iterations 50 --reps 3 > "$out/$name.log" 2>&1
    echo "== fold26/$name: exit $?, $((SECONDS - t0)) s, at $((SECONDS - start)) s" | tee -a "$out/times.log"
  done
done
for fold in warm false true; do
  f=$fold
  [ "$fold" = warm ] && f=false
  t0=$SECONDS
  timeout 60 "${run[@]}" -Xmx40g -Dlobatto.aparapi.atomicOperator="$form" -Dlobatto.aparapi.foldSearchDirection="$f" \
    -cp "$jar" io.lobatto.examples.LobattoCli poisson -b aparapi "${poisson[@]}" --profile > "$out/job-$fold.log" 2>&1
  echo "== fold26/job-$fold: exit $?, $((SECONDS - t0)) s, at $((SECONDS - start)) s" | tee -a "$out/times.log"
done
{
  echo "fold26 at $commit"
  cat "$out/times.log"
  for n in "${names[@]}"; do
    echo "---- $n"
    grep -E '^(BP[0-9]|BP  )|cut:|Exception|error' "$out/$n.log" | head -20
  done
  for fold in false true; do
    echo "---- job fold=$fold"
    grep -E '^(CG:|time:|error:)|WARNING|SEVERE|Exception' "$out/job-$fold.log" | head -6
  done
} > "$dest/fold26-summary.txt" 2>&1
cat "$dest/fold26-summary.txt"
tar czf "$dest/fold26.tgz" -C "$out" .
echo "fold26: $((SECONDS - start)) s"
