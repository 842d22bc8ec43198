#!/usr/bin/env bash
# Tools/Benchmarks/soak.sh — a server-shaped program runs with whole-process tracking on for a while:
# two threads churn objects, a monitor takes a snapshot (LeakGraph.liveObjects) every second, and an
# on-demand dump (SIGUSR1) is asked for every `DUMP_EVERY` seconds; then SIGTERM ends it with its
# final dump. Prints resident memory over time and fails when the program deadlocks, a dump is
# missing, memory grows after warm-up by more than `MAX_GROWTH_PERCENT`, or the program's
# objects leak (it leaks nothing itself: any leak would be LeakGraph's own).
#
#   Tools/Benchmarks/soak.sh            10 minutes, a dump every minute
#   SECONDS_TO_RUN=60 DUMP_EVERY=15 Tools/Benchmarks/soak.sh     the one-minute version CI runs
#   LEAKGRAPH_CLI=path/to/leakgraph ...     the tool that reads the final dump (default: the debug
#                                           build in .build, built when missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
run_for=${SECONDS_TO_RUN:-600}
dump_every=${DUMP_EVERY:-60}
max_growth=${MAX_GROWTH_PERCENT:-25}
cd "$root"
swift build -c release --product server-example >&2
server=$root/.build/release/server-example
if [ -n "${LEAKGRAPH_CLI:-}" ]; then
  cli=$LEAKGRAPH_CLI
  [ -x "$cli" ] || { echo "soak: LEAKGRAPH_CLI=$cli is not an executable" >&2; exit 2; }
else
  cli=$root/.build/debug/leakgraph
  [ -x "$cli" ] || swift build --product leakgraph >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
LEAKGRAPH_TRACK=all LEAKGRAPH_DUMP_DIR="$work/dumps" LEAKGRAPH_DUMP_ON=exit,term,usr1 \
  "$server" --soak --seconds $((run_for + 60)) --leak-every 0 > "$work/out" 2> "$work/err" &
pid=$!
start=$(date +%s)
next_dump=$dump_every
asked=0
while [ $(($(date +%s) - start)) -lt "$run_for" ]; do
  sleep 1
  kill -0 "$pid" 2>/dev/null || { echo "soak: the program ended early" >&2; cat "$work/err" >&2; exit 1; }
  if [ $(($(date +%s) - start)) -ge "$next_dump" ]; then
    kill -USR1 "$pid"
    asked=$((asked + 1))
    next_dump=$((next_dump + dump_every))
  fi
done
kill -TERM "$pid"
# Bounded: a deadlock shows as a program that never ends.
for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$pid" 2>/dev/null; then
  echo "soak: the program did not end within 60 s of SIGTERM (deadlock?)" >&2
  kill -KILL "$pid"
  exit 1
fi
wait "$pid" || true
dumps=$(find "$work/dumps" -name "leakgraph-$pid-*.json" | wc -l)
final=$work/dumps/leakgraph-$pid.json
# Resident memory: after warm-up (a tenth of the run, at least 5 s) and at the end.
rss() { sed -n "s/^t=$1s rss=\([0-9]*\)KiB.*/\1/p" "$work/out" | head -1; }
warm=$((run_for / 10 > 5 ? run_for / 10 : 5))
last=$(sed -n 's/^t=\([0-9]*\)s .*/\1/p' "$work/out" | tail -1)
warm_rss=$(rss "$warm")
end_rss=$(rss "$last")
snapshot_ms=$(sed -n 's/.*liveObjects-ms=\([0-9.]*\).*/\1/p' "$work/out" | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}')
growth=$(( (end_rss - warm_rss) * 100 / warm_rss ))
leaks=$("$cli" report "$final" >/dev/null 2>&1 && echo 0 || echo $?)
# The series, about ten points over the run: where memory steps, and whether it keeps climbing.
step=$(( run_for / 10 > 1 ? run_for / 10 : 1 ))
series=$(for t in $(seq "$step" "$step" "$last"); do r=$(rss "$t"); [ -n "$r" ] && printf '%ss:%s ' "$t" "$r"; done)
echo "soak: resident memory (KiB) over time: ${series}"
echo "soak: ${run_for}s, ${asked} on-demand dump(s) asked, ${dumps} written, final dump $( [ -f "$final" ] && echo written || echo MISSING )"
echo "soak: resident memory ${warm_rss} KiB at ${warm}s, ${end_rss} KiB at ${last}s (${growth}% after warm-up); median snapshot ${snapshot_ms} ms; report exit ${leaks}"
[ -f "$final" ] || exit 1
[ "$dumps" -eq "$asked" ] || { echo "soak: $asked dump(s) asked, $dumps written" >&2; exit 1; }
[ "$growth" -le "$max_growth" ] || { echo "soak: memory grew ${growth}% after warm-up (limit ${max_growth}%)" >&2; exit 1; }
[ "$leaks" = 0 ] || { echo "soak: the final dump reports leaks (exit $leaks); the program leaks nothing of its own" >&2; exit 1; }
