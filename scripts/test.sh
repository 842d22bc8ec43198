#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test suite
# (XCTest and Swift Testing), and a seconds-long benchmark smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-dependencies.sh
swift build --build-tests
swift test --skip-build
