//===- LlvmBackend.cpp - The LLVM ORC backend -----------------------------===//
//
// compile(): KernelSpec → IR (KernelIr) → optimizeModule at
// kLlvmJitOptLevel for the host TargetMachine → object code, all under
// FatalErrorGuard → the backend's JitSession links it → finishKernel.
// assembly() and llvmIr() build the same module with the same TargetMachine
// configuration (LlvmTarget). emitForTarget() compiles for AArch64 ELF targets
// to flat code bytes (TargetObject); for those, assembly() is the listing of
// those bytes.
//
//===----------------------------------------------------------------------===//
#include "qjit/internal/LlvmBackend.h"

#include "DiskObjectCache.h"
#include "FatalErrorGuard.h"
#include "FinishedKernel.h"
#include "JitSession.h"
#include "KernelIr.h"
#include "Optimizer.h"
#include "TargetObject.h"

#include "plan/KernelFits.h"

#include "qjit/internal/Backend.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <mutex>
#include <optional>
#include <random>

namespace qjit {

namespace {

using namespace llvmjit;

/// A fresh context and an optimized kernel module; the machine it was
/// optimized for when the module owns one (assembly and cross targets).
struct OptimizedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;

  /// After a failed runGuarded: all of it kept, none of it destroyed.
  void quarantine() {
    llvmjit::quarantine(module);
    llvmjit::quarantine(context);
    llvmjit::quarantine(machine);
  }
};

/// Builds the kernel module of `spec` into `built` and optimizes it for
/// `machine` (built.machine when null).
Status buildOptimized(OptimizedModule &built, const KernelSpec &spec,
                      const TargetConfig &config, const std::string &name,
                      int optLevel, llvm::TargetMachine *machine) {
  if (!machine) {
    Expected<std::unique_ptr<llvm::TargetMachine>> created =
        createTargetMachine(config);
    if (!created)
      return created.status();
    built.machine = std::move(*created);
    machine = built.machine.get();
  }
  built.context = std::make_unique<llvm::LLVMContext>();
  Expected<std::unique_ptr<llvm::Module>> module =
      buildKernelModule(*built.context, spec, config.vector, name);
  if (!module)
    return module.status();
  built.module = std::move(*module);
  optimizeModule(*built.module, *machine, optLevel);
  return Status::ok();
}

/// `use(built)` on the optimized kernel module of `spec`, both under
/// runGuarded: an LLVM failure in either is an error (the module is then
/// quarantined), never the end of the process.
template <typename Use>
auto onOptimizedModule(const KernelSpec &spec, const TargetConfig &config,
                       const std::string &name, int optLevel,
                       llvm::TargetMachine *machine, Use use)
    -> decltype(use(std::declval<OptimizedModule &>())) {
  OptimizedModule built;
  std::optional<decltype(use(built))> result;
  Status status = runGuarded("compiling " + name, [&]() -> Status {
    if (Status made =
            buildOptimized(built, spec, config, name, optLevel, machine);
        !made)
      return made;
    result.emplace(use(built));
    return Status::ok();
  });
  if (!status) {
    built.quarantine();
    return status;
  }
  return std::move(*result);
}

/// The host's TargetMachine and codegen pipeline, built once and reused
/// by every compile(), as llc -compile-twice does (building the pipeline
/// measured ~8% of a kernel's compile, creating the machine more).
struct HostCodegen {
  std::unique_ptr<llvm::TargetMachine> machine;
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream{object};
  std::unique_ptr<llvm::legacy::PassManager> passes;
};

/// 64 random bits in hex and an underscore (LlvmBackend::symbolTag_).
std::string randomSymbolTag() {
  std::random_device device;
  uint64_t bits = (uint64_t(device()) << 32) | device();
  char digits[16];
  auto [end, error] = std::to_chars(digits, digits + 16, bits, 16);
  (void)error; // 16 hex digits always fit.
  return std::string(digits, end) + "_";
}

class LlvmBackend final : public Backend {
public:
  LlvmBackend(IsaLevel isa, TargetConfig host,
              std::shared_ptr<JitSession> session)
      : isa_(isa), host_(std::move(host)), session_(std::move(session)) {}

  std::string_view name() const override { return "llvm"; }
  IsaLevel isa() const override { return isa_; }

  /// Every kernel is shaped for its spec: plan/KernelFits.def has no llvm
  /// rows (a test checks that this stays true to the table).
  KernelFit fit(const KernelSpec &spec) const override {
    return plan::fitFromTable(plan::FitBackend::Llvm, isa_, spec,
                              [](plan::FitCondition) { return false; });
  }
  std::string fitReason(const KernelSpec &) const override { return {}; }

  Expected<CompiledCode> compile(const KernelSpec &spec) override {
    auto start = std::chrono::steady_clock::now();
    if (!session_)
      return Status::error(ErrorCode::BackendFailure,
                           "llvm: this host cannot run " +
                               std::string(isaLevelName(isa_)) +
                               " code (assembly only)");
    std::string symbolPrefix = "qjit_" + spec.kernelName() + "_";
    std::string cacheKey = objectCache_ ? objectCacheKey(spec) : std::string();
    std::optional<JitKernel> kernel;
    if (objectCache_)
      kernel = loadCachedObject(cacheKey, symbolPrefix);
    if (!kernel) {
      std::string symbol =
          symbolPrefix + symbolTag_ + std::to_string(counter_++);
      Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
          compileObject(spec, symbol, cacheKey);
      if (!object)
        return object.status();
      Expected<JitKernel> added = session_->add(std::move(*object), symbol);
      if (!added)
        return added.status();
      kernel = std::move(*added);
    }
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
    if (producesFlatCode(*config) && !options.objectFile) {
      Expected<TargetCode> code = emitForTarget(spec, options);
      if (!code)
        return code.status();
      return std::move(code->listing);
    }
    return onOptimizedModule(
        spec, *config, "qjit_" + spec.kernelName(), kLlvmJitOptLevel, nullptr,
        [&](OptimizedModule &built) -> Expected<std::string> {
          if (options.syntax == AsmSyntax::Intel &&
              built.machine->getTargetTriple().isX86())
            built.machine->Options.MCOptions.OutputAsmVariant = 1;
          llvm::SmallString<4096> text;
          llvm::raw_svector_ostream os(text);
          if (!options.objectFile)
            os << listingHeader(spec, *config);
          llvm::legacy::PassManager passes;
          if (built.machine->addPassesToEmitFile(
                  passes, os, nullptr,
                  options.objectFile ? llvm::CodeGenFileType::ObjectFile
                                     : llvm::CodeGenFileType::AssemblyFile))
            return Status::error(ErrorCode::Unsupported,
                                 options.objectFile
                                     ? "llvm: the target cannot emit objects"
                                     : "llvm: the target cannot emit assembly");
          passes.run(*built.module);
          return std::string(text.str());
        });
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
    std::optional<std::string> listing;
    Expected<FlatImage> image = onOptimizedModule(
        spec, *config, symbol, kLlvmJitOptLevel, nullptr,
        [&](OptimizedModule &built) -> Expected<FlatImage> {
          Expected<FlatImage> flat =
              emitFlatImage(*built.module, *built.machine, symbol);
          if (!flat)
            return flat;
          Expected<std::string> text = disassembleImage(*flat, *built.machine);
          if (!text)
            return text.status();
          listing = std::move(*text);
          return flat;
        });
    if (!image)
      return image.status();
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

  void setCodeStore(std::shared_ptr<CodeStore> store) override {
    objectCache_ =
        store ? std::make_unique<DiskObjectCache>(std::move(store)) : nullptr;
    symbolTag_ = objectCache_ ? randomSymbolTag() : std::string();
  }

private:
  /// Everything the object depends on: the runtime's part (versions, ISA
  /// levels), this backend's target and optimization level, the spec.
  std::string objectCacheKey(const KernelSpec &spec) const {
    return objectCache_->keyPrefix() + " backend=llvm " + host_.describe() +
           " opt=" + std::to_string(kLlvmJitOptLevel) +
           " spec=" + spec.canonicalString();
  }

  /// The kernel of a cached object, linked; nullopt when there is none or
  /// it does not link (e.g. its symbol is still defined by a live kernel
  /// reloaded earlier): then the caller compiles afresh.
  std::optional<JitKernel> loadCachedObject(const std::string &key,
                                            const std::string &symbolPrefix) {
    std::unique_ptr<llvm::MemoryBuffer> object = objectCache_->getObject(key);
    if (!object)
      return std::nullopt;
    std::optional<std::string> symbol = definedFunction(*object, symbolPrefix);
    if (!symbol)
      return std::nullopt;
    Expected<JitKernel> kernel = session_->add(std::move(object), *symbol);
    if (!kernel)
      return std::nullopt;
    return std::move(*kernel);
  }

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

  /// The object code of `spec`'s kernel for the host. Kernels share one
  /// HostCodegen; it is not thread-safe, hence the lock. After an LLVM
  /// failure it is quarantined and the next compile builds a fresh one.
  /// With a `cacheKey`, the object also goes to the object cache.
  Expected<std::unique_ptr<llvm::MemoryBuffer>>
  compileObject(const KernelSpec &spec, const std::string &symbol,
                const std::string &cacheKey) {
    std::lock_guard<std::mutex> lock(codegenMutex_);
    if (!codegen_) {
      Expected<std::unique_ptr<llvm::TargetMachine>> machine =
          createTargetMachine(host_);
      if (!machine)
        return machine.status();
      codegen_ = std::make_unique<HostCodegen>();
      codegen_->machine = std::move(*machine);
    }
    HostCodegen &codegen = *codegen_;
    Expected<std::unique_ptr<llvm::MemoryBuffer>> object = onOptimizedModule(
        spec, host_, symbol, kLlvmJitOptLevel, codegen.machine.get(),
        [&](OptimizedModule &built)
            -> Expected<std::unique_ptr<llvm::MemoryBuffer>> {
          if (!codegen.passes) {
            auto passes = std::make_unique<llvm::legacy::PassManager>();
            llvm::MCContext *context = nullptr;
            if (codegen.machine->addPassesToEmitMC(*passes, context,
                                                   codegen.stream))
              return Status::error(ErrorCode::BackendFailure,
                                   "llvm: the host cannot emit machine code");
            codegen.passes = std::move(passes);
          }
          codegen.object.clear();
          codegen.passes->run(*built.module);
          if (objectCache_) {
            built.module->setModuleIdentifier(cacheKey);
            objectCache_->notifyObjectCompiled(
                built.module.get(),
                llvm::MemoryBufferRef(llvm::StringRef(codegen.object.data(),
                                                      codegen.object.size()),
                                      symbol));
          }
          return std::unique_ptr<llvm::MemoryBuffer>(
              std::make_unique<llvm::SmallVectorMemoryBuffer>(
                  llvm::SmallVector<char, 0>(codegen.object),
                  symbol + "-jitted-objectbuffer",
                  /*RequiresNullTerminator=*/false));
        });
    if (!object)
      quarantine(codegen_);
    return object;
  }

  IsaLevel isa_;
  TargetConfig host_;
  std::mutex codegenMutex_;
  std::unique_ptr<HostCodegen> codegen_;
  std::shared_ptr<JitSession> session_; ///< Null above the host's level.
  std::atomic<uint64_t> counter_{0};
  /// The persistent cache (Backend::setCodeStore); null when off.
  std::unique_ptr<DiskObjectCache> objectCache_;
  /// With a persistent cache, part of every fresh symbol: objects reloaded
  /// from disk define symbols numbered by the process that compiled them,
  /// and a fresh kernel must not collide with one of those.
  std::string symbolTag_;
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
  return onOptimizedModule(spec, hostTargetConfig(isa),
                           "qjit_" + spec.kernelName(), optLevel, nullptr,
                           [](OptimizedModule &built) -> Expected<std::string> {
                             std::string text;
                             llvm::raw_string_ostream os(text);
                             built.module->print(os, nullptr);
                             return text;
                           });
}

} // namespace qjit
