//===- XnnpackConvert.cpp - XNNPACK's f32 <-> qs8/qu8 convert operators ---===//
//
// XNNPACK (Debian's 2022-02 snapshot) converts per-tensor only:
// xnn_create_convert_nc_f32_qs8 / _qu8 and _qs8_f32 / _qu8_f32. Its x86
// kernels multiply by 1/scale, round (cvtps2dq) and add the zero point to
// the rounded integers. The `xnnpack` row runs without a threadpool (one
// thread), `xnnpack_2t` on a 2-thread pthreadpool. Built with -O3
// -march=native.
//
//===----------------------------------------------------------------------===//
#include "Peers.h"

#include <pthreadpool.h>
#include <xnnpack.h>

namespace qjit::bench {

namespace {

Status unsupported(const char *why) {
  return Status::error(ErrorCode::Unsupported, why);
}

class XnnpackConvert final : public Implementation {
public:
  explicit XnnpackConvert(size_t threads) : threads_(threads) {}
  ~XnnpackConvert() override {
    if (op_)
      (void)xnn_delete_operator(op_);
    if (pool_)
      pthreadpool_destroy(pool_);
  }

  Status prepare(Workload &w) override {
    const KernelSpec &spec = w.spec();
    const StorageSpec &s = spec.storage;
    if (spec.layout.kind != LayoutSpec::Kind::PerTensor ||
        spec.expressed != ValueType::F32 ||
        s.kind != StorageType::Kind::Integer || s.bits != 8 || s.packed)
      return unsupported("XNNPACK converts f32 <-> 8-bit per-tensor only");
    static const xnn_status initialized = xnn_initialize(nullptr);
    if (initialized != xnn_status_success)
      return Status::error(ErrorCode::BackendFailure, "xnn_initialize failed");
    if (threads_ > 1 && !(pool_ = pthreadpool_create(threads_)))
      return Status::error(ErrorCode::BackendFailure,
                           "pthreadpool_create failed");
    size_t n = w.size();
    float scale = w.scales()[0];
    int32_t zp = w.zeroPoints()[0];
    bool qcast = spec.op == KernelOp::QCast;
    xnn_status status;
    if (s.isSigned)
      status = qcast ? xnn_create_convert_nc_f32_qs8(
                           n, n, n, scale, static_cast<int8_t>(zp),
                           static_cast<int8_t>(s.min),
                           static_cast<int8_t>(s.max), 0, &op_)
                     : xnn_create_convert_nc_qs8_f32(
                           n, n, n, scale, static_cast<int8_t>(zp), 0, &op_);
    else
      status = qcast ? xnn_create_convert_nc_f32_qu8(
                           n, n, n, scale, static_cast<uint8_t>(zp),
                           static_cast<uint8_t>(s.min),
                           static_cast<uint8_t>(s.max), 0, &op_)
                     : xnn_create_convert_nc_qu8_f32(
                           n, n, n, scale, static_cast<uint8_t>(zp), 0, &op_);
    if (status != xnn_status_success)
      return Status::error(ErrorCode::BackendFailure,
                           "xnn_create_convert_nc failed");
    // The old API splits the work at setup, by the pool's thread count
    // (none: one task), so the pool goes to setup as well as to run.
    const void *in = w.input();
    void *out = w.output();
    if (s.isSigned)
      status =
          qcast
              ? xnn_setup_convert_nc_f32_qs8(op_, 1,
                                             static_cast<const float *>(in),
                                             static_cast<int8_t *>(out), pool_)
              : xnn_setup_convert_nc_qs8_f32(op_, 1,
                                             static_cast<const int8_t *>(in),
                                             static_cast<float *>(out), pool_);
    else
      status =
          qcast
              ? xnn_setup_convert_nc_f32_qu8(op_, 1,
                                             static_cast<const float *>(in),
                                             static_cast<uint8_t *>(out), pool_)
              : xnn_setup_convert_nc_qu8_f32(op_, 1,
                                             static_cast<const uint8_t *>(in),
                                             static_cast<float *>(out), pool_);
    if (status != xnn_status_success)
      return Status::error(ErrorCode::BackendFailure,
                           "xnn_setup_convert_nc failed");
    return Status::ok();
  }

  void run(Workload &) override { (void)xnn_run_operator(op_, pool_); }

  std::optional<QuantKnobs> semantics() const override {
    QuantKnobs knobs;
    knobs.scaleOp = ScaleOp::Reciprocal;
    knobs.zeroPoint = ZeroPointOrder::AfterRounding;
    knobs.rounding = RoundingMode::NearestEven;
    return knobs;
  }

private:
  size_t threads_;
  pthreadpool_t pool_ = nullptr; ///< Null: the calling thread.
  xnn_operator_t op_ = nullptr;
};

} // namespace

ImplementationFactory xnnpackImplementation() {
  return {"xnnpack", [] { return std::make_unique<XnnpackConvert>(1); }};
}

ImplementationFactory xnnpackThreadedImplementation() {
  return {"xnnpack_2t",
          [] { return std::make_unique<XnnpackConvert>(kBenchThreads); },
          SIZE_MAX, size_t(1) << 20, true};
}

} // namespace qjit::bench
