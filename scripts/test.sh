#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite through ctest;
# on an AVX-512 host the jit and runtime suites again as an AVX2 host runs
# them (scripts/test-capped.sh); then the hardening stages (docs/hardening.md): the suite under ASan+UBSan,
# the concurrency tests under TSan and a short fuzz run. QJIT_SKIP_HARDENING=1
# stops after the normal suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
# Each stage says how long it took (the CI budget: docs/hardening.md).
timed() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  echo "test: $name took $((SECONDS - start)) s"
}
timed setup "$root/scripts/setup.sh"
timed build "$root/scripts/build.sh"
cd "$build"
timed ctest ctest --output-on-failure -j "$(nproc)" "$@"
"$root/scripts/test-capped.sh"
if [ "${QJIT_SKIP_HARDENING:-0}" != 1 ]; then
  "$root/scripts/sanitize.sh"
  timed fuzz "$root/scripts/fuzz.sh"
fi
