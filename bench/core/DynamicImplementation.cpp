//===- DynamicImplementation.cpp - Dynamic qcast as a benchmark row -------===//
//
// "llvm_dynamic", "asmjit_dynamic": the case's type as a dynamic qcast
// (docs/semantics.md 11) compiled by that backend, which computes every
// group's parameters from the data it then quantizes: absmax for symmetric
// cases, minmax for asymmetric ones (or the scheme `qjit bench --dynamic`
// asks for). Beside the backend's row of the same
// case it measures what computing the parameters costs. Its codes differ from
// the static row's (other parameters), so the harness does not check them
// against the static reference: tests/jit/DynamicKernelTest does that against
// the dynamic one.
//
//===----------------------------------------------------------------------===//
#include "Implementation.h"

#include "qjit/Runtime.h"

#include <algorithm>

namespace qjit::bench {

namespace {

class DynamicImplementation final : public Implementation {
public:
  explicit DynamicImplementation(BackendKind backend) : backend_(backend) {}

  Status prepare(Workload &w) override {
    const KernelSpec &spec = w.spec();
    if (spec.op != KernelOp::QCast)
      return Status::error(ErrorCode::Unsupported, "dynamic qcast is a qcast");
    if (spec.storage.kind == StorageType::Kind::Quantile)
      return Status::error(ErrorCode::Unsupported,
                           "dynamic qcast takes integer or float storage");
    RuntimeOptions options;
    options.backend = backend_;
    auto runtime = Runtime::create(options);
    if (!runtime)
      return runtime.status();
    LoweringOptions lowering = w.request().lowering;
    bool asymmetric = std::any_of(w.zeroPoints().begin(), w.zeroPoints().end(),
                                  [](int32_t z) { return z != 0; });
    // The requested scheme; or E8M0 scales (MXFP4) are the mx scheme's,
    // absmax and minmax otherwise.
    if (const std::optional<DynamicRequest> &asked = w.request().dynamic) {
      lowering.dynamicScheme = asked->scheme;
      lowering.dynamicRule = asked->rule;
      lowering.scaleRounding = asked->scaleRounding;
    } else {
      lowering.dynamicScheme = spec.params.scaleFormat == ScaleFormat::E8M0
                                   ? DynamicScheme::Mx
                               : asymmetric ? DynamicScheme::MinMax
                                            : DynamicScheme::AbsMax;
    }
    auto kernel =
        (*runtime)->compile(w.request().typeText, KernelOp::QCast, lowering);
    if (!kernel)
      return kernel.status();
    kernel_ = std::move(*kernel);
    ParameterCounts counts = kernel_->parameterCounts();
    scales_.resize(counts.scales * 8);
    zeroPoints_.resize(counts.zeroPoints);
    extents_.extents = w.params() ? w.params()->extents : nullptr;
    return call(w);
  }

  void run(Workload &w) override { (void)call(w); }

  std::optional<QuantKnobs> semantics() const override { return std::nullopt; }
  std::string detail() const override {
    return std::string(isaLevelName(kernel_->isa())) + " " +
           std::string(dynamicSchemeName(kernel_->spec().params.dynamic));
  }

private:
  Status call(Workload &w) {
    return kernel_->runDynamic(
        w.input(), w.inputBytes(), w.output(), w.outputBytes(), w.size(),
        ParameterOutputs{scales_.data(), zeroPoints_.data()}, &extents_);
  }

  BackendKind backend_;
  std::shared_ptr<const Kernel> kernel_;
  std::vector<uint8_t> scales_; ///< Expressed values, up to 8 bytes each.
  std::vector<int64_t> zeroPoints_;
  KernelParams extents_;
};

} // namespace

std::vector<ImplementationFactory> dynamicQcastImplementations() {
  std::vector<ImplementationFactory> rows;
  for (auto [name, backend] : {std::pair{"llvm_dynamic", BackendKind::Llvm},
                               {"asmjit_dynamic", BackendKind::Asmjit}})
    rows.push_back({name, [backend] {
                      return std::make_unique<DynamicImplementation>(backend);
                    }});
  return rows;
}

} // namespace qjit::bench
