//===- PlanLimits.h - Thresholds every code generator shares ----*- C++ -*-===//
#ifndef QJIT_JIT_PLAN_PLANLIMITS_H
#define QJIT_JIT_PLAN_PLANLIMITS_H

#include <cstdint>

namespace qjit::plan {

/// The after-rounding sum round(u) + z in i32: with round(u) first limited
/// to ±kNarrowRoundedLimit and baked zero points within ±kNarrowZeroLimit
/// (lowering keeps them within the bounds of storage up to 16 bits), the
/// sum cannot overflow, and every sum the limit changed stays beyond the
/// bounds (|bounds| <= 2^16): the same saturation as the exact sum.
constexpr double kNarrowRoundedLimit = 0x1p24;
constexpr int64_t kNarrowZeroLimit = int64_t(1) << 20;

/// Runtime-parameter runs at least this long amortize their reciprocal
/// and its range check (KernelPlan::runtimeRunsAreLong). Runs of 32 lost
/// (i8 block32 qcast, AVX-512: 9.2 -> 7.0 el/ns), one run per call won
/// (per tensor 8.3 -> 15.6), Zen 5 VM, 2026-12-05.
constexpr int64_t kCheckedRunElements = 256;

/// A dynamic qcast whose groups are runs ranges, chooses and quantizes
/// this much input at a time, so its quantizing pass reads it from L1;
/// that pass prefetches the next chunk (KernelPlan::loopPrefetchBytes),
/// which the next range pass reads from L1 too. Per row (4096), 64K
/// elements, one run of both: 6.5 -> 4.8 us against 3.3-3.7 for the static
/// kernel (AVX-512 asmjit, Sapphire Rapids-class Xeon, 2026-12-06).
constexpr int64_t kDynamicChunkBytes = int64_t(16) << 10;

/// Calls (x86) writing at least this many output bytes store them past the
/// caches: such outputs would only evict the input stream, and the stores
/// skip the read-for-ownership.
constexpr int64_t kStreamingOutputBytes = int64_t(8) << 20;

/// How far ahead asmjit's loops prefetch their input into L1 (x86): every
/// loop of a qcast, whose loops compute more than they move and were not
/// kept supplied by the hardware prefetchers alone beyond L2, and the
/// copy of any kernel's loops for calls of kStreamingOutputBytes. qcast
/// at AVX-512 (Xeon SPR-class VM, 2026-12-07), against the memory_nt row
/// of the same run: at 16M elements i8 per tensor 0.73-0.81x -> 0.93-1.05x,
/// i4 per tensor 0.32x -> 0.85-0.88x, f8E4M3FN 0.26-0.31x -> 0.54-0.63x;
/// in every loop, also i4 blocks of 32 at 16M 4.7-7.9 -> 3.3 ms, at 1M
/// 225-232 -> 198-201 us, i8 per tensor at 1M 192-201 -> 182-187 us and
/// at 64K 3.4-3.7 -> 3.2-3.5 us, 4K unchanged; at QJIT_MAX_ISA=avx2 64K
/// and 1M 4-10% faster, per row and blocks of 32 at 4K 3-5% slower (two
/// prefetches in a step half as long as AVX-512's); dcast
/// (reading a quarter of what it writes) unchanged or slower, so it
/// prefetches only in large calls. 4 and 16 KiB ahead measured the same.
constexpr int32_t kInputPrefetchBytes = int32_t(8) << 10;

} // namespace qjit::plan

#endif
