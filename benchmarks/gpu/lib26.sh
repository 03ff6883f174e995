#!/usr/bin/env bash
# Helpers the issue-26 runbooks from regs26.sh on source (the older ones, measured as they stand, keep their own):
#   timed NAME CMD...            runs CMD, then prints and logs to $out/times.log its seconds and exit status
#                                (124: timed out) as "== $book/NAME: ..."
#   bench NAME LIMIT SUITE FLAGS... -- ARGS...
#                                lobatto-bench SUITE (op, bp) for $problems at $dofs DOFs under timeout LIMIT * $scale, its
#                                sweep cut 8 s before; JVM FLAGS before --, the suite's ARGS after; log and JSON in $out
#   summarise FILES...           each selfcheck log's PASS/FAIL count, then each suite log's BP rows and problems
# The runbook sets book (its name) and then sources this file, which sets up what the helpers use: COMMIT (required),
# dest ($OUT, else gpu-bench), out (a fresh folder), jar ($JAR, else the staged bench jar), run ($RUN, else the staged
# launcher), scale ($SCALE, else 1: every timeout times it), dofs ($DOFS, else 8M), problems ($PROBLEMS, else BP5), start,
# and the kernel cache.
COMMIT=${COMMIT:?pass COMMIT=sha: the device copy has a stale git HEAD}
dest=${OUT:-gpu-bench}
out=$(mktemp -d)
jar=${JAR:-.gpu/lib/lobatto-bench.jar}
run=(${RUN:-bash .gpu/run})
scale=${SCALE:-1}
dofs=${DOFS:-8000000}
problems=${PROBLEMS:-BP5}
export LOBATTO_CACHE_DIR=${LOBATTO_CACHE_DIR:-/tmp/lobatto-cache}
mkdir -p "$dest"
start=$SECONDS
timed() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local rc=$?
  echo "== $book/$name: $((SECONDS - t0)) s, exit $rc$([ $rc -eq 124 ] && echo ' (timed out)'), at $((SECONDS - start)) s" \
    | tee -a "$out/times.log"
  return $rc
}
bench() {
  local name=$1 limit=$2 suite=$3; shift 3
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  timed "$name" timeout $((limit * scale)) "${run[@]}" -Xmx60g ${flags[@]+"${flags[@]}"} -cp "$jar" io.lobatto.bench.BenchCli $suite \
    -b aparapi -o "$out/$name" --commit "$COMMIT" --time-limit $((limit * scale - 8)) --dofs "$dofs" --problems "$problems" "$@" \
    > "$out/$name.log" 2>&1
}
summarise() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    echo "---- $(basename "$f" .log)"
    case "$(basename "$f")" in
      selfcheck-*)
        echo "$(grep -c '^PASS' "$f") PASS, $(grep -c '^FAIL' "$f") FAIL; $(grep -E 'ALL PASS|FAILURES' "$f" | tail -1)"
        grep -E '^FAIL|Exception|rror' "$f" | head -5 ;;
      *) grep -E '^BP[135]|kernel:|cut|rror|Exception' "$f" ;;
    esac
  done
}
