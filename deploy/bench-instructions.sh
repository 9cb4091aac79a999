# The server's instructions, for deploy/bench.sh and deploy/bench-streams.sh (sourced by both,
# after they made $DIR). With BENCH_INSTRUCTIONS=1 the benchmark runs `kontor serve` under
# valgrind's callgrind with instrumentation off (the set-up, argon2's logins included, runs
# uninstrumented), switches it on just before the timed part
# and dumps the counts just after (the load client's `--on-start`/`--on-stop` hooks, through
# `callgrind_control`), and reports the server's instructions (Ir, every thread's) per unit of
# work and where they go. Instructions do not move with the machine's noise; under callgrind
# the server runs 30-50 times slower, one thread at a time, so the speeds, latencies, CPU
# times and memory the same run reports mean nothing. Only the server is counted: PostgreSQL's
# work is counted by deploy/bench.sh from its own statistics.
#
# `kontor serve` is started as "${INSTRUMENT[@]}" target/release/kontor serve; then
# `instructions_hook on|off` prints the hook commands to run (nothing without
# BENCH_INSTRUCTIONS), `instructions_report UNIT COUNT [UNIT COUNT]...` prints the counts per
# unit, and `instructions_verdict` prints why there is no verdict (and fails without
# BENCH_INSTRUCTIONS: `if instructions_verdict; then instructions_report ...; fi`).

INSTRUMENT=()
WAIT_FOR_SERVER=100 # tenths of a second
if [ "${BENCH_INSTRUCTIONS:-0}" != 0 ]; then
  if ! command -v valgrind > /dev/null || ! command -v callgrind_control > /dev/null; then
    echo "BENCH_INSTRUCTIONS=1 needs valgrind (callgrind and callgrind_control)" >&2
    exit 1
  fi
  # --instr-atstart=no: nothing is instrumented until the hook says so (cheaper than
  # --collect-atstart=no, which instruments everything and only drops the counts).
  INSTRUMENT=(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$DIR/callgrind.out")
  WAIT_FOR_SERVER=1200
fi

# The command a hook runs: `on` switches instrumentation on with zeroed counts, `off` dumps the
# counts (to $DIR/callgrind.out.1) and switches it off again. Needs $SERVER.
instructions_hook() {
  [ ${#INSTRUMENT[@]} -eq 0 ] && return 0
  case "$1" in
    on) echo "callgrind_control --instr=on $SERVER > /dev/null && callgrind_control --zero $SERVER > /dev/null" ;;
    off) echo "callgrind_control --dump=timed $SERVER > /dev/null && callgrind_control --instr=off $SERVER > /dev/null" ;;
  esac
}

# `UNIT COUNT` pairs: the timed part's instructions per each, then the functions that spent
# the most (self cost). The dump is kept in target/ for callgrind_annotate or KCachegrind.
instructions_report() {
  [ ${#INSTRUMENT[@]} -eq 0 ] && return 0
  local dump="$DIR/callgrind.out.1" kept
  if [ ! -s "$dump" ]; then
    echo "no callgrind dump of the timed part ($dump)" >&2
    return 1
  fi
  kept="target/callgrind.$(basename "$0" .sh).$(date +%Y%m%dT%H%M%S).out"
  cp "$dump" "$kept"
  python3 - "$dump" "$@" << 'PY'
import sys
totals = [l.split()[1] for l in open(sys.argv[1]) if l.startswith(("totals:", "summary:"))]
ir = int(totals[0])
pairs = sys.argv[2:]
print(f"the server's instructions (callgrind, Ir, all threads) in the timed part: {ir:,}")
for unit, count in zip(pairs[::2], pairs[1::2]):
    print(f"  per {unit}: {ir / float(count):,.0f} ({int(float(count)):,} of them)")
PY
  echo "  the 10 functions with the most instructions of their own (callgrind_annotate $kept):"
  callgrind_annotate --threshold=100 "$kept" 2> /dev/null \
    | awk '/file:function/ { table = 1; next } table && /^ *[0-9]/ {
        sub(/\[[^]]*\/kontor\]$/, "[kontor]"); print "   ", substr($0, 1, 200); if (++shown == 10) exit }'
  # What valgrind had to say about the server beyond its banner (an instruction it could not
  # run, say), which would make the counts suspect.
  grep -E '^==[0-9]+== .*(arning|nhandled|nrecogni|rror)' "$DIR/server.log" | head -5 | sed 's/^/  valgrind: /' || true
}

instructions_verdict() {
  [ ${#INSTRUMENT[@]} -eq 0 ] && return 1
  echo "no verdict: under callgrind the server runs 30-50 times slower, one thread at a time;" \
    "its speed, latencies, CPU times and memory above mean nothing, its instructions do"
}
