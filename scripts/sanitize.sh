#!/usr/bin/env bash
# Builds qjit with sanitizers (clang-22) and runs tests under them:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer):
#         every ctest test, plus the libFuzzer corpus replays (tests/fuzz),
#         into <build>-asan
#   tsan  ThreadSanitizer: the concurrency tests only (qjit_concurrency_tests),
#         into <build>-tsan
# With no argument, both. See docs/hardening.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
jobs="$(nproc)"

# -O1 keeps the instrumented tests quick; line tables are all the reports
# need; no NDEBUG, so assertions run too.
clang_flags=(-G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
  -DCMAKE_BUILD_TYPE=Debug
  "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only"
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only"
  # Warnings are the normal (gcc, -Werror) build's job.
  -DQJIT_WERROR=OFF -DQJIT_BUILD_BENCH=OFF)

# Every report is fatal. No suppressions are needed (LLVM, asmjit and the
# JIT'd code included), so none are configured.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"

# Prints how long each stage took (CI budget: docs/hardening.md).
timed() {
  local name="$1" start=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "sanitize: $name took $((SECONDS - start)) s"
  return $status
}

run_asan() {
  local dir="$build-asan"
  cmake -S "$root" -B "$dir" "${clang_flags[@]}" \
    -DQJIT_SANITIZE=address,undefined -DQJIT_FUZZ=ON >/dev/null
  timed "asan build" cmake --build "$dir" -j "$jobs"
  # install_consumer builds an outside project against the installed
  # package, which would need the sanitizer runtimes on its own link line;
  # the normal build runs it. The llvm sweeps below the host's level differ
  # from those at its level in what LLVM (not instrumented) is asked for,
  # and cost a fifth of this stage (a third on AVX-512 hosts); qjit's IR
  # building at those levels still runs here in every family's example
  # (Tables/KernelFamilyTest).
  local below='scalar|sse4'
  if grep -qw avx512f /proc/cpuinfo; then
    below='scalar|sse4|avx2'
  fi
  timed "asan tests" ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
    -E "^install_consumer\$|^(Sweeps|Backends)/.*[/_]llvm_($below)( |\$)"
}

run_tsan() {
  local dir="$build-tsan"
  cmake -S "$root" -B "$dir" "${clang_flags[@]}" \
    -DQJIT_SANITIZE=thread >/dev/null
  # Only what the concurrency tests need (KernelCacheTest, ConcurrencyTest,
  # ParallelRunTest).
  timed "tsan build" cmake --build "$dir" -j "$jobs" \
    --target qjit_concurrency_tests
  timed "tsan tests" "$dir/tests/runtime/qjit_concurrency_tests"
}

case "${1:-all}" in
asan) run_asan ;;
tsan) run_tsan ;;
all)
  run_asan
  run_tsan
  ;;
*) echo "usage: $0 [asan|tsan|all]" >&2 && exit 2 ;;
esac
