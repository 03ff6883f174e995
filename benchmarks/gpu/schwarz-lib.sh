# Helpers of the Schwarz runbooks (schwarz4.sh, schwarz5.sh, setup27.sh), sourced by them: the defaults they share (RUN,
# JAR, K, M, OUT, RAS, a fresh $logs), then phase (one setup phase of a log), line (a run's summary line), cli (one
# poisson run of the staged jar with --profile, its log in $logs, its line in $summary, which the runbook names; no run
# starts after BUDGET_S seconds) and warmups (the 6^3 RAS runs that fill the kernel cache for both arms).
RUN=${RUN:-bash .gpu/run}
JAR=${JAR:-.gpu/lib/lobatto-bench.jar}
K=${K:-30}
M=${M:-32}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
logs=$(mktemp -d)
RAS=${RAS:-"--kershaw 0.3 --smoother cheb4opt-ras --smoother-order 4"}
phase() { # log, phase name: its seconds, or -
  awk -v p="$2" 'index($0, "  " p " ") == 1 { for (i = 1; i <= NF; i++) if ($(i + 1) == "s") { print $i; exit } }' "$1" | grep . || echo -
}
line() { # name, log: the summary line of one run
  local log=$2
  local its res setup solve pmg
  its=$(sed -n 's/^CG: .* after \([0-9]*\) iterations.*/\1/p' "$log")
  res=$(sed -n 's/^CG: .*residual \(.*\)$/\1/p' "$log" | tr -d ' ')
  setup=$(sed -n 's/^time: setup \([0-9.]*\) s.*/\1/p' "$log")
  solve=$(sed -n 's/^time: .*solve \([0-9.]*\) s.*/\1/p' "$log")
  pmg=$(sed -n 's/^p-multigrid: .*setup \([0-9.]*\) s.*/\1/p' "$log")
  printf '%-7s its %-3s res %-22s setup %-6s solve %-6s pmg-setup %-6s topo %-6s fdm %-6s Z %-6s upload %-6s bounds %-6s pmgZ %-6s pmgGeom %-6s diag %-6s\n' \
      "$1" "${its:--}" "${res:--}" "${setup:--}" "${solve:--}" "${pmg:--}" "$(phase "$log" 'Schwarz topology')" \
      "$(phase "$log" 'Schwarz FDM')" "$(phase "$log" 'Schwarz Z')" "$(phase "$log" 'Schwarz upload')" \
      "$(phase "$log" 'eigenvalue bounds')" "$(phase "$log" 'p-MG Z')" "$(phase "$log" 'p-MG geometry')" "$(phase "$log" 'diagonals')"
}
cli() { # name, extra JVM options (one word or "", split at spaces), poisson arguments...
  local name=$1 jopt=$2
  shift 2
  if [ "$SECONDS" -gt "${BUDGET_S:-200}" ]; then   # stay inside 4 minutes even if a run hangs
    echo "== $name skipped: ${SECONDS} s used of ${BUDGET_S:-200}" | tee -a "$summary"
    return
  fi
  local t0=$(date +%s%N)
  timeout 50 $RUN -Xmx60g $jopt -cp "$JAR" io.lobatto.examples.LobattoCli poisson -b aparapi -N 7 "$@" --profile \
      > "$logs/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  printf '== %-8s rc=%d wall %d ms: %s %s\n' "$name" "$rc" $(( (t1 - t0) / 1000000 )) "$jopt" "$*"
  grep -E 'WARNING|SEVERE|^lobatto: error' "$logs/$name.log" | head -5
  case $name in
    warmup*) ;;
    *) line "$name" "$logs/$name.log" | tee -a "$summary" ;;
  esac
}
warmups() { # the old arm's JVM options: one 6^3 RAS run of each arm, not summarised
  cli warmup-new "" -e 6,6,6 $RAS >/dev/null
  cli warmup-old "$1" -e 6,6,6 $RAS >/dev/null
}
