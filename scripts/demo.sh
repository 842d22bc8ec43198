#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, runs the classic reactive leaks
# and their fixed versions, and writes JSON, dot, SVG, an HTML report and a text report to
# ./leakgraph-out/ (or the folder given as the first argument); then runs a program of plain
# classes with whole-process tracking (LEAKGRAPH_TRACK=all) into ./leakgraph-out/whole-process/.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-leakgraph-out}"
bash scripts/install-dependencies.sh
# One product per `swift build`: given `--product` twice, it builds only the last one.
swift build --product leakgraph-demo
swift build --product leakgraph
swift build --product plain-classes-example
bin="$(swift build --show-bin-path)"
"$bin/leakgraph-demo" "$out"
# The demo owns these files, so it replaces them (--force).
"$bin/leakgraph" html "$out/leakgraph-demo.json" -o "$out/report.html" --force
status=0
"$bin/leakgraph" report "$out/leakgraph-demo.json" > "$out/report.txt" || status=$?
# `report` exits 1 when it finds leaks, which is what the demo is for.
if [ "$status" -gt 1 ]; then exit "$status"; fi
echo "Wrote $out/report.txt"

# Whole-process tracking: plain classes and a closure capturing self, in a program that never
# subclasses or registers anything; one variable turns it on, the dump is written at exit.
rm -rf "$out/whole-process"
LEAKGRAPH_TRACK=all LEAKGRAPH_DUMP_DIR="$out/whole-process" "$bin/plain-classes-example"
dump="$(ls "$out"/whole-process/leakgraph-*.json)"
mv "$dump" "$out/whole-process/plain-classes.json"
rm -f "$out"/whole-process/leakgraph-*.dot
"$bin/leakgraph" render "$out/whole-process/plain-classes.json" -o "$out/whole-process/plain-classes.svg" --force
status=0
"$bin/leakgraph" report "$out/whole-process/plain-classes.json" > "$out/whole-process/report.txt" || status=$?
if [ "$status" -gt 1 ]; then exit "$status"; fi
echo "Wrote $out/whole-process/report.txt and plain-classes.svg (LEAKGRAPH_TRACK=all, plain classes)"
