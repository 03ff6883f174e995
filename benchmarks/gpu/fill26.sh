#!/usr/bin/env bash
# GPU runbook (issue 26): the degrees the bp30hi.sh and bp35pipe.sh sweeps did not reach, the table's kernel against the
# pipelined one in one lease: op BP3 at p = 1, 4, 5 and op BP5 at p = 1, 5, 12, about 8M DOFs, each sweep under its own
# timeout (about 3 minutes in all). Stage as for bp30hi.sh; COMMIT=<sha> bash benchmarks/gpu/fill26.sh. Writes
# $OUT/fill26-$COMMIT.tgz and prints the rows.
set -uo pipefail
run=(${RUN:-bash .gpu/run})
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
OUT=${OUT:-$(mktemp -d)}
COMMIT=${COMMIT:?pass COMMIT=sha}
out=$(mktemp -d)
mkdir -p "$OUT"
# op TIMEOUT NAME PROBLEM DEGREES...: one sweep per degree, both variants alternated at it
op() {
  local t=$1 name=$2 problem=$3
  shift 3
  for n in "$@"; do
    timeout "$t" "${run[@]}" -Xmx60g -cp "$jar" io.lobatto.bench.BenchCli op -b aparapi -o "$out/$name-$n" --commit "$COMMIT" \
      --time-limit $((t - 15)) --problems "$problem" --element-variants table,pipelined --dofs "${DOFS:-8000000}" \
      --n-min "$n" --n-max "$n" --reps 5 > "$out/$name-$n.log" 2>&1
    echo "== $name N = $n: exit $?"
    grep -E "^$problem |kernel:|cut" "$out/$name-$n.log"
  done
}
echo "fill26 at $COMMIT: $(date -u +%FT%TZ)"
op 40 bp3 BP3 4 5 1
op 40 bp5 BP5 5 12 1
tar czf "$OUT/fill26-$COMMIT.tgz" -C "$out" .
