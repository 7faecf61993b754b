//===- JitSession.cpp - One LLJIT per backend instance --------------------===//
#include "JitSession.h"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

namespace qjit::llvmjit {

/// Records the size of every function JITLink places, so finished kernels
/// report (and QJIT_DUMP_DIR dumps) exactly their code bytes.
class JitSession::SymbolSizes : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility &,
                        llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &graph) {
      std::lock_guard<std::mutex> lock(mutex_);
      for (llvm::jitlink::Symbol *symbol : graph.defined_symbols())
        if (symbol->hasName() && symbol->isCallable())
          sizes_[(*symbol->getName()).str()] = symbol->getSize();
      return llvm::Error::success();
    });
  }
  llvm::Error
  notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &,
                                      llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &,
                                   llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

  size_t take(const std::string &name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(name);
    if (it == sizes_.end())
      return 0;
    size_t size = it->second;
    sizes_.erase(it);
    return size;
  }

private:
  std::mutex mutex_;
  std::map<std::string, size_t> sizes_;
};

namespace {

Status jitError(const std::string &what, llvm::Error error) {
  return Status::error(ErrorCode::BackendFailure,
                       "llvm: " + what + ": " +
                           llvm::toString(std::move(error)));
}

/// orc::SimpleCompiler, except that the codegen pipeline is built once and
/// reused for every module (as llc -compile-twice does): building it
/// measured ~8% of a kernel's compile. Compiles are serialized.
class ReusedPipelineCompiler final
    : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  explicit ReusedPipelineCompiler(std::unique_ptr<llvm::TargetMachine> machine)
      : IRCompiler(
            llvm::orc::irManglingOptionsFromTargetOptions(machine->Options)),
        machine_(std::move(machine)) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  operator()(llvm::Module &module) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!passes_) {
      auto passes = std::make_unique<llvm::legacy::PassManager>();
      llvm::MCContext *context = nullptr;
      if (machine_->addPassesToEmitMC(*passes, context, stream_))
        return llvm::make_error<llvm::StringError>(
            "the target cannot emit machine code",
            llvm::inconvertibleErrorCode());
      passes_ = std::move(passes);
    }
    object_.clear();
    passes_->run(module);
    return std::make_unique<llvm::SmallVectorMemoryBuffer>(
        llvm::SmallVector<char, 0>(object_),
        module.getModuleIdentifier() + "-jitted-objectbuffer",
        /*RequiresNullTerminator=*/false);
  }

private:
  std::mutex mutex_;
  std::unique_ptr<llvm::TargetMachine> machine_;
  llvm::SmallVector<char, 0> object_;
  llvm::raw_svector_ostream stream_{object_};
  std::unique_ptr<llvm::legacy::PassManager> passes_;
};

/// Removes a kernel's code when the last CompiledCode copy goes away.
class KernelResources {
public:
  KernelResources(std::shared_ptr<JitSession> session,
                  llvm::orc::ResourceTrackerSP tracker)
      : session_(std::move(session)), tracker_(std::move(tracker)) {}
  KernelResources(const KernelResources &) = delete;
  KernelResources &operator=(const KernelResources &) = delete;
  ~KernelResources() { llvm::consumeError(tracker_->remove()); }

private:
  std::shared_ptr<JitSession> session_;
  llvm::orc::ResourceTrackerSP tracker_;
};

} // namespace

Expected<std::shared_ptr<JitSession>>
JitSession::create(const TargetConfig &config) {
  initializeLlvmTargets();
  std::shared_ptr<JitSession> session(new JitSession(config));
  auto sizes = std::make_shared<SymbolSizes>();
  session->sizes_ = sizes;
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(machineBuilder(config))
          .setCompileFunctionCreator(
              [](llvm::orc::JITTargetMachineBuilder builder)
                  -> llvm::Expected<
                      std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                auto machine = builder.createTargetMachine();
                if (!machine)
                  return machine.takeError();
                return std::make_unique<ReusedPipelineCompiler>(
                    std::move(*machine));
              })
          .setObjectLinkingLayerCreator(
              [sizes](llvm::orc::ExecutionSession &es)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::ObjectLinkingLayer>(es);
                layer->addPlugin(sizes);
                return layer;
              })
          .create();
  if (!jit)
    return jitError("cannot create the JIT", jit.takeError());
  session->jit_ = std::move(*jit);
  return session;
}

Expected<JitKernel> JitSession::add(llvm::orc::ThreadSafeModule module,
                                    const std::string &symbol) {
  llvm::orc::ResourceTrackerSP tracker =
      jit_->getMainJITDylib().createResourceTracker();
  if (llvm::Error error = jit_->addIRModule(tracker, std::move(module)))
    return jitError("cannot add the module", std::move(error));
  auto address = jit_->lookup(symbol);
  if (!address) {
    llvm::consumeError(tracker->remove());
    return jitError("cannot link " + symbol, address.takeError());
  }
  JitKernel kernel;
  kernel.entry = address->toPtr<const void *>();
  kernel.codeBytes = sizes_->take(symbol);
  kernel.owner =
      std::make_shared<KernelResources>(shared_from_this(), std::move(tracker));
  return kernel;
}

} // namespace qjit::llvmjit
