//===- QemuRunner.h - Runs AArch64 kernels under qemu-user ------*- C++ -*-===//
//
// Writes flat AArch64 kernels (qjit::TargetCode) and their prepared calls
// (KernelTester::PreparedCall; dynamic qcast's DynamicTester too) to one
// job file in a temporary directory,
// runs the cross-built runner (runner/KernelRunner.c) once under
// qemu-aarch64-static for the whole batch (process start dominates a
// single call), and reads back each call's guarded output.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_AARCH64_QEMURUNNER_H
#define QJIT_TESTS_AARCH64_QEMURUNNER_H

#include "KernelTester.h"

#include "qjit/internal/Backend.h"

#include <optional>
#include <string>
#include <vector>

namespace qjit::testing {

/// Why AArch64 kernels cannot run here (no qemu, no cross-built runner),
/// or nothing when they can.
std::optional<std::string> missingAArch64Tools();

/// One kernel and the calls to make with it.
struct QemuKernel {
  const TargetCode *code = nullptr;
  const KernelSpec *spec = nullptr;
  const KernelTester::CallParams *params = nullptr;
  const std::vector<KernelTester::PreparedCall> *calls = nullptr;
  /// A dynamic qcast (DynamicKernelFn) writes this many scales of
  /// `dynamicScaleBytes` each and as many zero points; its ranges are
  /// values of `dynamicValueBytes`.
  size_t dynamicParameters = 0, dynamicValueBytes = 0, dynamicScaleBytes = 0;
};

/// What one call produced: each output with its guards, and whether the
/// input stayed untouched.
struct QemuCallResult {
  bool inputUnchanged = false;
  std::vector<uint8_t> output;
  std::vector<uint8_t> scales, zeroPoints; ///< Dynamic qcast only.
};

/// Runs every kernel's calls in one qemu process; results[k][c] belongs to
/// kernels[k]'s call c. Fails with the runner's message on a crash.
::testing::AssertionResult
runUnderQemu(const std::vector<QemuKernel> &kernels,
             std::vector<std::vector<QemuCallResult>> &results);

} // namespace qjit::testing

#endif
