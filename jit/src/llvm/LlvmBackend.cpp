//===- LlvmBackend.cpp - The LLVM ORC backend -----------------------------===//
//
// compile(): KernelSpec → IR (KernelIr) → optimizeModule at
// kLlvmJitOptLevel for the host TargetMachine →
// the backend's JitSession → finishKernel. assembly() and llvmIr() build
// the same module with the same TargetMachine configuration (LlvmTarget).
// emitForTarget() compiles for AArch64 ELF targets to flat code bytes
// (TargetObject); for those, assembly() is the listing of those bytes.
//
//===----------------------------------------------------------------------===//
#include "qjit/LlvmBackend.h"

#include "FinishedKernel.h"
#include "JitSession.h"
#include "KernelIr.h"
#include "Optimizer.h"
#include "TargetObject.h"

#include "qjit/Backend.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <atomic>
#include <chrono>
#include <mutex>

namespace qjit {

namespace {

using namespace llvmjit;

/// A fresh context and an optimized kernel module for `config`.
struct OptimizedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
};

/// The kernel module optimized for `machine` (not kept in the result).
Expected<OptimizedModule> buildOptimized(const KernelSpec &spec,
                                         const TargetConfig &config,
                                         const std::string &name, int optLevel,
                                         llvm::TargetMachine &machine) {
  OptimizedModule result;
  result.context = std::make_unique<llvm::LLVMContext>();
  Expected<std::unique_ptr<llvm::Module>> module =
      buildKernelModule(*result.context, spec, config.vector, name);
  if (!module)
    return module.status();
  result.module = std::move(*module);
  optimizeModule(*result.module, machine, optLevel);
  return result;
}

Expected<OptimizedModule> buildOptimized(const KernelSpec &spec,
                                         const TargetConfig &config,
                                         const std::string &name,
                                         int optLevel) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(config);
  if (!machine)
    return machine.status();
  Expected<OptimizedModule> result =
      buildOptimized(spec, config, name, optLevel, **machine);
  if (result)
    result->machine = std::move(*machine);
  return result;
}

class LlvmBackend final : public Backend {
public:
  LlvmBackend(IsaLevel isa, TargetConfig host,
              std::shared_ptr<JitSession> session)
      : isa_(isa), host_(std::move(host)), session_(std::move(session)) {}

  std::string_view name() const override { return "llvm"; }

  /// Every kernel is optimized for its spec (O3 on the whole kernel).
  KernelFit fit(const KernelSpec &) const override {
    return KernelFit::Specialized;
  }

  Expected<CompiledCode> compile(const KernelSpec &spec) override {
    auto start = std::chrono::steady_clock::now();
    if (!session_)
      return Status::error(ErrorCode::BackendFailure,
                           "llvm: this host cannot run " +
                               std::string(isaLevelName(isa_)) +
                               " code (assembly only)");
    std::string symbol =
        "qjit_" + spec.kernelName() + "_" + std::to_string(counter_++);
    Expected<OptimizedModule> built = buildWithHostMachine(spec, symbol);
    if (!built)
      return built.status();
    Expected<JitKernel> kernel =
        session_->add(llvm::orc::ThreadSafeModule(std::move(built->module),
                                                  std::move(built->context)),
                      symbol);
    if (!kernel)
      return kernel.status();
    CompiledCode code;
    code.entry = kernel->entry;
    code.owner = std::move(kernel->owner);
    code.codeBytes = kernel->codeBytes;
    code.backend = "llvm";
    code.isa = isa_;
    auto elapsed = std::chrono::steady_clock::now() - start;
    detail::finishKernel(
        spec, code,
        std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
    return code;
  }

  Expected<std::string> assembly(const KernelSpec &spec,
                                 const AsmOptions &options) override {
    Expected<TargetConfig> config = asmTargetConfig(isa_, options);
    if (!config)
      return config.status();
    if (producesFlatCode(*config)) {
      Expected<TargetCode> code = emitForTarget(spec, options);
      if (!code)
        return code.status();
      return std::move(code->listing);
    }
    Expected<OptimizedModule> built = buildOptimized(
        spec, *config, "qjit_" + spec.kernelName(), kLlvmJitOptLevel);
    if (!built)
      return built.status();
    if (options.intelSyntax && built->machine->getTargetTriple().isX86())
      built->machine->Options.MCOptions.OutputAsmVariant = 1;
    llvm::SmallString<4096> text;
    llvm::raw_svector_ostream os(text);
    os << listingHeader(spec, *config);
    llvm::legacy::PassManager passes;
    if (built->machine->addPassesToEmitFile(
            passes, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      return Status::error(ErrorCode::Unsupported,
                           "llvm: the target cannot emit assembly");
    passes.run(*built->module);
    return std::string(text.str());
  }

  Expected<TargetCode> emitForTarget(const KernelSpec &spec,
                                     const AsmOptions &options) override {
    Expected<TargetConfig> config = asmTargetConfig(isa_, options);
    if (!config)
      return config.status();
    if (!producesFlatCode(*config))
      return Status::error(ErrorCode::Unsupported,
                           "llvm: emitForTarget compiles for AArch64 ELF "
                           "targets (e.g. aarch64-linux-gnu), not '" +
                               config->triple + "'; the host uses compile()");
    std::string symbol = "qjit_" + spec.kernelName();
    Expected<OptimizedModule> built =
        buildOptimized(spec, *config, symbol, kLlvmJitOptLevel);
    if (!built)
      return built.status();
    Expected<FlatImage> image =
        emitFlatImage(*built->module, *built->machine, symbol);
    if (!image)
      return image.status();
    Expected<std::string> listing = disassembleImage(*image, *built->machine);
    if (!listing)
      return listing.status();
    TargetCode code;
    code.triple = config->triple;
    code.entryOffset = image->entryOffset;
    code.listing = listingHeader(spec, *config) +
                   "# flat image: " + std::to_string(image->bytes.size()) +
                   " bytes, entry at offset " +
                   std::to_string(image->entryOffset) + "\n" + *listing;
    code.bytes = std::move(image->bytes);
    return code;
  }

private:
  /// Cross targets whose objects TargetObject flattens: for them `qjit
  /// asm` prints the listing of the flat code the tests run.
  static bool producesFlatCode(const TargetConfig &config) {
    llvm::Triple triple(config.triple);
    return triple.isAArch64() && triple.isOSBinFormatELF();
  }

  std::string listingHeader(const KernelSpec &spec,
                            const TargetConfig &config) const {
    return "# spec: " + spec.canonicalString() + "\n# backend: llvm (isa cap " +
           std::string(isaLevelName(isa_)) + ")\n# target: " + config.triple +
           " cpu=" + config.cpu + "\n# features: " + config.features + "\n";
  }

  /// Kernels for the JIT share one TargetMachine (creating one costs a
  /// noticeable part of a compile); it is not thread-safe, hence the lock.
  Expected<OptimizedModule> buildWithHostMachine(const KernelSpec &spec,
                                                 const std::string &symbol) {
    std::lock_guard<std::mutex> lock(machineMutex_);
    if (!hostMachine_) {
      Expected<std::unique_ptr<llvm::TargetMachine>> machine =
          createTargetMachine(host_);
      if (!machine)
        return machine.status();
      hostMachine_ = std::move(*machine);
    }
    return buildOptimized(spec, host_, symbol, kLlvmJitOptLevel, *hostMachine_);
  }

  IsaLevel isa_;
  TargetConfig host_;
  std::mutex machineMutex_;
  std::unique_ptr<llvm::TargetMachine> hostMachine_;
  std::shared_ptr<JitSession> session_; ///< Null above the host's level.
  std::atomic<uint64_t> counter_{0};
};

} // namespace

Expected<std::unique_ptr<Backend>> createLlvmBackend(IsaLevel isa) {
  initializeLlvmTargets();
  TargetConfig host = hostTargetConfig(isa);
  std::shared_ptr<JitSession> session;
  if (isa <= hostIsaLevel()) {
    Expected<std::shared_ptr<JitSession>> created = JitSession::create(host);
    if (!created)
      return created.status();
    session = std::move(*created);
  }
  return std::unique_ptr<Backend>(
      new LlvmBackend(isa, std::move(host), std::move(session)));
}

Expected<std::string> llvmIr(const KernelSpec &spec, int optLevel,
                             IsaLevel isa) {
  initializeLlvmTargets();
  Expected<OptimizedModule> built = buildOptimized(
      spec, hostTargetConfig(isa), "qjit_" + spec.kernelName(), optLevel);
  if (!built)
    return built.status();
  std::string text;
  llvm::raw_string_ostream os(text);
  built->module->print(os, nullptr);
  return text;
}

} // namespace qjit
