//===- PlainLoop.cpp - What a user would write, compiled -O3 -march=native ===//
//
// The baseline every JIT must beat: the obvious loops over an
// [outer, channels, inner] tensor, q = clamp(nearbyint(x / s) + z) and
// x = (q - z) * s, left to g++'s auto-vectorizer. This file alone is built
// with -O3 -march=native (bench/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "Implementation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qjit::bench {

namespace {

struct LoopParams {
  ChannelView view;
  const float *scales;
  const int32_t *zeroPoints;
  float lo, hi;
};

template <typename Q>
Q quantizeOne(float x, float scale, float zp, const LoopParams &p) {
  return static_cast<Q>(std::clamp(std::nearbyint(x / scale) + zp, p.lo, p.hi));
}

template <typename Q> void quantize(const float *x, Q *q, const LoopParams &p) {
  const ChannelView &v = p.view;
  if (v.inner == 1) { // Last-axis channels: the channel loop is innermost.
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t c = 0; c < v.channels; ++c) {
        int64_t k = o * v.channels + c;
        q[k] = quantizeOne<Q>(x[k], p.scales[c],
                              static_cast<float>(p.zeroPoints[c]), p);
      }
    return;
  }
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const float scale = p.scales[c];
      const float zp = static_cast<float>(p.zeroPoints[c]);
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t i = 0; i < v.inner; ++i)
        q[base + i] = quantizeOne<Q>(x[base + i], scale, zp, p);
    }
}

/// Two 4-bit values per byte, first element in the low nibble.
void quantizePacked4(const float *x, uint8_t *q, const LoopParams &p) {
  const ChannelView &v = p.view;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const float scale = p.scales[c];
      const float zp = static_cast<float>(p.zeroPoints[c]);
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t i = 0; i < v.inner; i += 2) {
        auto first = quantizeOne<int32_t>(x[base + i], scale, zp, p);
        auto second = quantizeOne<int32_t>(x[base + i + 1], scale, zp, p);
        q[(base + i) / 2] = static_cast<uint8_t>((first & 15) | (second << 4));
      }
    }
}

template <typename Q>
void dequantize(const Q *q, float *x, const LoopParams &p) {
  const ChannelView &v = p.view;
  if (v.inner == 1) {
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t c = 0; c < v.channels; ++c) {
        int64_t k = o * v.channels + c;
        x[k] = static_cast<float>(q[k] - p.zeroPoints[c]) * p.scales[c];
      }
    return;
  }
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const float scale = p.scales[c];
      const int32_t zp = p.zeroPoints[c];
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t i = 0; i < v.inner; ++i)
        x[base + i] = static_cast<float>(q[base + i] - zp) * scale;
    }
}

template <bool Signed>
void dequantizePacked4(const uint8_t *q, float *x, const LoopParams &p) {
  const ChannelView &v = p.view;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const float scale = p.scales[c];
      const int32_t zp = p.zeroPoints[c];
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t i = 0; i < v.inner; i += 2) {
        uint8_t byte = q[(base + i) / 2];
        int32_t first =
            Signed ? static_cast<int8_t>(byte << 4) >> 4 : byte & 15;
        int32_t second = Signed ? static_cast<int8_t>(byte) >> 4 : byte >> 4;
        x[base + i] = static_cast<float>(first - zp) * scale;
        x[base + i + 1] = static_cast<float>(second - zp) * scale;
      }
    }
}

enum class StorageForm { I8, U8, I4, U4 };

class PlainLoopImplementation final : public Implementation {
public:
  Status prepare(Workload &w) override {
    const KernelSpec &spec = w.spec();
    const StorageSpec &s = spec.storage;
    if (spec.expressed != ValueType::F32 || spec.compute != ValueType::F32 ||
        !w.channelView() || s.kind != StorageType::Kind::Integer)
      return unsupported("needs f32 values and arithmetic, integer storage "
                         "and a channel layout");
    if (!s.packed && s.bits == 8)
      form_ = s.isSigned ? StorageForm::I8 : StorageForm::U8;
    else if (s.packed && s.bits == 4 && w.channelView()->inner % 2 == 0)
      form_ = s.isSigned ? StorageForm::I4 : StorageForm::U4;
    else
      return unsupported("plain loops cover 8-bit and packed 4-bit storage");
    params_ = {*w.channelView(), w.scales().data(), w.zeroPoints().data(),
               static_cast<float>(s.min), static_cast<float>(s.max)};
    return Status::ok();
  }

  void run(Workload &w) override {
    const void *in = w.input();
    void *out = w.output();
    bool qcast = w.spec().op == KernelOp::QCast;
    const auto *x = static_cast<const float *>(in);
    auto *y = static_cast<float *>(out);
    switch (form_) {
    case StorageForm::I8:
      return qcast ? quantize(x, static_cast<int8_t *>(out), params_)
                   : dequantize(static_cast<const int8_t *>(in), y, params_);
    case StorageForm::U8:
      return qcast ? quantize(x, static_cast<uint8_t *>(out), params_)
                   : dequantize(static_cast<const uint8_t *>(in), y, params_);
    case StorageForm::I4:
      return qcast ? quantizePacked4(x, static_cast<uint8_t *>(out), params_)
                   : dequantizePacked4<true>(static_cast<const uint8_t *>(in),
                                             y, params_);
    case StorageForm::U4:
      return qcast ? quantizePacked4(x, static_cast<uint8_t *>(out), params_)
                   : dequantizePacked4<false>(static_cast<const uint8_t *>(in),
                                              y, params_);
    }
  }

  /// nearbyint(x / s) + z: exact division, the zero point added after
  /// rounding (ties to even under the default rounding mode).
  std::optional<QuantKnobs> semantics() const override {
    QuantKnobs knobs;
    knobs.scaleOp = ScaleOp::Divide;
    knobs.zeroPoint = ZeroPointOrder::AfterRounding;
    knobs.rounding = RoundingMode::NearestEven;
    return knobs;
  }

private:
  static Status unsupported(const char *why) {
    return Status::error(ErrorCode::Unsupported, why);
  }

  StorageForm form_ = StorageForm::I8;
  LoopParams params_{};
};

} // namespace

ImplementationFactory plainLoopImplementation() {
  return {"plain_loop",
          [] { return std::make_unique<PlainLoopImplementation>(); }};
}

} // namespace qjit::bench
