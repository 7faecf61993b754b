//===- AsmjitBackend.cpp - KernelSpec → machine code in microseconds ------===//
//
// The asmjit backend assembles kernels directly (no IR, no register
// allocator): x86-64 AVX-512 / AVX2 kernels into a JitRuntime (which maps
// the code W^X), and AArch64 NEON code bytes and listings on any host.
//
//===----------------------------------------------------------------------===//
#include "A64Target.h"
#include "AsmjitAssembly.h"
#include "X86DynamicQuantize.h"
#include "X86Generators.h"

#include "../FinishedKernel.h"
#include "plan/KernelPlan.h"
#include "plan/LayoutPeriod.h"

#include "qjit/internal/Backend.h"
#include "qjit/internal/DynamicParameters.h"

#include <asmjit/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

namespace qjit {

namespace {

using namespace asmjit_backend;

class AsmjitBackend final : public Backend {
public:
  explicit AsmjitBackend(IsaLevel isa)
      : isa_(isa), runtime_(std::make_shared<asmjit::JitRuntime>()) {}

  std::string_view name() const override { return "asmjit"; }
  IsaLevel isa() const override { return isa_; }

  Expected<CompiledCode> compile(const KernelSpec &spec) override {
    auto start = std::chrono::steady_clock::now();
    if (isa_ > hostIsaLevel())
      return Status::error(ErrorCode::BackendFailure,
                           "asmjit backend: this host cannot run " +
                               std::string(isaLevelName(isa_)) +
                               " code (assembly only)");
    asmjit::CodeHolder code;
    code.init(runtime_->environment());
    // A dynamic qcast's entry passes its parts to the driver; the parts
    // learn where the passes are once the code is mapped.
    std::shared_ptr<DynamicQuantizeParts> parts;
    X86DynamicLabels labels;
    if (spec.params.dynamic != DynamicScheme::None) {
      parts = std::make_shared<DynamicQuantizeParts>();
      parts->spec = spec;
      parts->runLength = plan::dynamicGroupRun(spec.layout);
      if (Status status = assembleX86DynamicKernel(code, X86Isa(isa_), spec,
                                                   parts.get(), labels);
          !status)
        return status;
    } else if (Status status = assembleX86Kernel(code, X86Isa(isa_), spec);
               !status) {
      return status;
    }

    void *entry = nullptr;
    if (asmjit::Error err = runtime_->add(&entry, &code))
      return Status::error(ErrorCode::BackendFailure,
                           std::string("asmjit backend: no executable "
                                       "memory for the kernel: ") +
                               asmjit::DebugUtils::errorAsString(err));
    if (parts) {
      auto at = [&](const asmjit::Label &label) {
        return static_cast<char *>(entry) + code.labelOffsetFromBase(label);
      };
      parts->range = reinterpret_cast<RangeRunsFn>(at(labels.range));
      parts->quantize = reinterpret_cast<ParamKernelFn>(at(labels.quantize));
      if (labels.batches.isValid()) {
        parts->batches = reinterpret_cast<RangeBatchesFn>(at(labels.batches));
        parts->batchRuns = x86RangeBatchRuns(X86Isa(isa_));
      }
      if (labels.chooseBatches.isValid())
        parts->chooseBatches =
            reinterpret_cast<ChooseBatchesFn>(at(labels.chooseBatches));
    }
    CompiledCode compiled;
    compiled.entry = entry;
    compiled.owner = std::shared_ptr<const void>(
        entry, [runtime = runtime_, parts](const void *p) {
          runtime->release(const_cast<void *>(p));
        });
    compiled.codeBytes = code.codeSize();
    if (parts) // The passes, in the order they are emitted.
      for (auto [name, label] : {std::pair{"range", labels.range},
                                 {"batches", labels.batches},
                                 {"choose-batches", labels.chooseBatches},
                                 {"quantize", labels.quantize}})
        if (label.isValid())
          compiled.parts.push_back(
              {name, static_cast<size_t>(code.labelOffsetFromBase(label))});
    compiled.backend = "asmjit";
    compiled.isa = x86KernelIsa(spec, X86Isa(isa_)).level();
    auto elapsed = std::chrono::steady_clock::now() - start;
    detail::finishKernel(
        spec, compiled,
        static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)
                .count()));
    return compiled;
  }

  KernelFit fit(const KernelSpec &spec) const override {
    return x86KernelFit(spec, X86Isa(isa_));
  }

  std::string fitReason(const KernelSpec &spec) const override {
    if (Status status = checkX86Support(spec, X86Isa(isa_)); !status)
      return status.message();
    const plan::KernelFitRow *row = x86FitRow(spec, X86Isa(isa_));
    return row ? plan::describeFitRow(*row) : std::string();
  }

  std::string mainLoop(const KernelSpec &spec) const override {
    // A dynamic qcast's main loop is its quantizing pass.
    const KernelSpec quantize = spec.params.dynamic == DynamicScheme::None
                                    ? spec
                                    : quantizeWithChosenParameters(spec);
    plan::KernelFamily family = plan::kernelFamily(quantize);
    bool f32Quantize = family == plan::KernelFamily::Quantize ||
                       family == plan::KernelFamily::QuantizeFloat ||
                       family == plan::KernelFamily::QuantizeQuantile;
    if (!f32Quantize || !checkX86Support(quantize, X86Isa(isa_)))
      return {};
    return describeX86Quantize(quantize, x86KernelIsa(quantize, X86Isa(isa_)));
  }

  Expected<std::string> assembly(const KernelSpec &spec,
                                 const AsmOptions &options) override {
    if (options.objectFile)
      return Status::error(ErrorCode::Unsupported,
                           "asmjit backend: no object files (-filetype=obj "
                           "needs --backend=llvm)");
    // Every AArch64 CPU gets the same NEON code: -mcpu changes nothing.
    if (isAArch64Triple(options.triple)) {
      Expected<TargetCode> code = emitForTarget(spec, options);
      if (!code)
        return code.status();
      return std::move(code->listing);
    }
    Expected<IsaLevel> level = listingIsaLevel(isa_, options);
    if (!level)
      return level.status();
    return x86Assembly(spec, *level, options);
  }

  Expected<TargetCode> emitForTarget(const KernelSpec &spec,
                                     const AsmOptions &options) override {
    if (!isAArch64Triple(options.triple))
      return Status::error(ErrorCode::Unsupported,
                           "asmjit backend: emitForTarget generates for "
                           "aarch64 triples; the host uses compile()");
    return a64TargetCode(spec, options.triple);
  }

private:
  IsaLevel isa_;
  std::shared_ptr<asmjit::JitRuntime> runtime_;
};

} // namespace

Expected<std::unique_ptr<Backend>> createAsmjitBackend(IsaLevel isa) {
  // A level above the host's generates listings (and compile-only test
  // sweeps) but cannot compile(); the runtime asks for capped levels.
  if (isa < IsaLevel::Avx2)
    return Status::error(
        ErrorCode::Unsupported,
        "asmjit backend: needs AVX2 (ISA level is " +
            std::string(isaLevelName(isa)) +
            "); fall back to the llvm backend or the reference");
  return std::unique_ptr<Backend>(std::make_unique<AsmjitBackend>(isa));
}

} // namespace qjit
