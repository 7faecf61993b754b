//===- JitSession.cpp - One LLJIT per backend instance --------------------===//
#include "JitSession.h"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Support/Error.h>

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

Expected<JitKernel> JitSession::add(std::unique_ptr<llvm::MemoryBuffer> object,
                                    const std::string &symbol) {
  llvm::orc::ResourceTrackerSP tracker =
      jit_->getMainJITDylib().createResourceTracker();
  if (llvm::Error error = jit_->addObjectFile(tracker, std::move(object)))
    return jitError("cannot add the object", std::move(error));
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
