//===- X86Parameters.h - Scales and zero points into registers --*- C++ -*-===//
//
// Loads the parameters of one run into vec(reg::kScale) and
// vec(reg::kZeroPoint), in f32: baked per-tensor values as immediates,
// baked per-axis / blockwise values from tables placed after the code,
// runtime values from KernelParams (converted exactly as the reference
// gathers them: scale widened from the expressed format, zero point
// rounded to f32, the reciprocal computed once per run).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86PARAMETERS_H
#define QJIT_JIT_ASMJIT_X86PARAMETERS_H

#include "X86Isa.h"
#include "X86ParameterGroups.h"
#include "X86StackSlots.h"

#include "qjit/KernelSpec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace qjit::asmjit_backend {

/// How KernelParams::scales holds runtime scales (docs/semantics.md 2.3):
/// in the expressed type's format, or the spec's ScaleFormat.
enum class X86ScaleType : uint8_t { F64, F32, F16, BF16, E8M0 };
X86ScaleType x86ScaleType(const KernelSpec &spec);

/// What the kernel does with the scale.
enum class ScaleUse {
  Multiply,             ///< dcast: · s.
  Divide,               ///< qcast `divide`: exactly x / s.
  MultiplyByReciprocal, ///< qcast `reciprocal`: x · fl(1/s).
};

class X86Parameters final : public X86ParameterGroups {
public:
  X86Parameters(const KernelSpec &spec, const X86Isa &isa, ScaleUse use);

  /// The instruction to apply with scale(): vdivps, or vmulps. A `divide`
  /// by baked powers of two or by E8M0 runtime scales multiplies by their
  /// exact reciprocals (plan::divisionIsMultiplication): x / s and x · (1/s)
  /// are then the same real number, so one IEEE rounding gives the same
  /// result for every x (subnormal, infinite and NaN too).
  asmjit::InstId scaleInstruction() const { return scaleInstruction_; }

  /// Baked parameters whose zero points are all 0 (and not biased): no
  /// add/sub needed.
  bool zeroPointsAreZero() const {
    return (zeroPointsAreZero_ || groupZeroPointsZero_) && !biased_;
  }

  /// Whether biasZeroPoints() may be used: broadcast parameters whose
  /// baked zero points z all keep bias + z exact (|z| <= 2^22), or
  /// runtime ones (checked per run).
  bool canBiasZeroPoints() const;
  /// The zero point operands hold laneBiases[i] + z in lane i (biased
  /// packed loads, X86PackedCodes::laneBiases). A runtime z outside
  /// ±2^22 sets stack::zeroPointOutOfRange() for the run and leaves the
  /// operands at z: the body then subtracts laneBiasTable() first.
  void biasZeroPoints(const std::array<float, 8> &laneBiases);
  /// Runtime zero points may be out of the biased range (see above); not
  /// in a group whose zero points are all 0 (setGroupZeroPointsZero).
  bool checksBiasRange() const {
    return biased_ && runtime_ && !groupZeroPointsZero_;
  }
  /// The 8 lane biases in memory.
  x86::Mem laneBiasTable(x86::Assembler &a);
  /// How runtime scales are stored.
  X86ScaleType scaleType() const { return scaleType_; }
  /// Baked scales only (runtime scales are unknown, so false).
  bool baked() const { return !runtime_; }
  /// Baked operands that are all finite: x op s is NaN exactly when x is
  /// (fl(1/s) overflows to inf for tiny s, and 0 · inf is NaN).
  bool bakedOperandsFinite() const {
    return baked() && std::all_of(scales_.begin(), scales_.end(),
                                  [](float s) { return std::isfinite(s); });
  }
  /// Per-element tables over one period (see X86VectorBody::
  /// parameterBytes): 4 bytes per element, or 0 for broadcast registers.
  unsigned parameterBytes() const { return perElement_ ? 4 : 0; }

  /// The scale and zero point operands of a vector in register slot
  /// `slot`: broadcast registers, or the slot's entries of the tables.
  /// With reciprocals kept (keepReciprocals()), the broadcast register
  /// holds fl(1/s) instead: see reciprocal() and emitLoadScale().
  asmjit::Operand scale(unsigned slot) const;
  asmjit::Operand zeroPoint(unsigned slot) const;

  /// `divide`: also keep fl(1/s) of every parameter, in vec(reg::kScale)
  /// for broadcast parameters (call before emitting). Runtime parameters
  /// also set `threshold`'s lanes per run: `passBits`, or all ones when
  /// s or z is outside the checked-reciprocal range (2^-60 <= |s| <= 2^60,
  /// |z| <= zeroPointLimit).
  void keepReciprocals(const x86::Vec &threshold = {}, uint32_t passBits = 0,
                       int64_t zeroPointLimit = 0);
  bool perElement() const { return perElement_; }
  /// fl(1/s) of a slot's lanes (keepReciprocals()).
  asmjit::Operand reciprocal(unsigned slot) const;
  /// Broadcasts the current run's scale s into `v` (broadcast parameters
  /// with keepReciprocals(); clobbers reg::scratch).
  void emitLoadScale(x86::Assembler &a, const x86::Vec &v);

  void emitLoad(x86::Assembler &a);
  void emitData(x86::Assembler &a);

  /// Runtime broadcast parameters (no f64 scales) may be prepared
  /// kGroupRuns runs at a time, in ymm lanes at every level: one vector
  /// division and range check for eight runs instead of a scalar one per
  /// run (short blockwise runs would otherwise spend a third of their time
  /// there; MXFP4 qcast at AVX-512, 64K elements: 28 -> 19 us, Xeon
  /// SPR-class VM, 2026-12-07).
  bool groupsRuntimeLoads() const;
  static constexpr unsigned kGroupRuns = 8;
  /// Bytes of the stack area a group is prepared in: scales, zero points,
  /// with biased zero points each run's out-of-range flag, and with
  /// shifted scales those scales and whether any of them is inexact.
  unsigned groupRuns() const override { return kGroupRuns; }
  int32_t groupAreaBytes() const override {
    const int32_t lastPart = shiftedScales_ ? stack::kGroupShiftInexact
                             : biased_      ? stack::kGroupOutOfRange
                                            : stack::kGroupZeroPoints;
    return lastPart + stack::kGroupPartBytes;
  }
  /// Groups also prepare s · 2^-28 (kGroupRuns at once): the scales of
  /// codes loaded as i32 lanes q · 2^28 (X86PackedCodes::emitLoadTop),
  /// exact unless a scale's product underflows. Runs of a group whose zero
  /// points are all 0 then load those (emitGroupMember), and
  /// emitJumpUnlessGroupZeroPointsZero also jumps when one of them is
  /// inexact. Biased zero points only (biasZeroPoints() first).
  void shiftGroupScales() { shiftedScales_ = biased_; }
  static constexpr float kGroupScaleShift = 0x1p-28f;
  /// Prepares parameters reg::paramIndex .. + kGroupRuns - 1 into `area`
  /// (laid out as X86StackSlots.h says; clobbers vec(0..7), kScalar*, the
  /// scratch registers and `counter`).
  void emitGroupLoad(x86::Assembler &a, const x86::Mem &area,
                     const x86::Gp &counter) override;
  /// Jumps to `withZeroPoints` unless the group prepared in `area` has
  /// only zero points of 0; zeroes vec(reg::kZeroPoint) (clobbers vec(0)).
  void emitJumpUnlessGroupZeroPointsZero(
      x86::Assembler &a, const x86::Mem &area,
      const asmjit::Label &withZeroPoints) override;
  /// RN(x·y + 0) and RN(x·y) (or x / s with and without + 0) differ only
  /// in the sign of a zero, which stores as 0 either way, and q − 0 is q
  /// (biased loads subtract the lane biases alone): symmetric groups skip
  /// the zero point.
  bool groupsSkipZeroPoints() const override { return true; }
  /// While set, zeroPointsAreZero() holds (biased: the zero point
  /// operands hold the lane biases) and emitGroupMember() loads only
  /// scales: for the runs of a group whose zero points are all 0.
  void setGroupZeroPointsZero(bool zero) override {
    groupZeroPointsZero_ = zero;
    zeroFreeCopies_ += zero;
  }
  bool groupZeroPointsZero() const { return groupZeroPointsZero_; }
  /// The zero-point-free copies of a group's runs begun so far: bodies
  /// that share code between the two copies of the runs tell them apart.
  unsigned zeroFreeCopies() const { return zeroFreeCopies_; }
  /// Loads one run of the prepared group as emitLoad() would: `member`
  /// addresses the area as area + 4·k for the run's index k < kGroupRuns
  /// (X86VectorBody::emitGroupMember).
  void emitGroupMember(x86::Assembler &a, const x86::Mem &member) override;

private:
  void emitRuntimeLoad(x86::Assembler &a);
  /// zeroIsNegativeZero_: the lanes of f32(z) in `z` that are +0 become −0;
  /// `scratch` is clobbered.
  void emitNegativeZeros(x86::Assembler &a, const x86::Vec &z,
                         const x86::Vec &scratch);
  /// Broadcast zero points: adds the lane biases (biasZeroPoints()).
  void emitAddLaneBiases(x86::Assembler &a);
  void expandPerElement(const KernelSpec &spec);

  X86Isa isa_;
  ValueType expressed_;
  X86ScaleType scaleType_; ///< Runtime scales.
  bool reciprocal_;        ///< Load fl(1/s) rather than s.
  asmjit::InstId scaleInstruction_;
  bool runtime_;
  bool perTensor_;
  /// Float storage qcast: a zero point of 0 is −0 in C, so that adding it
  /// keeps u = −0 (docs/semantics.md 8.2 step 2).
  bool zeroIsNegativeZero_;
  bool zeroPointsAreZero_ = true;
  bool groupZeroPointsZero_ = false;
  unsigned zeroFreeCopies_ = 0;
  bool perElement_ = false;
  int32_t zeroPointTableOffset_ = 0;  ///< Per-element: bytes after scales.
  int32_t reciprocalTableOffset_ = 0; ///< Per-element: after zero points.
  bool keepReciprocals_ = false;
  x86::Vec threshold_;
  uint32_t passBits_ = 0;
  int64_t zeroPointLimit_ = 0;
  bool biased_ = false;
  bool shiftedScales_ = false; ///< shiftGroupScales().
  std::array<float, 8> laneBiases_{};
  asmjit::Label laneBiasTable_;
  std::vector<float> divisors_; ///< Baked s, in f32.
  asmjit::Label divisorTable_;  ///< Broadcast tables: s (keepReciprocals()).
  asmjit::Label perElementTable_;
  std::vector<float> scales_;           ///< Baked: s or fl(1/s), in f32.
  std::vector<float> zeroPoints_;       ///< Baked: f32(z).
  std::vector<float> perElementTables_; ///< Scales, then zero points.
  asmjit::Label scaleTable_, zeroPointTable_;
  asmjit::Label groupConstants_; ///< emitGroupLoad's vector constants.
};

/// The bit pattern of a float (for immediates).
uint32_t floatBits(float value);

/// Loads KernelParams::scales[reg::paramIndex] into the low lane of `s`,
/// exactly: F64 as f64, the others widened to f32 (E8M0 byte b: 2^(b-127),
/// b = 0 the subnormal 2^-127, b = 255 the quiet NaN 0x7fc00000).
/// Clobbers reg::scratch.
void emitLoadRuntimeScale(x86::Assembler &a, X86ScaleType type,
                          const x86::Xmm &s);
/// Loads the scales from reg::paramIndex on into every f32 lane of `s`
/// (8 for a ymm, 16 for a zmm), as emitLoadRuntimeScale does one (not F64).
/// Clobbers reg::scratch, and for E8M0 `temp`, `temp2` (and k2, k3: zmm).
void emitLoadRuntimeScales(x86::Assembler &a, X86ScaleType type,
                           const x86::Vec &s, const x86::Vec &temp,
                           const x86::Vec &temp2);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86PARAMETERS_H
