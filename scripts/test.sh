#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite through ctest;
# on an AVX-512 host the jit and runtime suites again as an AVX2 host runs
# them (scripts/test-capped.sh); then the hardening stages (docs/hardening.md): the suite under ASan+UBSan,
# the concurrency tests under TSan and a short fuzz run. QJIT_SKIP_HARDENING=1
# stops after the normal suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
"$root/scripts/test-capped.sh"
if [ "${QJIT_SKIP_HARDENING:-0}" != 1 ]; then
  "$root/scripts/sanitize.sh"
  "$root/scripts/fuzz.sh"
fi
