//===- RoundTripPropertyTest.cpp - print(parse(x)) round-trips ------------===//
//
// Random valid type texts of every family (random storage, bounds, expressed
// type, scales from "nice" decimals to extreme IEEE bit patterns, zero
// points inside and outside the storage range, axes, sub-channel block specs
// consistent with a random tensor shape, quantile tables (float and integer
// table types), float storage, the pretty form, free whitespace) must
// parse; their print must parse back to an equal type and print
// identically. The same holds for the normalized type.
//
// The generator writes text rather than building TypeDescriptors so that it
// exercises every literal spelling and needs no knowledge of the parser's
// internal representation.
//
//===----------------------------------------------------------------------===//
#include "TestSeed.h"
#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace qjit {
namespace {

constexpr int kCases = 2500;
constexpr int kMaxReportedFailures = 10;

/// An expressed type and the scales it admits: [smallest denormal, largest
/// finite] for the IEEE-like formats, a safe sub-range for the tiny ones.
struct ExpressedRange {
  const char *name;
  double minScale;
  double maxScale;
};

constexpr double kDoubleMin = std::numeric_limits<double>::denorm_min();
constexpr double kDoubleMax = std::numeric_limits<double>::max();

const std::array<ExpressedRange, 18> kExpressed = {{
    {"f16", 0x1p-24, 65504.0},
    {"bf16", 0x1p-133, 0x1.FEp127},
    {"f32", 0x1p-149, 0x1.FFFFFEp127},
    {"f64", kDoubleMin, kDoubleMax},
    {"tf32", 0x1p-136, 0x1.FF8p127},
    {"f80", kDoubleMin, kDoubleMax},
    {"f128", kDoubleMin, kDoubleMax},
    {"f4E2M1FN", 0.5, 6.0},
    {"f6E2M3FN", 0.125, 7.5},
    {"f6E3M2FN", 0.0625, 28.0},
    {"f8E3M4", 0.015625, 15.5},
    {"f8E4M3", 0x1p-9, 240.0},
    {"f8E4M3FN", 0x1p-9, 448.0},
    {"f8E4M3FNUZ", 0x1p-10, 240.0},
    {"f8E4M3B11FNUZ", 0.001, 29.0},
    {"f8E5M2", 0x1p-16, 57344.0},
    {"f8E5M2FNUZ", 0x1p-17, 57344.0},
    {"f8E8M0FNU", 0x1p-127, 0x1p127},
}};

/// Float storage formats and their default integer bounds (±max).
struct FloatStorage {
  const char *name;
  int64_t defaultMax;
};
const std::array<FloatStorage, 3> kFloatStorage = {{
    {"f8E4M3FN", 448},
    {"f8E5M2", 57344},
    {"f4E2M1FN", 6},
}};

/// A storage type as text, with its effective bounds.
struct Storage {
  std::string text;
  int64_t min = 0;
  int64_t max = 0;
};

class TypeTextGenerator {
public:
  explicit TypeTextGenerator(uint64_t seed) : rng_(seed) {}

  std::string next() {
    text_.clear();
    switch (pick(7)) {
    case 0:
    case 1:
      perTensor();
      break;
    case 2:
    case 3:
      perAxis();
      break;
    case 4:
      subChannel();
      break;
    case 5:
      pick(2) ? any() : calibrated();
      break;
    default:
      pick(3) ? quantileInTensor() : uniformOverQuantile();
      break;
    }
    if (chance(0.05))
      text_ = " " + text_ + "\n";
    return text_;
  }

private:
  // --- randomness -----------------------------------------------------------
  uint64_t pick(uint64_t n) { return rng_() % n; }
  int64_t between(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  // --- text with optional whitespace between tokens
  // ---------------------------
  void ws() {
    if (!chance(0.08))
      return;
    static constexpr std::array<const char *, 4> kSpaces = {" ", "  ", "\n",
                                                            "\t"};
    text_ += kSpaces[pick(kSpaces.size())];
  }
  /// Punctuation that whitespace may surround.
  void punct(const char *token) {
    ws();
    text_ += token;
    ws();
  }
  void word(const std::string &token) { text_ += token; }

  // --- literals
  // ---------------------------------------------------------------
  std::string integer(int64_t value) {
    if (!chance(0.2))
      return std::to_string(value);
    const uint64_t magnitude =
        value < 0 ? ~static_cast<uint64_t>(value) + 1 : value;
    char buffer[32];
    std::snprintf(buffer, sizeof buffer,
                  chance(0.5) ? "0x%" PRIx64 : "0x%" PRIX64, magnitude);
    return (value < 0 ? "-" : "") + std::string(buffer);
  }

  /// A literal for `value` (> 0 or any finite sign for table entries) that
  /// parses back to exactly `value`.
  std::string floatLiteral(double value) {
    switch (pick(4)) {
    case 0: {
      if (std::signbit(value))
        break; // a hex literal has no sign
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      char buffer[32];
      std::snprintf(buffer, sizeof buffer,
                    chance(0.5) ? "0x%016" PRIX64 : "0x%" PRIx64, bits);
      return buffer;
    }
    case 1: {
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, chance(0.5) ? "%.17g" : "%.16e",
                    value);
      return withDot(buffer);
    }
    default:
      break;
    }
    char buffer[40];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return withDot(std::string(buffer, result.ptr));
  }

  /// Scales need a '.': "5" becomes "5.", "1e+300" becomes "1.0e+300".
  static std::string withDot(std::string text) {
    if (text.find('.') != std::string::npos)
      return text;
    const size_t e = text.find_first_of("eE");
    if (e == std::string::npos)
      return text + ".";
    return text.insert(e, ".0");
  }

  double scaleIn(const ExpressedRange &range) {
    switch (pick(6)) {
    case 0:
      return range.minScale;
    case 1:
      return range.maxScale;
    case 2: { // any positive finite double in range, by its bits
      for (;;) {
        const uint64_t bits = rng_() & 0x7FFFFFFFFFFFFFFFull;
        double value;
        std::memcpy(&value, &bits, sizeof value);
        if (std::isfinite(value) && value >= range.minScale &&
            value <= range.maxScale)
          return value;
        if (range.maxScale < 1e300)
          break; // rarely hits a narrow range: fall back to log-uniform
      }
      [[fallthrough]];
    }
    case 3: { // log-uniform
      const double lo = std::log2(range.minScale);
      const double hi = std::log2(range.maxScale);
      const double value =
          std::exp2(std::uniform_real_distribution<double>(lo, hi)(rng_));
      return std::clamp(value, range.minScale, range.maxScale);
    }
    default: { // a "nice" decimal such as 0.25 or 1.5e-3, when in range
      static constexpr std::array<double, 6> kNice = {0.1, 0.25, 0.5,
                                                      1.0, 1.5,  2.0};
      const double value =
          kNice[pick(kNice.size())] * std::pow(10.0, between(-4, 4));
      return std::clamp(value, range.minScale, range.maxScale);
    }
    }
  }

  // --- types
  // ------------------------------------------------------------------
  Storage integerStorage(unsigned maxWidth = 32) {
    const auto width = static_cast<unsigned>(between(1, maxWidth));
    const bool isSigned = chance(0.5);
    Storage storage;
    storage.text =
        (isSigned ? (chance(0.3) ? "si" : "i") : (chance(0.3) ? "ui" : "u")) +
        std::to_string(width);
    storage.min = isSigned ? -(int64_t(1) << (width - 1)) : 0;
    storage.max =
        isSigned ? (int64_t(1) << (width - 1)) - 1 : (int64_t(1) << width) - 1;
    bounds(storage);
    return storage;
  }

  Storage floatStorage() {
    const FloatStorage &format = kFloatStorage[pick(kFloatStorage.size())];
    Storage storage{format.name, -format.defaultMax, format.defaultMax};
    bounds(storage);
    return storage;
  }

  /// Narrows the default range with explicit `<min:max>` (or writes the
  /// default explicitly) half of the time.
  void bounds(Storage &storage) {
    if (chance(0.5))
      return;
    if (chance(0.8)) {
      const int64_t a = between(storage.min, storage.max);
      const int64_t b = between(storage.min, storage.max);
      if (a == b)
        return;
      storage.min = std::min(a, b);
      storage.max = std::max(a, b);
    }
    storage.text += "<";
    storage.text += integer(storage.min);
    storage.text += ":";
    storage.text += integer(storage.max);
    storage.text += ">";
  }

  Storage uniformStorage() {
    return chance(0.1) ? floatStorage() : integerStorage();
  }

  const ExpressedRange &expressed() {
    // Mostly the types kernels support; every other name sometimes.
    return chance(0.7) ? kExpressed[pick(4)]
                       : kExpressed[pick(kExpressed.size())];
  }

  int64_t zeroPoint(const Storage &storage) {
    if (chance(0.3))
      return 0;
    if (chance(0.9))
      return between(storage.min, storage.max);
    return between(-(int64_t(1) << 40), int64_t(1) << 40);
  }

  /// What openUniformHead wrote: the closer and the drawn storage and
  /// expressed type.
  struct UniformHead {
    std::string closer;
    Storage storage;
    const ExpressedRange &range;
  };

  /// Opens a uniform type and writes its `STORAGE:EXPRESSED`.
  UniformHead openUniformHead() {
    std::string closer = openUniform();
    Storage storage = uniformStorage();
    const ExpressedRange &range = expressed();
    word(storage.text);
    punct(":");
    word(range.name);
    return {std::move(closer), std::move(storage), range};
  }

  void scaleZero(const Storage &storage, const ExpressedRange &range) {
    word(floatLiteral(scaleIn(range)));
    const int64_t zp = zeroPoint(storage);
    if (zp != 0 || chance(0.1)) {
      punct(":");
      word(integer(zp));
    }
  }

  /// `!quant.uniform<` or the pretty `!quant<uniform<`; returns the closer.
  std::string openUniform() {
    if (chance(0.1)) {
      word("!quant<");
      ws();
      word("uniform<");
      ws();
      return ">>";
    }
    word("!quant.uniform<");
    ws();
    return ">";
  }

  void close(const std::string &closer) {
    for (char ch : closer) {
      ws();
      text_ += ch;
    }
  }

  /// `tensor<d0xd1x...x` for the given dims (-1 = `?`); empty = rank 0.
  void openTensor(const std::vector<int64_t> &dims) {
    word("tensor<");
    ws();
    for (int64_t dim : dims) {
      word(dim < 0 ? "?" : std::to_string(dim));
      punct("x");
    }
  }
  void openUnrankedTensor() {
    word("tensor<");
    ws();
    word("*");
    punct("x");
  }

  std::vector<int64_t> randomDims(int64_t rank) {
    std::vector<int64_t> dims(rank);
    for (int64_t &dim : dims)
      dim = chance(0.2) ? -1 : between(0, 6);
    return dims;
  }

  void perTensor() {
    const int context = static_cast<int>(pick(4)); // bare, ranked, unranked
    if (context == 1)
      openTensor(randomDims(between(0, 4)));
    else if (context == 2)
      openUnrankedTensor();
    const auto [closer, storage, range] = openUniformHead();
    punct(",");
    scaleZero(storage, range);
    close(closer);
    if (context == 1 || context == 2)
      close(">");
  }

  void perAxis() {
    const auto count = static_cast<int64_t>(between(1, 8));
    int64_t axis = 0;
    const int context = static_cast<int>(pick(5)); // bare, unranked, ranked
    if (context == 1) {
      axis = between(0, 5);
      openUnrankedTensor();
    } else if (context >= 2) {
      std::vector<int64_t> dims = randomDims(between(1, 4));
      for (int64_t &dim : dims)
        dim = dim == 0 ? 1 : dim; // keep the other dims non-empty
      axis = between(0, static_cast<int64_t>(dims.size()) - 1);
      dims[axis] = chance(0.2) ? -1 : count;
      openTensor(dims);
    } else {
      axis = between(0, 100);
    }
    const auto [closer, storage, range] = openUniformHead();
    punct(":");
    word(integer(axis));
    punct(",");
    punct("{");
    for (int64_t i = 0; i < count; ++i) {
      if (i)
        punct(",");
      scaleZero(storage, range);
    }
    punct("}");
    close(closer);
    if (context >= 1)
      close(">");
  }

  void subChannel() {
    // Per axis: a block size and a block count; dim = size * count. Axes
    // left out of the block spec have one block spanning the whole dim.
    const auto rank = static_cast<size_t>(between(1, 3));
    std::vector<int64_t> blockSize(rank), blockCount(rank);
    std::vector<size_t> listed;
    for (size_t axis = 0; axis < rank; ++axis) {
      blockSize[axis] = between(1, 4);
      if (chance(0.7)) {
        listed.push_back(axis);
        blockCount[axis] = between(1, 3);
      } else {
        blockCount[axis] = 1;
      }
    }
    std::shuffle(listed.begin(), listed.end(), rng_);
    std::vector<int64_t> dims(rank);
    for (size_t axis = 0; axis < rank; ++axis)
      dims[axis] = blockSize[axis] * blockCount[axis];
    const bool bare = chance(0.1);
    if (!bare)
      openTensor(dims);
    const auto [closer, storage, range] = openUniformHead();
    punct(":");
    punct("{");
    for (size_t i = 0; i < listed.size(); ++i) {
      if (i)
        punct(",");
      word(std::to_string(listed[i]));
      punct(":");
      word(integer(blockSize[listed[i]]));
    }
    punct("}");
    punct(",");
    scaleTensor(blockCount, 0, storage, range);
    close(closer);
    if (!bare)
      close(">");
  }

  void scaleTensor(const std::vector<int64_t> &shape, size_t axis,
                   const Storage &storage, const ExpressedRange &range) {
    punct("{");
    for (int64_t i = 0; i < shape[axis]; ++i) {
      if (i)
        punct(",");
      if (axis + 1 == shape.size())
        scaleZero(storage, range);
      else
        scaleTensor(shape, axis + 1, storage, range);
    }
    punct("}");
  }

  void any() {
    const bool inTensor = chance(0.3);
    if (inTensor)
      pick(2) ? openTensor(randomDims(between(0, 3))) : openUnrankedTensor();
    word("!quant.any<");
    ws();
    word(uniformStorage().text);
    if (chance(0.7)) {
      punct(":");
      word(expressed().name);
    }
    close(inTensor ? ">>" : ">");
  }

  void calibrated() {
    const ExpressedRange &range = expressed();
    double min = std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
    double max = std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
    if (min == max)
      max = min + 1.0;
    if (min > max)
      std::swap(min, max);
    word("!quant.calibrated<");
    ws();
    word(range.name);
    word("<");
    ws();
    word(signedFloatLiteral(min));
    punct(":");
    word(signedFloatLiteral(max));
    close(">>");
  }

  /// Any finite value: decimal spelling (hex literals carry no sign).
  std::string signedFloatLiteral(double value) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return withDot(buffer);
  }

  void quantile() {
    const Storage storage = integerStorage(4);
    static constexpr std::array<const char *, 3> kTableTypes = {"f16", "bf16",
                                                                "f32"};
    word("!quant.quantile<");
    ws();
    // Quantile bounds follow the table: `, <min:max>`, not `iN<min:max>`.
    const std::string name = storage.text.substr(0, storage.text.find('<'));
    word(name);
    punct(":");
    const bool integerTable = chance(0.3);
    int64_t lo = 0, hi = 0;
    if (integerTable) {
      // iN, siN or uiN; entries are integers of it, written as floats.
      static constexpr std::array<const char *, 3> kPrefixes = {"i", "si",
                                                                "ui"};
      const std::string prefix = kPrefixes[pick(kPrefixes.size())];
      const int64_t width = between(1, 32);
      lo = prefix == "ui" ? 0 : -(int64_t{1} << (width - 1));
      hi = prefix == "ui" ? (int64_t{1} << width) - 1
                          : (int64_t{1} << (width - 1)) - 1;
      word(prefix + std::to_string(width));
    } else {
      word(kTableTypes[pick(kTableTypes.size())]);
    }
    punct(",");
    punct("{");
    for (int64_t v = storage.min; v <= storage.max; ++v) {
      if (v != storage.min)
        punct(",");
      if (!integerTable)
        word(signedFloatLiteral(
            std::uniform_real_distribution<double>(-4.0, 4.0)(rng_)));
      else if (chance(0.1))
        word("-0.0"); // Held, and printed, as 0.
      else
        word(signedFloatLiteral(static_cast<double>(between(lo, hi))));
    }
    punct("}");
    if (storage.text.find('<') != std::string::npos) {
      punct(",");
      word("<");
      ws();
      word(integer(storage.min));
      punct(":");
      word(integer(storage.max));
      punct(">");
    }
    close(">");
  }

  void quantileInTensor() {
    const bool inTensor = chance(0.3);
    if (inTensor)
      openTensor(randomDims(between(1, 3)));
    quantile();
    if (inTensor)
      close(">");
  }

  void uniformOverQuantile() {
    const std::string closer = openUniform();
    quantile();
    const ExpressedRange &range = kExpressed[pick(4)];
    punct(":");
    word(range.name);
    punct(",");
    word(floatLiteral(scaleIn(range)));
    close(closer);
  }

  std::mt19937_64 rng_;
  std::string text_;
};

std::string describe(const ParseResult &result) {
  return result.diagnostic ? result.diagnostic->render() : "(no diagnostic)";
}

/// print -> parse -> equal, and print is a fixed point; "" when it holds.
std::string checkPrintParses(const TypeDescriptor &type) {
  const std::string printed = printType(type);
  const ParseResult reparsed = parseType(printed);
  if (!reparsed.type)
    return "its print '" + printed + "' does not parse: " + describe(reparsed);
  if (!(*reparsed.type == type))
    return "parse(print(t)) != t; print: " + printed;
  if (printType(*reparsed.type) != printed)
    return "print is no fixed point: " + printed + " then " +
           printType(*reparsed.type);
  return "";
}

/// Checks one text; returns a failure description, or "" when it holds.
std::string checkRoundTrip(const std::string &text) {
  const ParseResult parsed = parseType(text);
  if (!parsed.type)
    return "a valid type was rejected: " + describe(parsed);
  if (std::string failure = checkPrintParses(*parsed.type); !failure.empty())
    return failure;
  if (std::string failure = checkPrintParses(normalizeType(*parsed.type));
      !failure.empty())
    return "normalized: " + failure;
  return "";
}

TEST(RoundTripPropertyTest, RandomValidTypesRoundTrip) {
  TypeTextGenerator generator(qjit::testing::testSeed());
  int failures = 0;
  for (int i = 0; i < kCases && failures < kMaxReportedFailures; ++i) {
    const std::string text = generator.next();
    const std::string failure = checkRoundTrip(text);
    if (!failure.empty()) {
      ++failures;
      ADD_FAILURE() << "case " << i << ": " << text << "\n  " << failure;
    }
  }
}

} // namespace
} // namespace qjit
