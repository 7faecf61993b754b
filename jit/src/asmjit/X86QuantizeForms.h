//===- X86QuantizeForms.h - The main-loop forms of an f32 qcast -*- C++ -*-===//
//
// An f32 qcast's main loop takes one form, decided once by x86QuantizeForm
// from the plan's decisions (plan/: the checked reciprocal, Markstein's
// range), the ISA and the parameters, and emitted by that form's body
// alone: no body switches between forms. `qjit spec --plan`
// names the form (describeX86Quantize, X86Generators.h).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86QUANTIZEFORMS_H
#define QJIT_JIT_ASMJIT_X86QUANTIZEFORMS_H

#include "X86FrameOptions.h"
#include "X86Isa.h"
#include "X86Parameters.h"

#include "plan/CheckedReciprocal.h"

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace qjit::asmjit_backend {

enum class X86QuantizeLoop : uint8_t {
  /// AVX-512 8-bit integer storage, the 16.16 fixed-point bracket
  /// (X86FixedBracketBody.h).
  FixedPointBracket,
  /// Integer storage, u = x op s per vector (X86IntegerQuantizeBody.h).
  Exact,
  /// AVX2 8-bit integer storage: x · fl(1/s), every lane checked, four
  /// vectors divided again when one fails (X86CheckedQuantizeBody.cpp).
  CheckedReciprocal,
  /// The checked reciprocal's bracket: two FMAs and two conversions per
  /// vector, one zero point (X86CheckedQuantizeBody.cpp).
  BracketedReciprocal,
  /// Float storage through the format's encoder (X86FloatQuantizeBody.cpp).
  FloatEncoder,
  /// Float storage with |x| clamped before the scaling (saturate on, zero
  /// points 0, one baked scale in [2^-32, 1]).
  ClampedFloatEncoder,
  /// Quantile storage, a search per vector (X86QuantileQuantizeBody.cpp).
  QuantileSearch,
  /// Packed 4-bit tables with one baked scale: the search of four vectors
  /// ends on packed bytes.
  PackedTableSearch,
};

struct X86QuantizeForm {
  X86QuantizeLoop loop = X86QuantizeLoop::Exact;
  /// CheckedReciprocal, BracketedReciprocal: the plan's checked reciprocal.
  std::optional<plan::CheckedReciprocalPlan> checked;
  /// Float storage: fl(1/s) where Markstein's division
  /// (plan/MarksteinDivision.h) replaces vdivps in half the main loop's
  /// vectors (one baked scale s in [2^-32, 1], f32, per tensor).
  std::optional<float> marksteinReciprocal;
  /// ClampedFloatEncoder: X = RN(H·s), the bound of |x|.
  float inputBound = 0;
};

/// The form of `spec`'s qcast main loop at `isa` (an f32 qcast family,
/// already at x86KernelIsa), `params` its parameters, where the fixed-point
/// bracket does not apply (x86FixedBracketApplies: it takes no
/// X86Parameters, so generateX86Quantize asks first).
X86QuantizeForm x86QuantizeForm(const KernelSpec &spec, const X86Isa &isa,
                                const X86Parameters &params);
/// The form and what it does, in words.
std::string describeX86QuantizeForm(const X86QuantizeForm &form);

/// The bodies, each for its forms (X86FixedBracketBody.h has the first).
void generateX86IntegerQuantize(x86::Assembler &a, const X86Isa &isa,
                                const KernelSpec &spec, X86Parameters params,
                                const X86QuantizeForm &form,
                                const X86FrameOptions &options);
void generateX86FloatQuantize(x86::Assembler &a, const X86Isa &isa,
                              const KernelSpec &spec, X86Parameters params,
                              const X86QuantizeForm &form,
                              const X86FrameOptions &options);
void generateX86QuantileQuantize(x86::Assembler &a, const X86Isa &isa,
                                 const KernelSpec &spec, X86Parameters params,
                                 const X86QuantizeForm &form,
                                 const X86FrameOptions &options);

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86QUANTIZEFORMS_H
