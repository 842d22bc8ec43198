#!/usr/bin/env bash
# Tools/Benchmarks/run.sh — builds leakgraph-bench in release, runs the wall-time table (every case,
# each in its own process, median of 5 runs), then counts instructions per operation of the key
# cases under cachegrind, and prints one combined markdown table.
#
#   Tools/Benchmarks/run.sh            full run (several minutes; valgrind needed for instructions)
#   Tools/Benchmarks/run.sh --quick    smoke run for CI: every case with tiny sizes, no timing asserted
#   OUT=dir Tools/Benchmarks/run.sh    where results go (default Tools/Benchmarks/.build/results)
#   INSTRUCTIONS=0 ...                 skip instruction counts
#   SCRATCH_PATH=dir ...               SwiftPM's build folder (default Tools/Benchmarks/.build); CI
#                                      gives the root package's, whose release build of LeakGraph's
#                                      modules then serves both
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# A relative SCRATCH_PATH is taken from where the script was started.
scratch=$(mkdir -p "${SCRATCH_PATH:-$here/.build}" && cd "${SCRATCH_PATH:-$here/.build}" && pwd)
cd "$here"
swift build -c release --product leakgraph-bench --scratch-path "$scratch" >&2
bench=$scratch/release/leakgraph-bench

if [ "${1:-}" = "--quick" ]; then
  exec "$bench" --quick
fi

out=${OUT:-$here/.build/results}
mkdir -p "$out"
"$bench" --json "$out/wall.json" > "$out/wall.md"

# Instructions per operation: (I(n2) - I(n1)) / (n2 - n1) under cachegrind, which cancels set-up.
ipo=${INSTRUCTIONS_PER_OP:-$here/../../../shared/tools/instructions-per-op}
[ -x "$ipo" ] || ipo=/work/shared/tools/instructions-per-op
key_cases=(
  alloc-plain alloc-tracked-off alloc-tracked-nostacks alloc-tracked-stacks32 alloc-tracked-sampled100
  edge-add-remove edge-add-remove-public strongref-assign strongref-new-owner
)
for scenario in subject-lifecycle mapfilter-lifecycle create-lifecycle disposebag-3 event-mapfilter event-flatmap; do
  key_cases+=("$scenario-rx-on" "$scenario-rx-on-nostacks" "$scenario-rx-off" "$scenario-combine")
done
: > "$out/instructions.tsv"
if [ "${INSTRUCTIONS:-1}" != 0 ] && command -v valgrind >/dev/null; then
  # Valgrind 3.19 cannot read the DWARF 5 that swiftc emits ("Possibly corrupted debuginfo file"):
  # count a copy without debug info (the code is identical).
  counted=$scratch/release/leakgraph-bench-nodebug
  strip --strip-debug -o "$counted" "$bench"
  for name in "${key_cases[@]}"; do
    line=$("$ipo" 1000 3000 "$counted" --case "$name" --iterations '{n}' --quiet || echo "? instructions/op")
    printf '%s\t%s\n' "$name" "${line%% instructions/op*}" >> "$out/instructions.tsv"
    echo "$name: $line" >&2
  done
else
  echo "run.sh: valgrind not found (apt-get install -y valgrind) or INSTRUCTIONS=0: no instruction counts" >&2
fi

# Combined table: the wall table with an instructions/op column.
python3 - "$out/wall.json" "$out/instructions.tsv" > "$out/table.md" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
instructions = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]) if "\t" in line)
def fmt(ns):
    if ns >= 1e9: return "%.2f s" % (ns / 1e9)
    if ns >= 1e6: return "%.2f ms" % (ns / 1e6)
    if ns >= 1e4: return "%.1f µs" % (ns / 1e3)
    if ns >= 1e3: return "%.2f µs" % (ns / 1e3)
    return "%.1f ns" % ns
def metrics(m):
    return ", ".join(("%s %d" % (k, v)) if v == int(v) else ("%s %.1f" % (k, v)) for k, v in sorted(m.items()))
print("| case | variant | per | iterations × runs | median wall | min wall | instructions/op | other |")
print("|---|---|---|---|---:|---:|---:|---|")
group = None
for r in results:
    if r["group"] != group:
        group = r["group"]
        print("| **%s** | | | | | | | |" % group)
    ins = instructions.get(r["name"], "")
    try: ins = "{:,.0f}".format(float(ins))
    except ValueError: pass
    print("| `%s` | %s | %s | %d × %d | %s | %s | %s | %s |" % (r["name"], r["variant"], r["unit"], r["iterations"], r["runs"],
          fmt(r["medianNanoseconds"]), fmt(r["minimumNanoseconds"]), ins, metrics(r["metrics"])))
PY
cat "$out/table.md"
