#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, runs the classic reactive leaks
# and their fixed versions, and writes JSON, dot, SVG, an HTML report and a text report to
# ./leakgraph-out/ (or the folder given as the first argument).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-leakgraph-out}"
bash scripts/install-dependencies.sh
# One product per `swift build`: given `--product` twice, it builds only the last one.
swift build --product leakgraph-demo
swift build --product leakgraph
bin="$(swift build --show-bin-path)"
"$bin/leakgraph-demo" "$out"
# The demo owns these files, so it replaces them (--force).
"$bin/leakgraph" html "$out/leakgraph-demo.json" -o "$out/report.html" --force
status=0
"$bin/leakgraph" report "$out/leakgraph-demo.json" > "$out/report.txt" || status=$?
# `report` exits 1 when it finds leaks, which is what the demo is for.
if [ "$status" -gt 1 ]; then exit "$status"; fi
echo "Wrote $out/report.txt"
