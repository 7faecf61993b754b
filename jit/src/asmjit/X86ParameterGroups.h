//===- X86ParameterGroups.h - Runs' parameters prepared at once -*- C++ -*-===//
//
// The frame's one collaborator for parameters prepared several runs at a
// time (X86KernelFrame.cpp, emitWholeRunGroups): a vector body that has
// them hands the frame their source (X86Parameters for runtime broadcast
// parameters, the fixed-point bracket its own) instead of forwarding each
// of these hooks.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86PARAMETERGROUPS_H
#define QJIT_JIT_ASMJIT_X86PARAMETERGROUPS_H

#include "X86Isa.h"

#include <cstdint>

namespace qjit::asmjit_backend {

class X86ParameterGroups {
public:
  virtual ~X86ParameterGroups() = default;
  /// Consecutive runs a group prepares at once.
  virtual unsigned groupRuns() const = 0;
  /// Bytes of the stack area a group is prepared in.
  virtual int32_t groupAreaBytes() const = 0;
  /// Prepares runs reg::paramIndex .. + groupRuns() - 1 into `area`; may
  /// clobber `counter`.
  virtual void emitGroupLoad(x86::Assembler &a, const x86::Mem &area,
                             const x86::Gp &counter) = 0;
  /// The parameters of run k of the prepared group; `member` is the area
  /// advanced by 4·k bytes (k in a register index or a displacement).
  virtual void emitGroupMember(x86::Assembler &a, const x86::Mem &member) = 0;
  /// Whether groups whose zero points are all 0 may run without them
  /// (symmetric runtime parameters): the frame then tests each prepared
  /// group and emits its runs twice, once between
  /// setGroupZeroPointsZero(true) and (false).
  virtual bool groupsSkipZeroPoints() const { return false; }
  /// Jumps to `withZeroPoints` unless every zero point of the group
  /// prepared in `area` is 0.
  virtual void
  emitJumpUnlessGroupZeroPointsZero(x86::Assembler &a, const x86::Mem &area,
                                    const asmjit::Label &withZeroPoints) {
    (void)a, (void)area, (void)withZeroPoints;
  }
  virtual void setGroupZeroPointsZero(bool zero) { (void)zero; }
};

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86PARAMETERGROUPS_H
