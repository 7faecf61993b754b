//===- Backend.h - Code generators behind the runtime -----------*- C++ -*-===//
//
// A Backend turns a KernelSpec into executable code for the host, and into
// assembly text for any target it supports. Backends report failures as
// values; the runtime picks one (or the scalar reference) per its options.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BACKEND_H
#define QJIT_BACKEND_H

#include "qjit/Error.h"
#include "qjit/Isa.h"
#include "qjit/KernelSpec.h"
#include "qjit/internal/CodeStore.h"
#include "qjit/internal/KernelFit.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qjit {

/// Executable code for one kernel. The code stays mapped while `owner` (or
/// any copy of it) is alive; dropping the last copy frees it.
struct CompiledCode {
  const void *entry = nullptr; ///< KernelFn or ParamKernelFn per the spec.
  std::shared_ptr<const void> owner;
  size_t codeBytes = 0;
  std::string backend; ///< "llvm", "asmjit", ...
  IsaLevel isa = IsaLevel::Scalar;
  /// Where the code holds parts of its own past the entry's (a dynamic
  /// qcast's passes): each runs from `offset` to the next part or the end.
  /// The perf map (QJIT_PERF_MAP) names them apart.
  struct Part {
    std::string name;
    size_t offset = 0;
  };
  std::vector<Part> parts; ///< By offset.
};

/// Machine code for a target other than the host (e.g. aarch64-linux-gnu),
/// never executed by this process: position independent, every constant
/// and relocation resolved, so it runs wherever `bytes` are mapped
/// executable at a 4 KiB-aligned address (AArch64 `adrp` works in pages).
/// The entry point follows KernelFn / ParamKernelFn per the spec.
struct TargetCode {
  std::vector<uint8_t> bytes;
  size_t entryOffset = 0;
  std::string triple;
  /// What `qjit asm` prints for this target: a listing of these very bytes.
  std::string listing;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  /// The x86 ISA level the backend was created for. It may be above the
  /// host's: then compile() fails and assembly() still generates.
  virtual IsaLevel isa() const = 0;
  /// Compiles `spec` for the host at this backend's ISA level.
  virtual Expected<CompiledCode> compile(const KernelSpec &spec) = 0;
  /// What compile(spec) would make, without compiling (cheap: no code is
  /// generated). A kernel that fits may still fail to compile.
  virtual KernelFit fit(const KernelSpec &spec) const = 0;
  /// Why fit(spec) is below Specialized: what is not generated, or the fit
  /// table's condition and its measurement (jit/src/plan/KernelFits.def).
  /// Empty for a Specialized fit.
  virtual std::string fitReason(const KernelSpec &spec) const = 0;
  /// Which of its main-loop forms the backend's kernel for `spec` takes and
  /// what the form does, in words; empty where the backend has one form
  /// for the spec's family, or does not generate it.
  virtual std::string mainLoop(const KernelSpec &spec) const {
    (void)spec;
    return {};
  }
  /// Assembly text for `spec` (with a header comment: spec, backend,
  /// target, features).
  virtual Expected<std::string> assembly(const KernelSpec &spec,
                                         const AsmOptions &options) = 0;
  /// Code bytes of `spec` for `options.triple` (a cross target; empty
  /// means the host, which only some backends support). Unsupported
  /// targets and specs fail with ErrorCode::Unsupported.
  virtual Expected<TargetCode> emitForTarget(const KernelSpec &spec,
                                             const AsmOptions &options) = 0;
  /// A persistent store compile() may reload code from and save code to
  /// (null: none). Backends that re-emit faster than they could load
  /// ignore it.
  virtual void setCodeStore(std::shared_ptr<CodeStore> store) { (void)store; }
};

/// The backends this build has, by name: "llvm", "asmjit".
Expected<std::unique_ptr<Backend>> createBackend(std::string_view name,
                                                 IsaLevel isa);
Expected<std::unique_ptr<Backend>> createLlvmBackend(IsaLevel isa);
Expected<std::unique_ptr<Backend>> createAsmjitBackend(IsaLevel isa);

} // namespace qjit

#endif // QJIT_BACKEND_H
