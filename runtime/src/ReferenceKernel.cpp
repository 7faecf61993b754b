//===- ReferenceKernel.cpp - Kernels run by the scalar reference ----------===//
#include "Kernels.h"

#include "qjit/internal/Reference.h"

namespace qjit {

namespace {

class ReferenceKernel final : public Kernel {
public:
  explicit ReferenceKernel(KernelSpec spec)
      : Kernel(std::move(spec), BackendKind::Reference, IsaLevel::Scalar,
               /*entry=*/nullptr) {}

  Expected<std::string> assembly(const AsmOptions &) const override {
    return Status::error(ErrorCode::Unsupported,
                         "kernel " + name() +
                             " runs on the scalar reference, which has no "
                             "machine code to show");
  }

private:
  Status invoke(const void *src, void *dst, size_t n,
                const KernelParams *params) const override {
    return runReference(spec(), src, dst, n, params);
  }

  Status invokeDynamic(const void *src, void *dst, size_t n,
                       const KernelParams *params,
                       const ParameterOutputs &outputs) const override {
    return runReferenceDynamic(spec(), src, dst, n, params, outputs);
  }
};

} // namespace

std::shared_ptr<const Kernel> makeReferenceKernel(KernelSpec spec) {
  return std::make_shared<ReferenceKernel>(std::move(spec));
}

} // namespace qjit
