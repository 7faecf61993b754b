//===- NativeKernel.cpp - Kernels backed by JIT-compiled code -------------===//
#include "Kernels.h"

#include "qjit/internal/DynamicKernelAbi.h"

#include <array>
#include <memory>

namespace qjit {

namespace {

/// 2 KiB of stack: the ranges and zero points of up to 85 groups.
constexpr size_t kLocalScratchWords = 256;

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

  /// The code writes the parameters, and keeps each group's range in
  /// scratch (and its zero points, when the caller takes none) provided
  /// here, so generated code never allocates.
  Status invokeDynamic(const void *src, void *dst, size_t n,
                       const KernelParams *params,
                       const ParameterOutputs &outputs) const override {
    size_t count = parameterCounts().scales;
    size_t valueBytes = spec().compute == ValueType::F64 ? 8 : 4;
    size_t zeroBytes = outputs.zeroPoints ? 0 : count * sizeof(int64_t);
    // Zero points first keep every array aligned for its values.
    size_t scratchBytes = zeroBytes + 2 * count * valueBytes;
    // Per-token and per-tensor calls have few groups: no allocation.
    std::array<int64_t, kLocalScratchWords> local;
    std::unique_ptr<int64_t[]> heap;
    int64_t *words = local.data();
    if (scratchBytes > sizeof local) {
      heap = std::make_unique_for_overwrite<int64_t[]>(
          scratchBytes / sizeof(int64_t) + 1);
      words = heap.get();
    }
    auto *bytes = reinterpret_cast<std::byte *>(words);
    DynamicKernelBuffers buffers{
        outputs.scales,
        outputs.zeroPoints ? outputs.zeroPoints
                           : reinterpret_cast<int64_t *>(bytes),
        bytes + zeroBytes, bytes + zeroBytes + count * valueBytes};
    reinterpret_cast<DynamicKernelFn>(const_cast<void *>(code_.entry))(
        src, dst, n, params, &buffers);
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
