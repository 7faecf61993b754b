//===- KernelTester.cpp - Differential tests of kernels vs the reference --===//
#include "KernelTester.h"

#include "ExpressedValues.h"
#include "Nf4Table.h"
#include "TestSeed.h"

#include "qjit/TypeParser.h"
#include "qjit/internal/FloatStorage.h"
#include "qjit/internal/HostFloat.h"
#include "qjit/internal/Reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

namespace qjit::testing {

namespace {

constexpr size_t kGuardBytes = KernelTester::kGuardBytes;
constexpr uint8_t kPoison = KernelTester::kPoison;

/// (src, dst) byte offsets from a 64-byte boundary, cycled through sizes.
constexpr size_t kMisalignments[][2] = {{0, 0}, {1, 3}, {4, 2},
                                        {7, 1}, {2, 0}, {0, 5}};

int64_t typeMin(unsigned bits, bool isSigned) {
  return isSigned ? -(int64_t(1) << (bits - 1)) : 0;
}
int64_t typeMax(unsigned bits, bool isSigned) {
  return isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
}

void storeExpressedBits(ValueType type, uint8_t *buffer, size_t i,
                        double value) {
  switch (type) {
  case ValueType::F16: {
    uint16_t bits = doubleToHalfBits(value);
    std::memcpy(buffer + 2 * i, &bits, 2);
    return;
  }
  case ValueType::BF16: {
    uint16_t bits = doubleToBfloat16Bits(value);
    std::memcpy(buffer + 2 * i, &bits, 2);
    return;
  }
  case ValueType::F32: {
    float f = static_cast<float>(value);
    std::memcpy(buffer + 4 * i, &f, 4);
    return;
  }
  case ValueType::F64:
    std::memcpy(buffer + 8 * i, &value, 8);
    return;
  }
}

std::string hexBytes(const uint8_t *bytes, size_t count) {
  static const char *digits = "0123456789abcdef";
  std::string text = "0x";
  for (size_t b = count; b-- > 0;) {
    text += digits[bytes[b] >> 4];
    text += digits[bytes[b] & 15];
  }
  return text;
}

} // namespace

GuardedBuffer::GuardedBuffer(size_t bytes, size_t offset)
    : storage_(bytes + offset + 2 * kGuardBytes + 64, kPoison), bytes_(bytes) {
  uintptr_t base = reinterpret_cast<uintptr_t>(storage_.data());
  uintptr_t aligned = (base + kGuardBytes + 63) & ~uintptr_t(63);
  data_ = storage_.data() + (aligned - base) + offset;
}

std::vector<uint8_t> GuardedBuffer::all() const {
  return std::vector<uint8_t>(data_ - kGuardBytes,
                              data_ + bytes_ + kGuardBytes);
}

KernelParams KernelTester::CallParams::view() const {
  KernelParams params;
  params.extents = extents.empty() ? nullptr : extents.data();
  params.scales = scales.empty() ? nullptr : scales.data();
  params.zeroPoints =
      nullZeroPoints || zeroPoints.empty() ? nullptr : zeroPoints.data();
  return params;
}

KernelTester::KernelTester(KernelSpec spec, uint64_t seed)
    : KernelTester(std::move(spec), seed, Options{}) {}

KernelTester::KernelTester(KernelSpec spec, uint64_t seed, Options options)
    : spec_(std::move(spec)), options_(options), rng_(seed) {
  inventCallParams();
}

void KernelTester::inventCallParams() {
  const LayoutSpec &layout = spec_.layout;
  auto pickExtent = [&] {
    static constexpr int64_t kChoices[] = {1, 3, 8, 17, 40};
    return kChoices[rng_() % std::size(kChoices)];
  };
  if (layout.kind == LayoutSpec::Kind::PerAxis) {
    int64_t inner =
        layout.inner == LayoutSpec::kDynamic ? pickExtent() : layout.inner;
    if (layout.inner == LayoutSpec::kDynamic)
      call_.extents = {inner};
    resolvedExtents_ = {layout.channels, inner};
    resolvedBlocks_ = {1, inner};
  } else if (layout.kind == LayoutSpec::Kind::Blocked) {
    for (size_t d = 0; d < layout.dims.size(); ++d) {
      const LayoutSpec::Dim &dim = layout.dims[d];
      int64_t extent =
          dim.extent == LayoutSpec::kDynamic ? pickExtent() : dim.extent;
      if (d > 0)
        call_.extents.push_back(extent);
      resolvedExtents_.push_back(extent);
      resolvedBlocks_.push_back(dim.block == LayoutSpec::kDynamic ? extent
                                                                  : dim.block);
    }
    if (!spec_.takesParams())
      call_.extents.clear();
  }
  if (!spec_.params.runtime)
    return;
  size_t count = static_cast<size_t>(layout.parameterCount());
  call_.scales.resize(count * runtimeScaleBytes(spec_));
  call_.zeroPoints.resize(count);
  call_.nullZeroPoints = rng_() % 4 == 0;
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (size_t k = 0; k < count; ++k) {
    int exponent = static_cast<int>(rng_() % 12) - 8;
    double scale = rng_() % 4 == 0 ? std::ldexp(1.0, exponent)
                                   : std::ldexp(mantissa(rng_), exponent);
    storeScale(k, scale);
    // Float and quantile storage: zero points of the table's or format's
    // scale rather than over the (index or integer) bounds.
    bool compact = spec_.storage.kind != StorageType::Kind::Integer;
    std::uniform_int_distribution<int64_t> zero(
        compact ? -2 : spec_.storage.min, compact ? 2 : spec_.storage.max);
    call_.zeroPoints[k] = zero(rng_);
    if (options_.wideZeroPoints && rng_() % 2) {
      // The last two: the ends of the range asmjit's packed 4-bit dcast
      // folds into its biased loads.
      static constexpr int64_t kWide[] = {std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max(),
                                          -(int64_t(1) << 30),
                                          (int64_t(1) << 31) + 1,
                                          -(int64_t(1) << 24) - 1,
                                          (int64_t(1) << 53) + 1,
                                          -(int64_t(1) << 62) - 3,
                                          (int64_t(1) << 20) + 7,
                                          int64_t(1) << 22,
                                          -(int64_t(1) << 22) - 1};
      call_.zeroPoints[k] = rng_() % 4 == 0 ? static_cast<int64_t>(rng_())
                                            : kWide[rng_() % std::size(kWide)];
    }
    if (options_.mostlyZeroZeroPoints && rng_() % 16 != 0)
      call_.zeroPoints[k] = 0;
  }
}

void KernelTester::storeScale(size_t k, double scale) {
  uint8_t *scales = call_.scales.data();
  switch (spec_.params.scaleFormat) {
  case ScaleFormat::Expressed:
    storeExpressedBits(spec_.expressed, scales, k, scale);
    return;
  case ScaleFormat::F32:
    storeExpressedBits(ValueType::F32, scales, k, scale);
    return;
  case ScaleFormat::F16:
    storeExpressedBits(ValueType::F16, scales, k, scale);
    return;
  case ScaleFormat::BF16:
    storeExpressedBits(ValueType::BF16, scales, k, scale);
    return;
  case ScaleFormat::E8M0: {
    // The power of two at or below the scale; every eighth scale and now
    // and then another the ends, b = 0 (2^-127, an f32 subnormal) and
    // b = 255 (NaN), in turn: a group of eight or sixteen runs meets them.
    static constexpr uint8_t kEnds[] = {0, 255, 254, 1};
    if (k % 8 == 7)
      scales[k] = kEnds[(k / 8) % std::size(kEnds)];
    else
      scales[k] = rng_() % 16 == 0
                      ? kEnds[rng_() % std::size(kEnds)]
                      : static_cast<uint8_t>(std::ilogb(scale) + 127);
    return;
  }
  }
}

size_t KernelTester::period() const {
  size_t period = 1;
  for (int64_t extent : resolvedExtents_)
    period *= static_cast<size_t>(extent);
  return period;
}

size_t KernelTester::parameterIndex(size_t i) const {
  size_t rest = i % period(), index = 0, stride = 1;
  for (size_t d = resolvedExtents_.size(); d-- > 0;) {
    size_t extent = resolvedExtents_[d], block = resolvedBlocks_[d];
    index += ((rest % extent) / block) * stride;
    rest /= extent;
    stride *= extent / block;
  }
  return index;
}

double KernelTester::elementScale(size_t i) const {
  size_t k = parameterIndex(i);
  if (!spec_.params.runtime)
    return bakedScale(spec_, k);
  return decodeScale(spec_.params.scaleFormat, spec_.expressed,
                     call_.scales.data(), k);
}

int64_t KernelTester::elementZeroPoint(size_t i) const {
  size_t k = parameterIndex(i);
  if (!spec_.params.runtime)
    return spec_.params.zeroPoints[k];
  return call_.nullZeroPoints ? 0 : call_.zeroPoints[k];
}

double KernelTester::interestingCompactValue(size_t i) {
  double scale = elementScale(i);
  double zero = static_cast<double>(elementZeroPoint(i));
  const StorageSpec &storage = spec_.storage;
  std::vector<double> points;
  if (storage.kind == StorageType::Kind::Float) {
    FloatStorageFormat format = floatStorageFormat(storage.floatFormat);
    uint32_t code = static_cast<uint32_t>(rng_() % (format.signBit() - 1));
    points = {decodeFloatStorage(format, code),
              decodeFloatStorage(format, code + 1)};
    static constexpr double kEdges[] = {448,   464,   465,     480,  57344,
                                        59392, 61440, 61439.5, 6,    7,
                                        100,   96,    1e-3,    1e-6, 0.0};
    if (rng_() % 4 == 0)
      points = {kEdges[rng_() % std::size(kEdges)]};
  } else {
    std::vector<double> sorted = storage.table;
    std::sort(sorted.begin(), sorted.end());
    size_t k = rng_() % sorted.size();
    points = {sorted[k], sorted[std::min(k + 1, sorted.size() - 1)]};
  }
  double v = points[0];
  switch (rng_() % 4) {
  case 0: // A tie between neighbours (exact in double).
    v = (points[0] + points[points.size() - 1]) / 2;
    break;
  case 1: // Just off it.
    v = (points[0] + points[points.size() - 1]) / 2 *
        (1 + (rng_() % 2 ? 1e-7 : -1e-7));
    break;
  default:
    break;
  }
  if (rng_() % 2)
    v = -v;
  return (v - zero) * scale;
}

double KernelTester::interestingExpressedValue(size_t i) {
  if (spec_.storage.kind != StorageType::Kind::Integer && rng_() % 2 == 0)
    return interestingCompactValue(i);
  double scale = elementScale(i);
  double zero = static_cast<double>(elementZeroPoint(i));
  double lo = static_cast<double>(spec_.storage.min) - zero;
  double hi = static_cast<double>(spec_.storage.max) - zero;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto randomInteger = [&] {
    return std::floor(lo - 2 + unit(rng_) * (hi - lo + 4));
  };
  static constexpr double kSpecials[] = {
      std::numeric_limits<double>::quiet_NaN(),
      -std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      0.0,
      -0.0,
      1e-45,
      -1e-45,
      1e-40,
      5.9604644775390625e-08, // Smallest f16 subnormal.
      3.4028234663852886e38,
      -3.4028234663852886e38,
      1e30,
      -1e30,
      65504.0,
      -65504.0,
      4294967296.0,
      -4294967296.0,
  };
  switch (rng_() % 8) {
  case 0:
  case 1:
    return (lo - 3 + unit(rng_) * (hi - lo + 6)) * scale;
  case 2: // An exact tie after scaling (when representable).
    return (randomInteger() + 0.5) * scale;
  case 3: // Storage bounds ± 0.5 and their neighbours.
    return ((rng_() % 2 ? lo : hi) + (rng_() % 2 ? 0.5 : -0.5)) * scale;
  case 4:
    return kSpecials[rng_() % std::size(kSpecials)];
  case 5:
    return (unit(rng_) * 4 - 2) * scale;
  case 6:
    return randomInteger() * scale;
  default:
    return (randomInteger() + 0.5) * scale * (1 + (unit(rng_) - 0.5) * 1e-6);
  }
}

double KernelTester::plainExpressedValue(size_t i) {
  double scale = elementScale(i);
  double zero = static_cast<double>(elementZeroPoint(i));
  const StorageSpec &storage = spec_.storage;
  // Stored values within (or one past) the bounds, whatever they are.
  std::uniform_real_distribution<double> level(
      static_cast<double>(storage.min) - 2,
      static_cast<double>(storage.max) + 2),
      offset(-0.4, 0.4);
  double q = std::round(level(rng_));
  return scale * (q - zero + offset(rng_));
}

void KernelTester::fillInput(uint8_t *src, size_t n) {
  if (spec_.op == KernelOp::QCast) {
    unsigned bytes = valueTypeBytes(spec_.expressed);
    // Lanes of special values make checked fast paths (integer storage)
    // fall back for their whole group; every other call keeps most groups
    // plain.
    bool plain =
        spec_.storage.kind == StorageType::Kind::Integer && fills_++ % 2 == 1;
    for (size_t i = 0; i < n; ++i) {
      if (plain && rng_() % 256 != 0) {
        storeExpressedBits(spec_.expressed, src, i, plainExpressedValue(i));
        continue;
      }
      if (rng_() % 16 == 0) { // Any bit pattern: sNaN payloads and all.
        for (unsigned b = 0; b < bytes; ++b)
          src[i * bytes + b] = static_cast<uint8_t>(rng_());
        continue;
      }
      storeExpressedBits(spec_.expressed, src, i, interestingExpressedValue(i));
      if (rng_() % 4 == 0) { // A neighbour one ulp away.
        uint64_t bits = 0;
        std::memcpy(&bits, src + i * bytes, bytes);
        bits += rng_() % 2 ? 1 : uint64_t(-1);
        std::memcpy(src + i * bytes, &bits, bytes);
      }
    }
    return;
  }
  const StorageSpec &storage = spec_.storage;
  if (storage.packed) {
    size_t bytes = storageBytes(storage, n);
    for (size_t b = 0; b < bytes; ++b)
      src[b] = static_cast<uint8_t>(rng_());
    return;
  }
  int64_t lo = typeMin(storage.bits, storage.isSigned);
  int64_t hi = typeMax(storage.bits, storage.isSigned);
  std::uniform_int_distribution<int64_t> value(lo, hi);
  unsigned container = storage.containerBytes();
  for (size_t i = 0; i < n; ++i) {
    int64_t q;
    switch (rng_() % 8) {
    case 0:
      q = lo;
      break;
    case 1:
      q = hi;
      break;
    case 2:
      q = std::clamp<int64_t>(elementZeroPoint(i), lo, hi);
      break;
    default:
      q = value(rng_);
    }
    uint64_t bits = static_cast<uint64_t>(q); // Sign-extended container.
    std::memcpy(src + i * container, &bits, container);
  }
}

std::vector<size_t> KernelTester::sizes() const {
  std::vector<size_t> result;
  size_t p = period();
  if (spec_.layout.kind == LayoutSpec::Kind::PerTensor) {
    size_t lanes = options_.lanes;
    for (size_t n = 0; n <= 2 * lanes + 1; ++n)
      result.push_back(n);
    for (size_t n : {3 * lanes - 1, 4 * lanes + 1, 8 * lanes + 3, size_t(97),
                     size_t(251), size_t(1021), size_t(4093)})
      result.push_back(n);
  } else {
    for (size_t periods : {0, 1, 2, 3, 4, 5, 7, 11, 16})
      result.push_back(periods * p);
  }
  size_t large = std::max<size_t>(options_.largeSize / p, 1) * p;
  if (std::find(result.begin(), result.end(), large) == result.end())
    result.push_back(large);
  return result;
}

::testing::AssertionResult KernelTester::check(const void *entry) {
  std::vector<size_t> all = sizes();
  for (size_t s = 0; s < all.size(); ++s) {
    const size_t *offsets = kMisalignments[s % std::size(kMisalignments)];
    ::testing::AssertionResult result =
        checkOnce(entry, all[s], offsets[0], offsets[1]);
    if (!result)
      return result;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult
KernelTester::prepareCalls(std::vector<PreparedCall> &calls) {
  std::vector<size_t> all = sizes();
  calls.resize(all.size());
  for (size_t s = 0; s < all.size(); ++s) {
    const size_t *offsets = kMisalignments[s % std::size(kMisalignments)];
    ::testing::AssertionResult result =
        prepareCall(all[s], offsets[0], offsets[1], calls[s]);
    if (!result)
      return result;
  }
  return ::testing::AssertionSuccess();
}

namespace {

size_t sourceBytes(const KernelSpec &spec, size_t n) {
  return spec.op == KernelOp::QCast ? expressedBytes(spec.expressed, n)
                                    : storageBytes(spec.storage, n);
}
size_t destinationBytes(const KernelSpec &spec, size_t n) {
  return spec.op == KernelOp::DCast ? expressedBytes(spec.expressed, n)
                                    : storageBytes(spec.storage, n);
}

} // namespace

::testing::AssertionResult KernelTester::prepareCall(size_t n, size_t srcOffset,
                                                     size_t dstOffset,
                                                     PreparedCall &call) {
  size_t srcBytes = sourceBytes(spec_, n);
  GuardedBuffer src(srcBytes, srcOffset);
  fillInput(src.data(), n);
  GuardedBuffer expected(destinationBytes(spec_, n), dstOffset);
  KernelParams params = call_.view();
  Status reference = runReference(spec_, src.data(), expected.data(), n,
                                  spec_.takesParams() ? &params : nullptr);
  if (!reference)
    return ::testing::AssertionFailure()
           << spec_.canonicalString() << ": the reference rejected n=" << n
           << ": " << reference.message();
  call.n = n;
  call.srcOffset = srcOffset;
  call.dstOffset = dstOffset;
  call.src.assign(src.data(), src.data() + srcBytes);
  call.expected = expected.all();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult KernelTester::checkOnce(const void *entry, size_t n,
                                                   size_t srcOffset,
                                                   size_t dstOffset) {
  PreparedCall call;
  if (::testing::AssertionResult prepared =
          prepareCall(n, srcOffset, dstOffset, call);
      !prepared)
    return prepared;
  GuardedBuffer src(call.src.size(), srcOffset);
  std::copy(call.src.begin(), call.src.end(), src.data());
  std::vector<uint8_t> srcBefore = src.all();
  GuardedBuffer actual(destinationBytes(spec_, n), dstOffset);
  KernelParams params = call_.view();
  if (spec_.takesParams())
    reinterpret_cast<ParamKernelFn>(const_cast<void *>(entry))(
        src.data(), actual.data(), n, &params);
  else
    reinterpret_cast<KernelFn>(const_cast<void *>(entry))(src.data(),
                                                          actual.data(), n);
  return compareOutput(call, actual.all(), src.all() == srcBefore);
}

::testing::AssertionResult
KernelTester::compareOutput(const PreparedCall &call,
                            const std::vector<uint8_t> &actual,
                            bool inputUnchanged) const {
  std::ostringstream where;
  where << spec_.canonicalString() << " n=" << call.n << " src+"
        << call.srcOffset << " dst+" << call.dstOffset;
  if (!inputUnchanged)
    return ::testing::AssertionFailure()
           << where.str() << ": the kernel modified its input";
  const std::vector<uint8_t> &want = call.expected;
  if (actual.size() != want.size())
    return ::testing::AssertionFailure()
           << where.str() << ": " << actual.size()
           << " output bytes with guards, expected " << want.size();
  std::vector<uint8_t> got = actual;
  if (spec_.op == KernelOp::DCast) // NaN sign and payload are unspecified
                                   // (semantics 5.3).
    equateNaNs(spec_.expressed, want.data() + kGuardBytes,
               got.data() + kGuardBytes, call.n);
  auto mismatch = std::mismatch(want.begin(), want.end(), got.begin());
  if (mismatch.first == want.end())
    return ::testing::AssertionSuccess();
  size_t byte = mismatch.first - want.begin();
  size_t dstBytes = want.size() - 2 * kGuardBytes;
  if (byte < kGuardBytes || byte >= kGuardBytes + dstBytes)
    return ::testing::AssertionFailure()
           << where.str() << ": the kernel wrote outside its output, at byte "
           << static_cast<ptrdiff_t>(byte - kGuardBytes) << " of " << dstBytes;
  byte -= kGuardBytes;
  size_t element;
  if (spec_.op == KernelOp::DCast)
    element = byte / valueTypeBytes(spec_.expressed);
  else if (spec_.storage.packed)
    element = byte * (8 / spec_.storage.bits);
  else
    element = byte / spec_.storage.containerBytes();
  return ::testing::AssertionFailure()
         << where.str() << ": first mismatch at element " << element << ": "
         << describeElement(element, call.src.data(), want.data() + kGuardBytes,
                            got.data() + kGuardBytes);
}

std::string KernelTester::describeElement(size_t element, const uint8_t *src,
                                          const uint8_t *expected,
                                          const uint8_t *actual) const {
  auto storedBytes = [&](const uint8_t *buffer) {
    if (spec_.storage.packed)
      return "byte " + hexBytes(buffer + element / (8 / spec_.storage.bits), 1);
    unsigned size = spec_.storage.containerBytes();
    return hexBytes(buffer + element * size, size);
  };
  auto expressedText = [&](const uint8_t *buffer) {
    unsigned size = valueTypeBytes(spec_.expressed);
    std::ostringstream text;
    text.precision(17);
    text << hexBytes(buffer + element * size, size) << " ("
         << loadExpressedBits(spec_.expressed, buffer, element) << ")";
    return text.str();
  };
  std::ostringstream text;
  text.precision(17);
  text << "input "
       << (spec_.op == KernelOp::QCast ? expressedText(src) : storedBytes(src))
       << ", scale " << elementScale(element) << ", zero point "
       << elementZeroPoint(element) << "; expected "
       << (spec_.op == KernelOp::DCast ? expressedText(expected)
                                       : storedBytes(expected))
       << ", got "
       << (spec_.op == KernelOp::DCast ? expressedText(actual)
                                       : storedBytes(actual));
  return text.str();
}

std::vector<StorageSpec> compactStorages() {
  std::vector<StorageSpec> storages;
  for (FloatType format :
       {FloatType::F8E4M3FN, FloatType::F8E5M2, FloatType::F4E2M1FN}) {
    StorageSpec storage;
    storage.kind = StorageType::Kind::Float;
    storage.floatFormat = format;
    storage.bits = floatTypeBits(format);
    storage.isSigned = false;
    storage.max = floatStorageLargest(format);
    storage.min = -storage.max;
    storages.push_back(storage);
    if (format == FloatType::F4E2M1FN) {
      storage.packed = true;
      storages.push_back(storage);
    }
    if (format == FloatType::F8E4M3FN) {
      storage.min = -100;
      storage.max = 300;
      storages.push_back(storage);
    }
  }
  auto quantile = [](unsigned bits, bool isSigned, int64_t min,
                     std::vector<double> table, bool packed) {
    StorageSpec storage;
    storage.kind = StorageType::Kind::Quantile;
    storage.bits = bits;
    storage.isSigned = isSigned;
    storage.min = min;
    storage.max = min + static_cast<int64_t>(table.size()) - 1;
    for (double &entry : table)
      entry = static_cast<float>(entry);
    storage.table = std::move(table);
    storage.packed = packed;
    return storage;
  };
  const std::vector<double> &nf4 = nf4Table();
  storages.push_back(quantile(4, false, 0, nf4, true));
  storages.push_back(quantile(4, false, 0, nf4, false));
  storages.push_back(
      quantile(3, true, -3, {0.5, -1, 0.5, 0.25, 2, -0.75}, false));
  std::vector<double> wide;
  for (int k = 0; k < 64; ++k)
    wide.push_back(std::ldexp(double((k * 37) % 64) - 31.5, -4));
  storages.push_back(quantile(6, false, 0, wide, false));
  return storages;
}

IsaLevel runnableIsaLevel() {
  Expected<IsaLevel> level = effectiveIsaLevel();
  if (level)
    return *level;
  // Read while gtest instantiates the suites, before any test can fail.
  std::fprintf(stderr, "QJIT_MAX_ISA: %s\n", level.status().message().c_str());
  std::exit(2);
}

std::vector<IsaLevel> runnableIsaLevels() {
  std::vector<IsaLevel> levels;
  for (IsaLevel level : kAllIsaLevels)
    if (level <= runnableIsaLevel())
      levels.push_back(level);
  return levels;
}

std::vector<IsaLevel> runnableAsmjitLevels() {
  std::vector<IsaLevel> levels;
  for (IsaLevel level : runnableIsaLevels())
    if (level >= IsaLevel::Avx2)
      levels.push_back(level);
  return levels;
}

std::vector<KernelSpec> farZeroPointSpecs() {
  std::vector<KernelSpec> specs;
  for (const char *text : {"!quant.uniform<i8:f32, 1.0:-1073741825>",
                           "!quant.uniform<u16:f16, 0.5:9007199254740993>",
                           "!quant.uniform<i32:f32, 3.0:-9223372036854775808>",
                           // Either side of the llvm Markstein form's limit.
                           "!quant.uniform<i32:f32, 3.0:-8589934591>",
                           "!quant.uniform<i16:f32, 3.0:8589934592>",
                           "!quant.uniform<u32:bf16, 0.75:9223372036854775807>",
                           "!quant.uniform<i8:f64, 0.25:4611686018427387905>",
                           "!quant.uniform<u8:f32, 1.5:16777217>"}) {
    Expected<TypeDescriptor> type = parseTypeOrError(text);
    EXPECT_TRUE(type) << text << ": " << type.status().message();
    if (!type)
      continue;
    for (QuantKnobs knobs : allKnobs()) {
      LoweringOptions options;
      options.knobs = knobs;
      Expected<KernelSpec> spec =
          lowerToKernelSpec(*type, KernelOp::QCast, options);
      EXPECT_TRUE(spec) << text << ": " << spec.status().message();
      if (spec)
        specs.push_back(std::move(*spec));
    }
  }
  return specs;
}

std::vector<QuantKnobs> allKnobs() {
  std::vector<QuantKnobs> knobs;
  for (ScaleOp op : {ScaleOp::Divide, ScaleOp::Reciprocal})
    for (ZeroPointOrder order :
         {ZeroPointOrder::BeforeRounding, ZeroPointOrder::AfterRounding})
      for (RoundingMode mode :
           {RoundingMode::NearestEven, RoundingMode::NearestAway,
            RoundingMode::TowardZero})
        knobs.push_back({op, order, mode});
  return knobs;
}

std::vector<LayoutSpec> packedBlockLayouts() {
  LayoutSpec blocks32, oddBlocks;
  blocks32.kind = oddBlocks.kind = LayoutSpec::Kind::PerAxis;
  blocks32.channels = 6;
  blocks32.inner = 32;
  oddBlocks.channels = 3;
  oddBlocks.inner = 37;
  return {blocks32, oddBlocks};
}

std::vector<LayoutSpec> representativeLayouts() {
  using Kind = LayoutSpec::Kind;
  constexpr int64_t kDyn = LayoutSpec::kDynamic;
  std::vector<LayoutSpec> layouts(7);
  layouts[1].kind = layouts[2].kind = layouts[3].kind = Kind::PerAxis;
  layouts[1].channels = 5; // Last-axis channels: parameters vary per element.
  layouts[2].channels = 3;
  layouts[2].inner = 7;
  layouts[3].channels = 4;
  layouts[3].inner = kDyn;
  layouts[4].kind = layouts[5].kind = layouts[6].kind = Kind::Blocked;
  layouts[4].dims = {{6, 2}, {8, 4}};
  layouts[5].dims = {{4, 1}, {kDyn, kDyn}};
  layouts[6].dims = {{2, 2}, {3, 1}, {64, 32}};
  return layouts;
}

SweepAxes longPerAxisRunSweep() {
  SweepAxes axes;
  axes.ops = {KernelOp::QCast, KernelOp::DCast};
  axes.layouts.assign(2, LayoutSpec{});
  axes.layouts[0].kind = axes.layouts[1].kind = LayoutSpec::Kind::PerAxis;
  axes.layouts[0].channels = 3;
  axes.layouts[0].inner = 64;
  axes.layouts[1].channels = 2;
  axes.layouts[1].inner = 200;
  axes.packed = false;
  axes.knobs = allKnobs();
  return axes;
}

namespace {

double sweepScale(size_t k) {
  static constexpr double kScales[] = {0.05,      0.25, 1.7, 3.0,
                                       0.0078125, 11.3, 0.6};
  return kScales[k % std::size(kScales)] * (1 + 0.01 * (k / 7));
}

/// The qcast knobs swept for `storage` (one default set for other ops):
/// float and quantile storage use only the scale op (and f8 formats
/// saturation), the rest is normalized as lowering does.
std::vector<QuantKnobs> sweptKnobs(const SweepAxes &axes, KernelOp op,
                                   const StorageSpec &storage) {
  if (op != KernelOp::QCast)
    return {QuantKnobs{}};
  if (storage.kind == StorageType::Kind::Integer)
    return axes.knobs;
  bool saturation = storage.kind == StorageType::Kind::Float &&
                    storage.floatFormat != FloatType::F4E2M1FN;
  std::vector<QuantKnobs> knobs;
  for (const QuantKnobs &given : axes.knobs)
    for (bool saturate : {true, false}) {
      if (!saturate && !saturation)
        continue;
      QuantKnobs normalized;
      normalized.scaleOp = given.scaleOp;
      normalized.saturate = saturate;
      if (std::find(knobs.begin(), knobs.end(), normalized) == knobs.end())
        knobs.push_back(normalized);
    }
  return knobs;
}

} // namespace

std::vector<KernelSpec> specSweep(const SweepAxes &axes) {
  struct StorageChoice {
    unsigned bits;
    bool isSigned, packed, narrow;
  };
  std::vector<StorageChoice> storages;
  std::vector<StorageSpec> storageSpecs;
  for (unsigned bits : axes.widths)
    for (bool isSigned : axes.signedness)
      for (bool narrow : {false, true}) {
        if (narrow && (!axes.narrowBounds || bits < 2))
          continue;
        if (!axes.packedOnly)
          storages.push_back({bits, isSigned, false, narrow});
        if ((axes.packed || axes.packedOnly) &&
            (bits == 1 || bits == 2 || bits == 4))
          storages.push_back({bits, isSigned, true, narrow});
      }
  for (const StorageChoice &choice : storages) {
    StorageSpec storage;
    storage.bits = choice.bits;
    storage.isSigned = choice.isSigned;
    storage.packed = choice.packed;
    storage.min =
        typeMin(choice.bits, choice.isSigned) + (choice.narrow ? 1 : 0);
    storage.max =
        typeMax(choice.bits, choice.isSigned) - (choice.narrow ? 1 : 0);
    storageSpecs.push_back(storage);
  }
  storageSpecs.insert(storageSpecs.end(), axes.compact.begin(),
                      axes.compact.end());

  std::vector<KernelSpec> specs;
  for (KernelOp op : axes.ops)
    for (const StorageSpec &storage : storageSpecs)
      for (ValueType expressed : axes.expressed)
        for (const LayoutSpec &layout : axes.layouts)
          for (bool runtime : axes.runtimeParams)
            for (const QuantKnobs &knobs : sweptKnobs(axes, op, storage)) {
              KernelSpec spec;
              spec.op = op;
              spec.storage = storage;
              spec.expressed = expressed;
              spec.compute =
                  expressed == ValueType::F64 ? ValueType::F64 : ValueType::F32;
              spec.layout = layout;
              spec.knobs = knobs;
              spec.params.runtime = runtime;
              if (!runtime) {
                int64_t span = spec.storage.max - spec.storage.min;
                for (int64_t p = 0; p < layout.parameterCount(); ++p) {
                  spec.params.scales.push_back(
                      roundToValueType(sweepScale(p), expressed));
                  // Float and quantile storage: small zero points (the
                  // table's or format's scale), mostly 0.
                  spec.params.zeroPoints.push_back(
                      storage.kind == StorageType::Kind::Integer
                          ? spec.storage.min + span * ((p * 5 + 2) % 11) / 10
                          : (p % 3 == 0   ? 0
                             : p % 3 == 1 ? 1
                                          : -2));
                }
              }
              if (verifyKernelSpec(spec))
                specs.push_back(std::move(spec));
            }
  return specs;
}

CompileOnlyTargets::CompileOnlyTargets(Backend &backend) : backend_(backend) {
  if (backend.isa() != runnableIsaLevel())
    return;
  aarch64_ = true;
  for (IsaLevel level : kAllIsaLevels)
    if (level > backend.isa()) {
      Expected<std::unique_ptr<Backend>> above =
          createBackend(backend.name(), level);
      EXPECT_TRUE(above) << above.status().message();
      if (above)
        above_.push_back(std::move(*above));
    }
}

CompileOnlyTargets::~CompileOnlyTargets() = default;

namespace {

/// Generates `spec` with `backend` without running it: for `triple`
/// (AArch64), or for the host's architecture at the backend's level.
void expectGenerates(Backend &backend, const KernelSpec &spec,
                     const char *triple) {
  AsmOptions options;
  if (triple)
    options.triple = triple;
  Expected<std::string> text = backend.assembly(spec, options);
  EXPECT_TRUE(text || text.status().code() == ErrorCode::Unsupported)
      << backend.name() << " at "
      << (triple ? triple : std::string(isaLevelName(backend.isa())))
      << " (compile only): " << spec.canonicalString() << ": "
      << text.status().message();
}

} // namespace

void CompileOnlyTargets::generate(const KernelSpec &spec) {
  for (std::unique_ptr<Backend> &above : above_)
    expectGenerates(*above, spec, nullptr);
  if (aarch64_)
    expectGenerates(backend_, spec, "aarch64-linux-gnu");
}

size_t checkSweep(Backend &backend, const SweepAxes &axes,
                  KernelTester::Options options) {
  size_t checked = 0;
  uint64_t seed = testSeed();
  CompileOnlyTargets compileOnly(backend);
  for (const KernelSpec &spec : specSweep(axes)) {
    compileOnly.generate(spec);
    Expected<CompiledCode> code = backend.compile(spec);
    if (!code) {
      EXPECT_EQ(code.status().code(), ErrorCode::Unsupported)
          << spec.canonicalString() << ": " << code.status().message();
      continue;
    }
    ++checked;
    KernelTester tester(spec, seed++, options);
    ::testing::AssertionResult result = tester.check(code->entry);
    EXPECT_TRUE(result) << backend.name() << ": " << result.message();
    if (!result)
      break;
  }
  return checked;
}

} // namespace qjit::testing
