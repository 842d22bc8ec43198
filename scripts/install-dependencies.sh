#!/usr/bin/env bash
# Installs the system packages LeakGraph needs when they are missing (Debian/Ubuntu):
#   libunwind-dev  fast allocation stacks (libunwind is loaded privately at run time)
#   graphviz       `dot`, to render leak graphs as SVG/PNG
#   binutils       addr2line, a fallback symbolizer (llvm-symbolizer ships with Swift)
set -euo pipefail
missing=()
dpkg -s libunwind-dev >/dev/null 2>&1 || missing+=(libunwind-dev)
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v addr2line >/dev/null 2>&1 || missing+=(binutils)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "leakgraph: please install: ${missing[*]} (no apt-get on this machine)" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "Installing ${missing[*]} ..." >&2
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
