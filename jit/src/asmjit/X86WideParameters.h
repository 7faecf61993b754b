//===- X86WideParameters.h - Parameters of the f64-lane kernels -*- C++ -*-===//
//
// The wide kernels (X86WideGenerators.cpp) finish in f64 lanes. Per run
// they need, broadcast: the scale in C (s, or fl_C(1/s) for `reciprocal`),
// z_C = fl_C(z), and for the exact after-rounding sum the two halves of z,
// h = z & ~(2^32 − 1) and l = z & (2^32 − 1) (each exact in f64), and
// clamp(z, min, max) in f64 and as i32 lanes (the stored value of NaN
// lanes). Baked values
// come from tables after the code, runtime ones from KernelParams,
// converted as the reference gathers them.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86WIDEPARAMETERS_H
#define QJIT_JIT_ASMJIT_X86WIDEPARAMETERS_H

#include "X86Isa.h"

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <vector>

namespace qjit::asmjit_backend {

/// Broadcast registers of the wide kernels (ymm, AVX2).
namespace wide {
constexpr unsigned kScale = reg::kScale;         ///< s or fl(1/s), in C.
constexpr unsigned kZeroPoint = reg::kZeroPoint; ///< z_C, in C.
constexpr unsigned kLow = reg::kLow;             ///< min, f64.
constexpr unsigned kHigh = reg::kHigh;           ///< max, f64.
constexpr unsigned kZeroHigh = 12;               ///< h, f64.
constexpr unsigned kZeroLow = 13;                ///< l, f64.
constexpr unsigned kNaNValue = 14;               ///< clamp(z), f64.
constexpr unsigned kNaNStored = 7;               ///< clamp(z), i32 lanes.
/// Parameter loads; then, with smallZeroFlag, non-zero exactly when the
/// run's |z| <= 2^24 (vptest it).
constexpr unsigned kScratch = 15;
} // namespace wide

class X86WideParameters {
public:
  /// `reciprocal`: the scale register holds fl_C(1/s). `sum`: also load h,
  /// l and both forms of clamp(z) (qcast). `smallZeroFlag` (runtime
  /// parameters): also set wide::kScratch per run.
  X86WideParameters(const KernelSpec &spec, bool reciprocal, bool sum,
                    bool smallZeroFlag = false);

  /// Loads parameter reg::paramIndex into the wide:: registers (clobbers
  /// reg::scratch, reg::scratch2 and wide::kScratch).
  void emitLoad(x86::Assembler &a);
  void emitData(x86::Assembler &a);

private:
  /// A float storage qcast does not add a zero point of 0 (docs/semantics.md
  /// 8.2 step 2): it adds −0 instead, which is u itself, −0 included.
  bool zeroIsNegativeZero() const {
    return spec_.op == KernelOp::QCast &&
           spec_.storage.kind == StorageType::Kind::Float;
  }
  void emitRuntimeLoad(x86::Assembler &a);
  /// Broadcasts the scalar in the low lane of xmm `id` (C's width).
  void emitBroadcast(x86::Assembler &a, unsigned id, bool f64);

  const KernelSpec &spec_;
  bool f64_;
  bool reciprocal_;
  bool sum_;
  bool smallZeroFlag_;
  /// Baked: six arrays of `count` 8-byte entries (scale and z_C in C, as
  /// f32 in the low half of their entry, or f64; h; l; clamp(z) as f64,
  /// then as i32 bits in the low half).
  std::vector<uint64_t> table_;
  size_t count_ = 0;
  asmjit::Label tableLabel_;
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86WIDEPARAMETERS_H
