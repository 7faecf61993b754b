//===- QjitImplementations.cpp - qjit's backends and reference as rows ----===//
#include "Implementation.h"

#include "qjit/Isa.h"
#include "qjit/Runtime.h"
#include "qjit/ThreadPool.h"
#include "qjit/internal/Reference.h"

namespace qjit::bench {

namespace {

/// One qjit backend at the best ISA the host (and QJIT_MAX_ISA) allows,
/// compiled through the public runtime API as a user would.
class BackendImplementation final : public Implementation {
public:
  explicit BackendImplementation(BackendKind backend) : backend_(backend) {}

  Status prepare(Workload &w) override {
    RuntimeOptions options;
    options.backend = backend_;
    auto runtime = Runtime::create(options);
    if (!runtime)
      return runtime.status();
    auto kernel = (*runtime)->compile(w.spec());
    if (!kernel)
      return kernel.status();
    kernel_ = std::move(*kernel);
    function_ = kernel_->function();
    paramFunction_ = kernel_->paramFunction();
    if (!function_ && !paramFunction_)
      return Status::error(ErrorCode::Unsupported, "no native code");
    return Status::ok();
  }

  void run(Workload &w) override {
    if (paramFunction_)
      paramFunction_(w.input(), w.output(), w.size(), w.params());
    else
      function_(w.input(), w.output(), w.size());
  }

  std::optional<QuantKnobs> semantics() const override {
    return kernel_->spec().knobs;
  }
  std::string detail() const override {
    return std::string(isaLevelName(kernel_->isa()));
  }

private:
  BackendKind backend_;
  std::shared_ptr<const Kernel> kernel_;
  KernelFn function_ = nullptr;
  ParamKernelFn paramFunction_ = nullptr;
};

/// One qjit backend splitting each call over a pthreadpool (checked calls
/// through Kernel::runParallel, as a user would).
class ThreadedImplementation final : public Implementation {
public:
  explicit ThreadedImplementation(BackendKind backend) : backend_(backend) {}

  Status prepare(Workload &w) override {
    RuntimeOptions options;
    options.backend = backend_;
    auto runtime = Runtime::create(options);
    if (!runtime)
      return runtime.status();
    auto kernel = (*runtime)->compile(w.spec());
    if (!kernel)
      return kernel.status();
    if ((*kernel)->backend() != backend_)
      return Status::error(ErrorCode::Unsupported, "no native code");
    kernel_ = std::move(*kernel);
    auto pool = DefaultThreadPool::create(kBenchThreads);
    if (!pool)
      return pool.status();
    pool_ = std::move(*pool);
    return Status::ok();
  }

  void run(Workload &w) override {
    (void)kernel_->runParallel(pool_->pool(), w.input(), w.inputBytes(),
                               w.output(), w.outputBytes(), w.size(),
                               w.params());
  }

  std::optional<QuantKnobs> semantics() const override {
    return kernel_->spec().knobs;
  }
  std::string detail() const override {
    return std::string(isaLevelName(kernel_->isa()));
  }

private:
  BackendKind backend_;
  std::shared_ptr<const Kernel> kernel_;
  std::unique_ptr<DefaultThreadPool> pool_;
};

class ReferenceImplementation final : public Implementation {
public:
  Status prepare(Workload &w) override {
    // One real run surfaces errors that run() has no way to report.
    return runReference(w.spec(), w.input(), w.output(), w.size(), w.params());
  }
  void run(Workload &w) override {
    (void)runReference(w.spec(), w.input(), w.output(), w.size(), w.params());
  }
  std::optional<QuantKnobs> semantics() const override { return std::nullopt; }
};

} // namespace

std::vector<ImplementationFactory> qjitBackendImplementations() {
  std::vector<ImplementationFactory> rows;
  for (BackendKind kind : {BackendKind::Llvm, BackendKind::Asmjit})
    rows.push_back({std::string(backendKindName(kind)), [kind] {
                      return std::make_unique<BackendImplementation>(kind);
                    }});
  return rows;
}

std::vector<ImplementationFactory> qjitThreadedImplementations() {
  std::vector<ImplementationFactory> rows;
  for (BackendKind kind : {BackendKind::Llvm, BackendKind::Asmjit})
    rows.push_back(
        {std::string(backendKindName(kind)) + "_2t",
         [kind] { return std::make_unique<ThreadedImplementation>(kind); },
         SIZE_MAX, size_t(1) << 20, true});
  return rows;
}

ImplementationFactory referenceImplementation() {
  // Scalar and element-at-a-time: 16M elements would take seconds per run.
  return {"reference",
          [] { return std::make_unique<ReferenceImplementation>(); },
          size_t(1) << 20};
}

} // namespace qjit::bench
