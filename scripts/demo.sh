#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds, runs the classic reactive leaks
# and their fixed versions, and writes JSON, dot, SVG and an HTML report to ./leakgraph-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-dependencies.sh
swift build --product leakgraph-demo --product leakgraph
.build/debug/leakgraph-demo "${1:-leakgraph-out}"
