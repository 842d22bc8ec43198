#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test suite
# (XCTest and Swift Testing), and ends with a summary a person reads at a glance.
#
# The tests' own output (thousands of lines, including the expected error output of tests that
# check error paths) goes to .build/test-output.log; what is shown here is every failure in
# full, every skip with its reason, and both runners' closing lines.
#   VERBOSE=1 bash scripts/test.sh    also streams the whole output
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-dependencies.sh
swift build --build-tests
log=.build/test-output.log
start=$(date +%s)
echo "Running the tests (their whole output: $log)…"
status=0
if [ "${VERBOSE:-0}" = 1 ]; then
  swift test --skip-build 2>&1 | tee "$log" || status=$?
else
  swift test --skip-build > "$log" 2>&1 || status=$?
fi
elapsed=$(($(date +%s) - start))

# Failures, in full: Swift Testing's ✘ lines (known issues are expected, not failures) and
# XCTest's error lines.
failures=$(grep -E '^✘ Test "|: error: ' "$log" | grep -v 'known issue' || true)
if [ -n "$failures" ]; then
  echo
  echo "Failures:"
  printf '%s\n' "$failures" | head -n 60
fi
# Skips, with their reasons (one line per distinct reason).
skips=$(grep -E '^➜ Test .* skipped' "$log" | sed -E 's/^➜ Test ("[^"]*"|[^ ]+)( with [0-9]+ test cases)? skipped(: )?//' | sort | uniq -c || true)
echo
echo "Summary ($((elapsed / 60)) min $((elapsed % 60)) s):"
# XCTest's closing lines (its run prints the last one twice) and Swift Testing's.
{ grep -E "^Test Suite 'All tests' (passed|failed)" "$log" | tail -n 1
  grep -E "Executed [0-9]+ tests?, with" "$log" | tail -n 1 | sed -E 's/^[[:space:]]+//'
  grep -E "^(✔|✘|━) Test run with" "$log" | tail -n 1; } | sed 's/^/  /'
warnings=$(grep -E '^⚠︎ Test' "$log" | sed -E 's/ recorded a warning.* at ([^ ]+):.*/ (\1)/' || true)
if [ -n "$warnings" ]; then
  echo "  warnings:"
  printf '%s\n' "$warnings" | head -n 10 | sed 's/^/    /'
fi
skipCount=$(grep -cE '^➜ Test .* skipped' "$log" || true)
echo "  skipped: ${skipCount}"
if [ -n "$skips" ]; then printf '%s\n' "$skips" | sed -E 's/^ *([0-9]+) (.*)$/    \1 × \2/; s/× $/× (no reason given)/'; fi
[ "$status" = 0 ] && echo "  all passed" || echo "  FAILED (exit $status)"
exit "$status"
