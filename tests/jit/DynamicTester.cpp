//===- DynamicTester.cpp - Dynamic qcast kernels vs the reference ---------===//
#include "DynamicTester.h"

#include "LayoutSpecs.h"

#include "qjit/KernelCall.h"
#include "qjit/internal/DynamicKernelAbi.h"
#include "qjit/internal/DynamicParameters.h"
#include "qjit/internal/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>

namespace qjit::testing {

namespace {

constexpr int64_t kDyn = LayoutSpec::kDynamic;
constexpr size_t kGuard = KernelTester::kGuardBytes;
constexpr uint8_t kPoison = KernelTester::kPoison;

std::vector<LayoutSpec> dynamicLayouts() {
  return {LayoutSpec{},
          perAxis(3, 1),    // per channel of a row-major activation
          perAxis(5, 7),    // per row
          perAxis(3, 300),  // per token: long rows, not whole vectors
          perAxis(20, 256), // per token: asmjit's chunks of 16 rows
          perAxis(2, kDyn), // per token, rows of any length
          perAxis(40, 16),  // short rows, one vector or two
          perAxis(36, 48),  // rows of three AVX-512 vectors, in batches
          blocked({{2, 1}, {96, 32}}),
          blocked({{5, 1}, {160, 32}}), // 25 blocks: batches and a rest
          blocked({{4, 2}, {6, 3}}),
          blocked({{3, 1}, {kDyn, kDyn}})};
}

constexpr double kSignallingNan = std::numeric_limits<double>::signaling_NaN();

/// x as f32; a signalling NaN stays one, of its sign (the conversion would
/// quiet it).
float toFloat(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if (!std::isnan(x) || bits & (uint64_t(1) << 51))
    return static_cast<float>(x);
  uint32_t narrow = (bits >> 63 ? 0xff800000u : 0x7f800000u) | 0x200000u;
  float f;
  std::memcpy(&f, &narrow, sizeof f);
  return f;
}

/// `bytes` of `what` as hex, most significant byte first.
std::string hexEntry(const uint8_t *bytes, size_t size) {
  std::string text;
  char digits[4];
  for (size_t k = size; k-- > 0;) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[k]);
    text += digits;
  }
  return text;
}

/// Compares one guarded output with the reference's, entry by entry of
/// `unit` bytes.
::testing::AssertionResult compareGuarded(const char *what,
                                          const std::vector<uint8_t> &want,
                                          const std::vector<uint8_t> &got,
                                          size_t unit) {
  if (want.size() != got.size())
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " bytes with guards, expected "
           << want.size();
  size_t bytes = want.size() - 2 * kGuard;
  for (size_t b = 0; b < want.size(); ++b) {
    if (want[b] == got[b])
      continue;
    if (b < kGuard || b >= kGuard + bytes)
      return ::testing::AssertionFailure()
             << what << ": a write outside the buffer, at byte "
             << static_cast<ptrdiff_t>(b - kGuard);
    size_t entry = (b - kGuard) / unit;
    size_t first = kGuard + entry * unit;
    size_t size = std::min(unit, kGuard + bytes - first);
    return ::testing::AssertionFailure()
           << what << "[" << entry << "]: expected 0x"
           << hexEntry(want.data() + first, size) << ", got 0x"
           << hexEntry(got.data() + first, size);
  }
  return ::testing::AssertionSuccess();
}

} // namespace

std::vector<KernelSpec> dynamicSpecSweep() {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast};
  axes.widths = {4, 8, 32}; // and packed 4-bit
  axes.expressed = {ValueType::F32, ValueType::F64};
  axes.knobs = {knobsForPreset(SemanticsPreset::Default),
                knobsForPreset(SemanticsPreset::PyTorch),
                knobsForPreset(SemanticsPreset::TfLite)};
  axes.layouts = dynamicLayouts();
  axes.runtimeParams = {true};
  std::vector<KernelSpec> specs;
  for (KernelSpec spec : specSweep(axes))
    for (DynamicScheme scheme : {DynamicScheme::AbsMax, DynamicScheme::MinMax})
      for (DynamicRule rule : {DynamicRule::Default, DynamicRule::PyTorch,
                               DynamicRule::Xnnpack, DynamicRule::Ggml}) {
        spec.params.dynamic = scheme;
        spec.params.dynamicRule = rule;
        spec.params.scaleFormat = rule == DynamicRule::Ggml
                                      ? ScaleFormat::F16
                                      : ScaleFormat::Expressed;
        if (!verifyKernelSpec(spec))
          continue;
        specs.push_back(spec);
        // Scales written in another format (11.7), for the default rule
        // and 8-bit storage: f16 and bf16 by turns for f32 values, f32 for
        // f64 values.
        if (rule != DynamicRule::Default || spec.storage.bits != 8)
          continue;
        KernelSpec formatted = spec;
        formatted.params.scaleFormat = spec.expressed == ValueType::F64
                                           ? ScaleFormat::F32
                                       : specs.size() % 2 ? ScaleFormat::F16
                                                          : ScaleFormat::BF16;
        specs.push_back(formatted);
      }
  // The mx scheme (11.8): f32 values to float storages and signed integers,
  // per tensor, channel, row and block of 32, the scale roundings by turns.
  axes.widths = {4, 8};
  axes.signedness = {true};
  axes.expressed = {ValueType::F32};
  axes.knobs = {QuantKnobs{}};
  // 25 blocks: a batch of them at every level and a rest.
  axes.layouts = {LayoutSpec{}, perAxis(3, 1), perAxis(2, kDyn),
                  blocked({{5, 1}, {160, 32}})};
  for (const StorageSpec &storage : compactStorages())
    if (storage.kind == StorageType::Kind::Float)
      axes.compact.push_back(storage);
  const ScaleRounding roundings[] = {ScaleRounding::Floor, ScaleRounding::Ceil,
                                     ScaleRounding::Even};
  size_t turn = 0;
  for (KernelSpec spec : specSweep(axes)) {
    KernelSpec mx = spec;
    mx.params.dynamic = DynamicScheme::Mx;
    mx.params.scaleFormat = ScaleFormat::E8M0;
    mx.params.scaleRounding = roundings[turn % 3];
    if (!verifyKernelSpec(mx))
      continue;
    specs.push_back(mx);
    ++turn;
    // absmax to float storage: the default rule, and vLLM's where it
    // applies (f8E4M3FN).
    if (spec.storage.kind != StorageType::Kind::Float)
      continue;
    KernelSpec absmax = spec;
    absmax.params.dynamic = DynamicScheme::AbsMax;
    for (DynamicRule rule : {DynamicRule::Default, DynamicRule::Vllm}) {
      absmax.params.dynamicRule = rule;
      if (verifyKernelSpec(absmax))
        specs.push_back(absmax);
    }
  }
  return specs;
}

DynamicTester::DynamicTester(KernelSpec spec, uint64_t seed)
    : spec_(std::move(spec)), rng_(seed) {
  valueBytes_ = spec_.expressed == ValueType::F64 ? 8 : 4;
  scaleBytes_ = runtimeScaleBytes(spec_);
  count_ = static_cast<size_t>(spec_.layout.parameterCount());
  const LayoutSpec &layout = spec_.layout;
  if (layout.kind == LayoutSpec::Kind::PerAxis && layout.inner == kDyn)
    call_.extents = {1 + static_cast<int64_t>(rng_() % 70)};
  // Blocked: extents[d - 1] is dims[d]'s, up to the last dynamic dim.
  for (size_t d = 1; d < layout.dims.size(); ++d)
    if (layout.dims[d].extent == kDyn) {
      for (size_t known = call_.extents.size() + 1; known < d; ++known)
        call_.extents.push_back(layout.dims[known].extent);
      call_.extents.push_back(1 + static_cast<int64_t>(rng_() % 70));
    }
}

size_t DynamicTester::extentOf(size_t d) const {
  int64_t extent = spec_.layout.dims[d].extent;
  return static_cast<size_t>(extent == kDyn ? call_.extents[d - 1] : extent);
}

size_t DynamicTester::period() const {
  const LayoutSpec &layout = spec_.layout;
  size_t period = 1;
  if (layout.kind == LayoutSpec::Kind::PerAxis)
    period = layout.channels *
             (layout.inner == kDyn ? call_.extents[0] : layout.inner);
  for (size_t d = 0; d < layout.dims.size(); ++d)
    period *= extentOf(d);
  return period;
}

std::vector<size_t> DynamicTester::sizes() const {
  std::vector<size_t> sizes;
  if (spec_.layout.kind == LayoutSpec::Kind::PerTensor) {
    for (size_t n = 0; n <= 129; ++n)
      sizes.push_back(n);
    sizes.push_back(4099);
    return sizes;
  }
  size_t p = period();
  for (size_t periods : {0, 1, 2, 3})
    sizes.push_back(periods * p);
  sizes.push_back((4099 / p + 1) * p);
  return sizes;
}

/// The parameter of element i of a period (docs/semantics.md 6.2).
size_t DynamicTester::groupOf(size_t i) const {
  const LayoutSpec &layout = spec_.layout;
  if (layout.kind == LayoutSpec::Kind::PerTensor)
    return 0;
  if (layout.kind == LayoutSpec::Kind::PerAxis) {
    size_t inner = layout.inner == kDyn ? call_.extents[0] : layout.inner;
    return (i / inner) % layout.channels;
  }
  // Blocked: the block's row-major number over the grid; a dynamic dim is
  // one block.
  std::vector<size_t> index(layout.dims.size());
  size_t rest = i;
  for (size_t d = layout.dims.size(); d-- > 0;) {
    index[d] = rest % extentOf(d);
    rest /= extentOf(d);
  }
  size_t group = 0;
  for (size_t d = 0; d < layout.dims.size(); ++d) {
    const LayoutSpec::Dim &dim = layout.dims[d];
    bool dynamic = dim.extent == kDyn;
    group = group * (dynamic ? 1 : dim.extent / dim.block) +
            (dynamic ? 0 : index[d] / dim.block);
  }
  return group;
}

double DynamicTester::value(unsigned flavour, size_t position) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  double inf = std::numeric_limits<double>::infinity();
  bool f64 = spec_.expressed == ValueType::F64;
  double big = f64 ? std::numeric_limits<double>::max()
                   : static_cast<double>(std::numeric_limits<float>::max());
  double tiny =
      f64 ? std::numeric_limits<double>::denorm_min()
          : static_cast<double>(std::numeric_limits<float>::denorm_min());
  switch (flavour) {
  case 0: // Plain values of one magnitude.
    return unit(rng_) * 10.0;
  case 1: // All zero, of both signs.
    return rng_() % 2 ? 0.0 : -0.0;
  case 2: { // No finite value at all.
    // NaN of both signs: as integers they fall on both sides of 0. Quiet
    // and signalling: instructions that drop the one propagate the other.
    const double special[] = {std::nan(""), -std::nan(""),  inf,
                              -inf,         kSignallingNan, -kSignallingNan};
    return special[rng_() % 6];
  }
  case 3: // One sign only, with some zeros.
    return rng_() % 4 ? std::fabs(unit(rng_)) * 3.0 : 0.0;
  case 4: // Subnormals: underflowing scales.
    return (unit(rng_) > 0 ? 1 : -1) * tiny * static_cast<double>(rng_() % 9);
  case 5: // Around PyTorch's small-scale threshold.
    return unit(rng_) * 6.1e-5 * std::ldexp(1.0, int(rng_() % 16) - 4);
  case 6: // Both ends of the range: hi - lo overflows.
    return rng_() % 2 ? big : -big;
  case 7: { // The mx roundings' edges: M * 2^k times 1, 1.5 or a neighbour.
    const double factors[] = {1.0,           1.5,           1.0 + 0x1p-23,
                              1.5 - 0x1p-23, 1.5 + 0x1p-23, 2.0 - 0x1p-23};
    double largest = spec_.params.dynamic == DynamicScheme::Mx
                         ? largestStoredMagnitude(spec_.storage)
                         : 1.0;
    return (rng_() % 2 ? 1 : -1) * largest * factors[rng_() % 6] *
           std::ldexp(1.0, int(rng_() % 170) - 152);
  }
  case 8: // Finite values and infinities, no NaN: an infinite bound that
          // only NaN would otherwise hide.
    return rng_() % 8 ? unit(rng_) * 10.0 : rng_() % 2 ? inf : -inf;
  case 9: // Magnitudes falling along the period, signalling NaNs in every
          // third stretch of 16 (an AVX-512 vector): a NaN must not drop
          // the larger values before it, also when no NaN follows.
    if (position / 16 % 3 == 1 && rng_() % 4 == 0)
      return rng_() % 2 ? kSignallingNan : -kSignallingNan;
    return unit(rng_) * std::ldexp(1.0, -static_cast<int>(position / 16));
  default: { // Magnitudes from 2^-30 to 2^30, and specials.
    if (rng_() % 16 == 0) {
      const double special[] = {
          std::nan(""),   -std::nan(""),  inf, -inf, 0.0, -0.0, big,
          kSignallingNan, -kSignallingNan};
      return special[rng_() % 9];
    }
    return unit(rng_) * std::ldexp(1.0, int(rng_() % 61) - 30);
  }
  }
}

void DynamicTester::fill(uint8_t *src, size_t n) {
  // Every other call has finite groups only: a vector's lanes of runs
  // (asmjit's batches) hold no ±inf or NaN together otherwise.
  static constexpr unsigned kFinite[] = {0, 1, 3, 4, 5, 6, 7};
  const bool finite = rng_() % 2;
  std::vector<unsigned> flavours(count_);
  for (unsigned &flavour : flavours)
    flavour = finite ? kFinite[rng_() % std::size(kFinite)] : rng_() % 11;
  size_t p = period();
  for (size_t i = 0; i < n; ++i) {
    double x = value(flavours[groupOf(i % p)], i % p);
    if (valueBytes_ == 8) {
      std::memcpy(src + 8 * i, &x, 8);
    } else {
      float f = toFloat(x);
      std::memcpy(src + 4 * i, &f, 4);
    }
  }
}

::testing::AssertionResult DynamicTester::prepareCall(size_t n,
                                                      PreparedCall &call) {
  KernelTester::PreparedCall &codes = call.codes;
  codes.n = n;
  codes.srcOffset = rng_() % 64;
  codes.dstOffset = rng_() % 64;
  GuardedBuffer src(n * valueBytes_, codes.srcOffset);
  fill(src.data(), n);
  GuardedBuffer dst(*bufferBytes(spec_, BufferSide::Storage, n),
                    codes.dstOffset);
  GuardedBuffer scales(count_ * scaleBytes_, 0);
  GuardedBuffer zeroPoints(count_ * sizeof(int64_t), 0);
  KernelParams params = call_.view();
  Status ran = runReferenceDynamic(
      spec_, src.data(), dst.data(), n, &params,
      ParameterOutputs{scales.data(),
                       reinterpret_cast<int64_t *>(zeroPoints.data())});
  if (!ran)
    return ::testing::AssertionFailure()
           << spec_.canonicalString() << ": the reference rejected n=" << n
           << ": " << ran.message();
  codes.src.assign(src.data(), src.data() + n * valueBytes_);
  codes.expected = dst.all();
  call.scales = scales.all();
  call.zeroPoints = zeroPoints.all();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult
DynamicTester::prepareCalls(std::vector<PreparedCall> &calls) {
  for (size_t n : sizes()) {
    calls.emplace_back();
    if (auto prepared = prepareCall(n, calls.back()); !prepared)
      return prepared;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DynamicTester::compareOutputs(
    const PreparedCall &call, const std::vector<uint8_t> &codes,
    const std::vector<uint8_t> &scales, const std::vector<uint8_t> &zeroPoints,
    bool inputUnchanged) const {
  std::string where = spec_.canonicalString() +
                      " n=" + std::to_string(call.codes.n) + " src+" +
                      std::to_string(call.codes.srcOffset) + " dst+" +
                      std::to_string(call.codes.dstOffset);
  if (!inputUnchanged)
    return ::testing::AssertionFailure()
           << where << ": the kernel modified its input";
  if (auto same = compareGuarded("codes", call.codes.expected, codes, 1); !same)
    return same << " (" << where << ")";
  if (auto same = compareGuarded("scales", call.scales, scales, scaleBytes_);
      !same)
    return same << " (" << where << ")";
  if (auto same = compareGuarded("zero points", call.zeroPoints, zeroPoints,
                                 sizeof(int64_t));
      !same)
    return same << " (" << where << ")";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult DynamicTester::check(const void *entry) {
  for (size_t n : sizes()) {
    PreparedCall call;
    if (auto prepared = prepareCall(n, call); !prepared)
      return prepared;
    GuardedBuffer src(call.codes.src.size(), call.codes.srcOffset);
    std::copy(call.codes.src.begin(), call.codes.src.end(), src.data());
    std::vector<uint8_t> srcBefore = src.all();
    GuardedBuffer dst(call.codes.expected.size() - 2 * kGuard,
                      call.codes.dstOffset);
    GuardedBuffer scales(count_ * scaleBytes_, 0);
    GuardedBuffer zeroPoints(count_ * sizeof(int64_t), 0);
    std::vector<uint8_t> low(count_ * valueBytes_, kPoison);
    std::vector<uint8_t> high(count_ * valueBytes_, kPoison);
    DynamicKernelBuffers buffers{scales.data(),
                                 reinterpret_cast<int64_t *>(zeroPoints.data()),
                                 low.data(), high.data()};
    KernelParams params = call_.view();
    reinterpret_cast<DynamicKernelFn>(const_cast<void *>(entry))(
        src.data(), dst.data(), n, &params, &buffers);
    if (auto same = compareOutputs(call, dst.all(), scales.all(),
                                   zeroPoints.all(), src.all() == srcBefore);
        !same)
      return same;
  }
  return ::testing::AssertionSuccess();
}

} // namespace qjit::testing
