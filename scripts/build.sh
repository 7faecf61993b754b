#!/usr/bin/env bash
# Configures and builds qjit into build/ (Release with debug info, warnings
# as errors). Shared by demo.sh and test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQJIT_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
