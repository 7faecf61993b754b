//===- Workload.cpp - One measured kernel invocation ----------------------===//
#include "Workload.h"

#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/HostFloat.h"
#include "qjit/internal/Reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace qjit::bench {

namespace {

/// splitmix64: fast, deterministic, good enough for benchmark inputs.
class InputRandom {
public:
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state_ = 0x5eed;
};

Status unsupported(const std::string &what) {
  return Status::error(ErrorCode::Unsupported, what);
}

/// Element e of the stored buffer gets `value` (two's complement bits).
void storeStored(const StorageSpec &storage, std::byte *dst, size_t e,
                 int64_t value) {
  if (storage.packed) {
    size_t bit = e * storage.bits;
    auto mask = static_cast<unsigned>((1u << storage.bits) - 1);
    auto &byte = reinterpret_cast<unsigned char &>(dst[bit / 8]);
    byte = static_cast<unsigned char>(
        (byte & ~(mask << (bit % 8))) |
        ((static_cast<unsigned>(value) & mask) << (bit % 8)));
    return;
  }
  unsigned width = storage.containerBytes();
  auto bits = static_cast<uint64_t>(value);
  std::memcpy(dst + e * width, &bits, width); // Little-endian host.
}

/// `value` in the host format of `type`.
void storeExpressed(ValueType type, std::byte *dst, size_t e, double value) {
  switch (type) {
  case ValueType::F64:
    std::memcpy(dst + e * 8, &value, 8);
    return;
  case ValueType::F32: {
    auto f = static_cast<float>(value);
    std::memcpy(dst + e * 4, &f, 4);
    return;
  }
  case ValueType::F16: {
    auto h = static_cast<_Float16>(value);
    std::memcpy(dst + e * 2, &h, 2);
    return;
  }
  case ValueType::BF16: {
    // Round to nearest even from f32 (inputs here are finite).
    auto f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    auto half = static_cast<uint16_t>(bits >> 16);
    std::memcpy(dst + e * 2, &half, 2);
    return;
  }
  }
}

/// Runtime scale e of `spec` near `value` (positive, finite): the expressed
/// type's own format, f32, f16, bf16, or the E8M0 power of two of its
/// exponent.
void storeScale(const KernelSpec &spec, std::byte *dst, size_t e,
                double value) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    storeExpressed(spec.expressed, dst, e, value);
    return;
  case ScaleFormat::F32:
    storeExpressed(ValueType::F32, dst, e, value);
    return;
  case ScaleFormat::F16:
    storeExpressed(ValueType::F16, dst, e, value);
    return;
  case ScaleFormat::BF16:
    storeExpressed(ValueType::BF16, dst, e, value);
    return;
  case ScaleFormat::E8M0:
    dst[e] =
        static_cast<std::byte>(std::clamp(std::ilogb(value) + 127, 0, 254));
    return;
  }
}

std::optional<ChannelView> channelViewOf(const LayoutSpec &layout, int64_t n) {
  switch (layout.kind) {
  case LayoutSpec::Kind::PerTensor:
    return ChannelView{1, 1, n};
  case LayoutSpec::Kind::PerAxis:
    if (layout.inner == LayoutSpec::kDynamic ||
        n % (layout.channels * layout.inner))
      return std::nullopt;
    return ChannelView{n / (layout.channels * layout.inner), layout.channels,
                       layout.inner};
  case LayoutSpec::Kind::Blocked: {
    // Blocks only along the last collapsed dim: parameter = flat index / b.
    if (layout.dims.empty())
      return std::nullopt;
    for (size_t d = 0; d + 1 < layout.dims.size(); ++d)
      if (layout.dims[d].block != 1)
        return std::nullopt;
    const LayoutSpec::Dim &last = layout.dims.back();
    int64_t block = last.block;
    if (block <= 0 || n % block ||
        (layout.dims.size() > 1 &&
         (last.extent == LayoutSpec::kDynamic || last.extent % block)))
      return std::nullopt;
    return ChannelView{1, n / block, block};
  }
  }
  return std::nullopt;
}

int64_t staticElementCount(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return 0;
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return 0;
    count *= d;
  }
  return count;
}

} // namespace

Expected<std::unique_ptr<Workload>> Workload::create(WorkloadRequest request) {
  std::unique_ptr<Workload> w(new Workload());
  auto type = parseTypeOrError(request.typeText);
  if (!type)
    return type.status();
  w->type_ = *type;

  // `?` scales: the dynamic scheme chooses them from the input, below.
  const bool chosen = w->type_.element.parametersAtCallTime;
  if (chosen && !request.dynamic)
    return Status::error(ErrorCode::InvalidArgument,
                         request.name +
                             ": the type's scales are '?': bench its dynamic "
                             "qcast (--dynamic=absmax|minmax|mx) or give "
                             "scales in the type");
  std::optional<KernelSpec> baked;
  if (!chosen) {
    LoweringOptions bakedOptions = request.lowering;
    bakedOptions.runtimeParameters = false;
    bakedOptions.scaleFormat = ScaleFormat::Expressed; // Baked in E.
    auto lowered = lowerToKernelSpec(w->type_, request.op, bakedOptions);
    if (!lowered)
      return lowered.status();
    baked = std::move(*lowered);
  }
  auto spec = lowerToKernelSpec(w->type_, request.op, request.lowering);
  if (!spec)
    return spec.status();
  w->spec_ = *spec;

  int64_t n = request.n ? request.n : staticElementCount(w->spec_.shape);
  if (n <= 0)
    return Status::error(ErrorCode::InvalidArgument,
                         request.name + ": give the element count (--n)");
  w->n_ = static_cast<size_t>(n);
  w->view_ = channelViewOf(baked ? baked->layout : w->spec_.layout, n);
  w->request_ = std::move(request);
  if (baked)
    w->takeParameters(*baked);

  const KernelSpec &s = w->spec_;
  if (s.op == KernelOp::SCast)
    return unsupported("scast is not benchmarked");
  // Kernels trust their callers; a bad n must stop here (with chosen
  // parameters, once they are chosen below).
  if (Status call = checkKernelCall(s, w->n_, w->params()); !call && baked)
    return call;
  size_t expressed = expressedBytes(s.expressed, w->n_);
  size_t stored = storageBytes(s.storage, w->n_);
  bool qcast = s.op == KernelOp::QCast;
  auto input = AlignedBuffer::allocate(qcast ? expressed : stored);
  if (!input)
    return input.status();
  auto output = AlignedBuffer::allocate(qcast ? stored : expressed);
  if (!output)
    return output.status();
  w->input_ = std::move(*input);
  w->output_ = std::move(*output);
  if (Status st = w->fillInput(); !st)
    return st;
  if (!baked) {
    Expected<KernelSpec> chosenSpec = w->chooseParameters();
    if (!chosenSpec)
      return chosenSpec.status();
    w->takeParameters(*chosenSpec);
    if (Status call = checkKernelCall(s, w->n_, w->params()); !call)
      return call;
  }
  return w;
}

Expected<KernelSpec> Workload::chooseParameters() {
  RuntimeOptions options;
  options.backend = BackendKind::Reference;
  auto runtime = Runtime::create(options);
  if (!runtime)
    return runtime.status();
  LoweringOptions lowering = request_.lowering;
  lowering.runtimeParameters = false;
  lowering.dynamicScheme = request_.dynamic->scheme;
  lowering.dynamicRule = request_.dynamic->rule;
  lowering.scaleRounding = request_.dynamic->scaleRounding;
  auto kernel = (*runtime)->compile(request_.typeText, request_.op, lowering);
  if (!kernel)
    return kernel.status();
  const Kernel &dynamicQcast = **kernel;
  ParameterCounts counts = dynamicQcast.parameterCounts();
  std::vector<std::byte> scales(counts.scales * sizeof(double));
  std::vector<int64_t> zeroPoints(counts.zeroPoints);
  if (Status ran = dynamicQcast.runDynamic(
          input_.data(), input_.size(), output_.data(), output_.size(), n_,
          ParameterOutputs{scales.data(), zeroPoints.data()});
      !ran)
    return ran;
  KernelSpec baked = spec_;
  baked.params.runtime = false;
  baked.params.scales.clear();
  for (size_t k = 0; k < counts.scales; ++k)
    baked.params.scales.push_back(
        decodeScale(dynamicQcast.spec().params.scaleFormat,
                    dynamicQcast.spec().expressed, scales.data(), k));
  baked.params.zeroPoints = zeroPoints;
  baked.params.zeroPoints.resize(counts.scales, 0);
  return baked;
}

void Workload::takeParameters(const KernelSpec &baked) {
  for (double scale : baked.params.scales)
    scales_.push_back(static_cast<float>(scale));
  for (int64_t zp : baked.params.zeroPoints) {
    zeroPoints_.push_back(static_cast<int32_t>(zp));
    zeroPoints64_.push_back(zp);
  }
  zeroPoints_.resize(scales_.size(), 0);
  zeroPoints64_.resize(scales_.size(), 0);
  if (!spec_.takesParams())
    return;
  size_t width = runtimeScaleBytes(spec_);
  runtimeScales_.resize(baked.params.scales.size() * width);
  for (size_t i = 0; i < baked.params.scales.size(); ++i)
    storeScale(spec_, runtimeScales_.data(), i, baked.params.scales[i]);
  params_.scales = runtimeScales_.data();
  params_.zeroPoints = zeroPoints64_.data();
  params_.extents = nullptr; // Lowering filled every dim from the shape.
}

Status Workload::fillInput() {
  InputRandom random;
  const StorageSpec &storage = spec_.storage;
  if (spec_.op == KernelOp::DCast &&
      storage.kind != StorageType::Kind::Integer) {
    for (size_t b = 0; b < input_.size(); ++b)
      input_.data()[b] = static_cast<std::byte>(random.next());
    return Status::ok();
  }
  if (spec_.op == KernelOp::DCast) {
    auto span = static_cast<uint64_t>(storage.max - storage.min + 1);
    for (size_t e = 0; e < n_; ++e)
      storeStored(storage, input_.data(), e,
                  storage.min + static_cast<int64_t>(random.next() % span));
    return Status::ok();
  }
  // Cover the storage range plus a little saturation on both sides, in
  // units of the first parameter.
  double scale = scales_.empty() ? 1.0 : scales_[0];
  double zp = zeroPoints_.empty() ? 0.0 : zeroPoints_[0];
  double low = static_cast<double>(storage.min);
  double high = static_cast<double>(storage.max);
  double margin = 4;
  if (storage.kind == StorageType::Kind::Quantile) { // The table's range.
    low = *std::min_element(storage.table.begin(), storage.table.end());
    high = *std::max_element(storage.table.begin(), storage.table.end());
    margin = 0.1;
  }
  double lo = (low - zp - margin) * scale;
  double hi = (high - zp + margin) * scale;
  for (size_t e = 0; e < n_; ++e)
    storeExpressed(spec_.expressed, input_.data(), e,
                   lo + (hi - lo) * random.unit());
  return Status::ok();
}

Expected<const AlignedBuffer *>
Workload::referenceOutput(const QuantKnobs &knobs) {
  LoweringOptions options = request_.lowering;
  options.knobs = knobs;
  auto spec = lowerToKernelSpec(type_, request_.op, options);
  if (!spec)
    return spec.status();
  std::string key = spec->canonicalString();
  auto found = references_.find(key);
  if (found != references_.end())
    return &found->second;
  auto buffer = AlignedBuffer::allocate(output_.size());
  if (!buffer)
    return buffer.status();
  AlignedBuffer result = std::move(*buffer);
  if (Status s = runReference(*spec, input(), result.data(), n_,
                              spec->takesParams() ? &params_ : nullptr);
      !s)
    return s;
  return &references_.emplace(key, std::move(result)).first->second;
}

} // namespace qjit::bench
