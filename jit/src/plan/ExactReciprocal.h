//===- ExactReciprocal.h - Scales whose division is a multiply --*- C++ -*-===//
//
// The `divide` contract is u = RN(x / s) in the compute type C. When s is
// ±2^k and 1/s = ±2^-k is a normal number of C, x / s and x · (1/s) are the
// same real number for every x, and each operation rounds that number once
// (overflow and underflow included, in every rounding step), so the results
// are equal bit for bit, NaN and infinities included. Kernels then multiply.
// tests/plan/ExactReciprocalTest.cpp checks the claim at every exponent.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_PLAN_EXACTRECIPROCAL_H
#define QJIT_JIT_PLAN_EXACTRECIPROCAL_H

#include "qjit/KernelSpec.h"

#include <optional>

namespace qjit::plan {

/// 1/s when dividing by `scale` (a value of `compute`, F32 or F64) is
/// multiplying by it for every input; nullopt otherwise.
std::optional<double> exactReciprocal(double scale, ValueType compute);

/// Baked scale k of `spec` as a value of spec.compute.
double computeScale(const KernelSpec &spec, size_t k);

/// Whether every baked scale of `spec` (as spec.compute holds it) has an
/// exactReciprocal; false for runtime parameters.
bool scalesHaveExactReciprocals(const KernelSpec &spec);

/// Whether dividing by every scale of `spec` is multiplying by its
/// reciprocal: baked scales that scalesHaveExactReciprocals, or runtime
/// scales stored as E8M0 bytes. Those are 2^-127 .. 2^127 or NaN: the
/// reciprocal fl(1/s) is exact in f32 and f64 (2^-127 a subnormal of f32,
/// but exact), and x / s and x · (1/s) are one real number rounded once
/// (NaN s: NaN either way), so kernels multiply by fl(1/s) of each run.
bool divisionIsMultiplication(const KernelSpec &spec);

} // namespace qjit::plan

#endif
