#!/usr/bin/env bash
# On a host above AVX2 (AVX-512), runs the jit and runtime suites again
# with QJIT_MAX_ISA=avx2: as an AVX2-only host runs them, with the AVX-512
# generators compile-only and every per-ISA expectation at AVX2. On an
# AVX2 host ctest already did exactly this, so it only says so.
# Tests instantiated for one named level at or below AVX2 (`.../llvm_sse4`,
# `.../avx2`) ran exactly so in ctest's uncapped run, so only the rest run
# again: what the cap can change (levels taken from the host, best-fit
# choices, the AVX-512 generators turned compile-only).
# gtest's sharding splits each binary over the cores (ctest cannot: its
# test list is the uncapped one). On VBMI hosts, asmjit's AVX-512 tests run
# once more with VBMI masked (QJIT_X86_FEATURES=-avx512vbmi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
if ! grep -qw avx512f /proc/cpuinfo; then
  echo "test-capped: no AVX-512 here; ctest ran the AVX2 expectations"
  exit 0
fi
shards="$(nproc)"
named_levels='*_scalar:*_sse4:*_avx2:*/scalar:*/sse4:*/avx2'
start=$SECONDS
status=0
for suite in jit/qjit_jit_tests runtime/qjit_runtime_tests; do
  pids=()
  for ((shard = 0; shard < shards; ++shard)); do
    QJIT_MAX_ISA=avx2 GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
      "$build/tests/$suite" --gtest_brief=1 --gtest_filter="-$named_levels" >"$build/capped-$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < shards; ++shard)); do
    if ! wait "${pids[$shard]}"; then
      status=1
      cat "$build/capped-$shard.log"
    fi
  done
  echo "test-capped: $suite under QJIT_MAX_ISA=avx2: $([ $status = 0 ] && echo passed || echo FAILED)"
done
# With VBMI (Ice Lake and later, Zen 4), the AVX-512 code of hosts
# without it (Skylake-X, Cascade Lake) runs only under the mask.
if grep -qw avx512vbmi /proc/cpuinfo; then
  masked='*asmjit*avx512*:*Avx512*:*AsmjitKernelTest*/avx512*:*Vbmi*-*llvm*:*Llvm*'
  pids=()
  for ((shard = 0; shard < shards; ++shard)); do
    QJIT_X86_FEATURES=-avx512vbmi GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
      "$build/tests/jit/qjit_jit_tests" --gtest_brief=1 --gtest_filter="$masked" >"$build/masked-$shard.log" 2>&1 &
    pids+=($!)
  done
  masked_status=0
  for ((shard = 0; shard < shards; ++shard)); do
    if ! wait "${pids[$shard]}"; then
      masked_status=1
      cat "$build/masked-$shard.log"
    fi
  done
  [ $masked_status = 0 ] || status=1
  echo "test-capped: asmjit's AVX-512 tests under QJIT_X86_FEATURES=-avx512vbmi: $([ $masked_status = 0 ] && echo passed || echo FAILED)"
fi
echo "test-capped: took $((SECONDS - start)) s"
exit $status
