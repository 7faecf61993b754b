//===- Workload.h - One measured kernel invocation --------------*- C++ -*-===//
//
// A Workload is everything every implementation of one case at one size
// shares: the type, the KernelSpec qjit compiles, the parameters in plain
// form for peers and plain loops, and the input and output buffers. The
// harness and `qjit bench` both build workloads here.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_WORKLOAD_H
#define QJIT_BENCH_WORKLOAD_H

#include "AlignedBuffer.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"
#include "qjit/QuantType.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qjit::bench {

/// The layouts plain loops and peers understand: a row-major
/// [outer, channels, inner] tensor whose element (o, c, i) uses parameter
/// c. Per-tensor is {1, 1, n}; blocks of b along the last axis are
/// {1, n / b, b}.
struct ChannelView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

/// What the dynamic rows compute (docs/semantics.md 11).
struct DynamicRequest {
  DynamicScheme scheme = DynamicScheme::AbsMax;
  DynamicRule rule = DynamicRule::Default;
  ScaleRounding scaleRounding = ScaleRounding::Floor;
};

struct WorkloadRequest {
  std::string name; ///< For messages: a case name or the type text.
  std::string typeText;
  KernelOp op = KernelOp::QCast;
  /// Knobs, shape and parameter mode of the kernels qjit rows compile.
  LoweringOptions lowering;
  /// Elements; 0 means the type's static element count.
  int64_t n = 0;
  /// The dynamic rows' scheme (`qjit bench --dynamic`); unset, the case's
  /// (DynamicImplementation.cpp). With it a type whose scales are `?`
  /// takes, for every other row, the parameters the reference's dynamic
  /// qcast chooses from the input.
  std::optional<DynamicRequest> dynamic;
};

class Workload {
public:
  /// Parses and lowers the type, fills the input deterministically.
  static Expected<std::unique_ptr<Workload>> create(WorkloadRequest request);

  const WorkloadRequest &request() const { return request_; }
  const KernelSpec &spec() const { return spec_; }
  size_t size() const { return n_; }
  /// Call-time parameters; null unless spec().takesParams().
  const KernelParams *params() const {
    return spec_.takesParams() ? &params_ : nullptr;
  }
  /// Every parameter, baked or not, in the expressed type's precision.
  const std::vector<float> &scales() const { return scales_; }
  const std::vector<int32_t> &zeroPoints() const { return zeroPoints_; }
  /// Set when the layout is expressible as a ChannelView.
  const std::optional<ChannelView> &channelView() const { return view_; }

  const void *input() const { return input_.data(); }
  void *output() { return output_.data(); }
  const void *output() const { return output_.data(); }
  size_t inputBytes() const { return input_.size(); }
  size_t outputBytes() const { return output_.size(); }

  /// The reference result under `knobs` (qcast; ignored otherwise),
  /// computed once per distinct spec and kept.
  Expected<const AlignedBuffer *> referenceOutput(const QuantKnobs &knobs);

private:
  Workload() = default;
  void takeParameters(const KernelSpec &baked);
  Status fillInput();
  /// `spec_` with the parameters request_.dynamic chooses from the input
  /// (the reference's dynamic qcast), baked.
  Expected<KernelSpec> chooseParameters();

  WorkloadRequest request_;
  TypeDescriptor type_;
  KernelSpec spec_;
  size_t n_ = 0;
  std::vector<float> scales_;
  std::vector<int32_t> zeroPoints_;
  std::vector<int64_t> zeroPoints64_;
  std::vector<int64_t> extents_;
  std::vector<std::byte> runtimeScales_; ///< In the expressed host format.
  KernelParams params_;
  std::optional<ChannelView> view_;
  AlignedBuffer input_, output_;
  std::map<std::string, AlignedBuffer> references_; ///< By canonicalString.
};

} // namespace qjit::bench

#endif
