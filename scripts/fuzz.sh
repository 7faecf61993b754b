#!/usr/bin/env bash
# Short libFuzzer runs of every target in tests/fuzz, built by
# `scripts/sanitize.sh asan` into <build>-asan (ASan + UBSan). Each target
# starts from the checked-in seed corpus with the quant-type dictionary and
# runs for QJIT_FUZZ_SECONDS (default 40); the targets run side by side.
# The mutations follow QJIT_FUZZ_SEED (default: random, printed), so a run
# that failed can be repeated with its seed (as far as it got in the time).
# New inputs go to <build>-asan/fuzz/<target>/ (not the checkout); a crash
# prints its input and fails. See docs/hardening.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}-asan"
seconds="${QJIT_FUZZ_SECONDS:-40}"
seed="${QJIT_FUZZ_SEED:-$((RANDOM * 32768 + RANDOM + 1))}"
echo "fuzz: seed $seed (QJIT_FUZZ_SEED=$seed repeats these mutations)"
targets=(qjit_fuzz_type_parser qjit_fuzz_reference qjit_fuzz_jit_kernel
  qjit_fuzz_mlir_types)

cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

pids=()
for target in "${targets[@]}"; do
  work="$build/fuzz/$target"
  rm -rf "$work" && mkdir -p "$work/corpus"
  # The first directory receives new inputs; the seed corpus is only read.
  "$build/tests/fuzz/$target" -seed="$seed" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -dict="$root/tests/fuzz/quant.dict" \
    -artifact_prefix="$work/" -print_final_stats=1 \
    "$work/corpus" "$root/tests/fuzz/corpus" >"$work/log" 2>&1 &
  pids+=($!)
done

status=0
for i in "${!targets[@]}"; do
  target="${targets[$i]}"
  work="$build/fuzz/$target"
  if wait "${pids[$i]}"; then
    echo "fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" |
      grep -o '[0-9]*$') runs in ${seconds}s, no failure"
  else
    status=1
    echo "fuzz: $target FAILED; log tail:"
    tail -n 60 "$work/log"
    for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [ -e "$artifact" ] || continue
      echo "fuzz: input $artifact (add it to tests/fuzz/corpus/ as" \
        "regression-<what it found> once fixed; seed $seed):"
      od -c "$artifact" | head -n 40
    done
  fi
done
exit $status
