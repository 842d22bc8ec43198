#!/usr/bin/env bash
# Checks what `bash scripts/demo.sh` wrote: every file is there, not empty and well formed (the
# JSON dump through the leakgraph tool's own validating reader, SVG and HTML as XML/HTML).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-leakgraph-out}"
bin="$(swift build --show-bin-path)"
fail() { echo "check-demo-output: $*" >&2; exit 1; }
command -v xmllint >/dev/null 2>&1 || fail "needs xmllint (apt-get install libxml2-utils)"
for file in leakgraph-demo.json leakgraph-demo.dot leakgraph-demo.svg report.html report.txt; do
  [ -s "$out/$file" ] || fail "$out/$file is missing or empty"
done
# `report` exits 1 for "leaks found" (the demo's point) and 2 for a file it cannot read.
status=0
"$bin/leakgraph" report "$out/leakgraph-demo.json" --format json > /dev/null || status=$?
[ "$status" -eq 1 ] || fail "leakgraph report on the demo's dump exited $status, expected 1 (leaks found)"
scenarios=0
for svg in "$out"/*.svg; do
  xmllint --noout "$svg" || fail "$svg is not well-formed XML"
  case "$svg" in */scenario-*) scenarios=$((scenarios + 1)) ;; esac
done
[ "$scenarios" -ge 4 ] || fail "expected one picture per leaked scenario (4), found $scenarios"
grep -q '<svg' "$out/report.html" || fail "$out/report.html has no inline graph"
grep -q 'Leaked cycle' "$out/report.txt" || fail "$out/report.txt names no leaked cycle"
# Whole-process tracking: the plain classes' leaks, named with their fields.
for file in whole-process/plain-classes.json whole-process/plain-classes.svg whole-process/report.txt; do
  [ -s "$out/$file" ] || fail "$out/$file is missing or empty"
done
xmllint --noout "$out/whole-process/plain-classes.svg" || fail "whole-process/plain-classes.svg is not well-formed XML"
grep -q 'LEAKED: 4 cycles' "$out/whole-process/report.txt" \
  || fail "the whole-process report does not show the 4 leaked cycles of plain classes"
grep -q 'Child —parent→ Parent —child→ Child' "$out/whole-process/report.txt" \
  || fail "the whole-process report does not name the plain Parent/Child cycle"
echo "check-demo-output: $out is complete and well formed"
