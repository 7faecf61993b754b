//===- OnednnReorder.cpp - oneDNN 2.6 reorders with scales as a peer ------===//
//
// oneDNN quantizes with a reorder whose attributes carry output scales
// (common, or per channel through a mask) and a zero point (common only in
// 2.6). Tensors are viewed as [outer, channels, inner]; blockwise layouts
// become per-row scales of [1, n / 32, 32]. Debian builds oneDNN on OpenMP:
// the OpenMP thread count is pinned (1 for `onednn`, 2 for `onednn_2t`) and
// checked, and set again before each run since the rows share it. Built with
// -O3 -march=native.
//
//===----------------------------------------------------------------------===//
#include "Peers.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>

namespace qjit::bench {

namespace {

Status unsupported(const char *why) {
  return Status::error(ErrorCode::Unsupported, why);
}

Status pinThreads(int threads) {
  omp_set_num_threads(threads);
  if (omp_get_max_threads() != threads)
    return Status::error(ErrorCode::BackendFailure,
                         "oneDNN: OpenMP still uses " +
                             std::to_string(omp_get_max_threads()) +
                             " threads");
  return Status::ok();
}

class OnednnReorder final : public Implementation {
public:
  explicit OnednnReorder(int threads) : threads_(threads) {}

  Status prepare(Workload &w) override {
    const KernelSpec &spec = w.spec();
    const StorageSpec &s = spec.storage;
    if (spec.expressed != ValueType::F32 || !w.channelView() ||
        s.kind != StorageType::Kind::Integer || s.bits != 8 || s.packed)
      return unsupported("oneDNN reorders cover f32 <-> 8-bit channel layouts");
    const std::vector<int32_t> &zps = w.zeroPoints();
    if (std::any_of(zps.begin(), zps.end(),
                    [&](int32_t z) { return z != zps[0]; }))
      return unsupported("oneDNN 2.6 reorders take one common zero point");
    if (Status st = pinThreads(threads_); !st)
      return st;
    try {
      return build(w);
    } catch (const dnnl::error &e) {
      return Status::error(ErrorCode::BackendFailure,
                           std::string("oneDNN: ") + e.what());
    }
  }

  void run(Workload &) override {
    omp_set_num_threads(threads_);
    reorder_.execute(stream_, {{DNNL_ARG_FROM, src_}, {DNNL_ARG_TO, dst_}});
    stream_.wait();
  }

  std::optional<QuantKnobs> semantics() const override {
    QuantKnobs knobs;
    knobs.scaleOp = ScaleOp::Reciprocal;
    knobs.zeroPoint = ZeroPointOrder::BeforeRounding;
    knobs.rounding = RoundingMode::NearestEven;
    return knobs;
  }

  std::string detail() const override { return implementation_; }

private:
  Status build(Workload &w) {
    using dnnl::memory;
    const ChannelView &v = *w.channelView();
    bool qcast = w.spec().op == KernelOp::QCast;
    memory::dims dims{v.outer, v.channels, v.inner};
    memory::data_type stored = w.spec().storage.isSigned
                                   ? memory::data_type::s8
                                   : memory::data_type::u8;
    memory::desc expressedMd(dims, memory::data_type::f32,
                             memory::format_tag::abc);
    memory::desc storedMd(dims, stored, memory::format_tag::abc);

    // Quantizing multiplies by 1/scale, dequantizing by scale.
    std::vector<float> scales(w.scales());
    if (qcast)
      for (float &scale : scales)
        scale = 1.0f / scale;
    dnnl::primitive_attr attr;
    attr.set_output_scales(v.channels > 1 ? 1 << 1 : 0, scales);
    if (int32_t zp = w.zeroPoints()[0])
      attr.set_zero_points(qcast ? DNNL_ARG_DST : DNNL_ARG_SRC, 0, {zp});

    engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
    stream_ = dnnl::stream(engine_);
    const memory::desc &srcMd = qcast ? expressedMd : storedMd;
    const memory::desc &dstMd = qcast ? storedMd : expressedMd;
    dnnl::reorder::primitive_desc pd(engine_, srcMd, engine_, dstMd, attr);
    implementation_ = pd.impl_info_str();
    reorder_ = dnnl::reorder(pd);
    src_ = memory(srcMd, engine_, const_cast<void *>(w.input()));
    dst_ = memory(dstMd, engine_, w.output());
    return Status::ok();
  }

  int threads_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::reorder reorder_;
  dnnl::memory src_, dst_;
  std::string implementation_;
};

} // namespace

ImplementationFactory onednnImplementation() {
  return {"onednn", [] { return std::make_unique<OnednnReorder>(1); }};
}

ImplementationFactory onednnThreadedImplementation() {
  return {"onednn_2t",
          [] {
            return std::make_unique<OnednnReorder>(
                static_cast<int>(kBenchThreads));
          },
          SIZE_MAX, size_t(1) << 20, true};
}

} // namespace qjit::bench
