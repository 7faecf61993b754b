//===- NativeKernel.cpp - Kernels backed by JIT-compiled code -------------===//
#include "Kernels.h"

namespace qjit {

namespace {

class NativeKernel final : public Kernel {
public:
  NativeKernel(KernelSpec spec, CompiledCode code,
               std::shared_ptr<SharedBackend> backend)
      : Kernel(std::move(spec), backend->kind(), code.isa, code.entry),
        code_(std::move(code)), backend_(std::move(backend)) {}

  size_t codeBytes() const override { return code_.codeBytes; }

  Expected<std::string> assembly(const AsmOptions &options) const override {
    return backend_->assembly(spec(), options);
  }

private:
  Status invoke(const void *src, void *dst, size_t n,
                const KernelParams *params) const override {
    if (ParamKernelFn fn = paramFunction())
      fn(src, dst, n, params);
    else
      function()(src, dst, n);
    return Status::ok();
  }

  CompiledCode code_; ///< Keeps the code mapped.
  std::shared_ptr<SharedBackend> backend_;
};

} // namespace

std::shared_ptr<const Kernel>
makeNativeKernel(KernelSpec spec, CompiledCode code,
                 std::shared_ptr<SharedBackend> backend) {
  return std::make_shared<NativeKernel>(std::move(spec), std::move(code),
                                        std::move(backend));
}

} // namespace qjit
