//===- Parser.cpp - Syntax of quant type text -----------------------------===//
#include "Parser.h"

#include "FloatFormat.h"
#include "Lexer.h"
#include "Literals.h"
#include "Verifier.h"

#include <llvm/ADT/APInt.h>

#include <bit>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace qjit::detail {

namespace {

using Kind = Token::Kind;

/// `text` in quotes, control and non-ASCII bytes escaped as \xNN.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    constexpr char kHex[] = "0123456789ABCDEF";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out + "'";
}

std::string describe(const Token &token) {
  if (token.is(Kind::EndOfInput))
    return "end of input";
  return quoted(token.text);
}

SourceRange join(SourceRange first, SourceRange last) {
  return {first.offset, last.offset + last.length - first.offset};
}

bool isFloatStorage(FloatType type) {
  return type == FloatType::F8E4M3FN || type == FloatType::F8E5M2 ||
         type == FloatType::F4E2M1FN;
}

/// How a hex scale literal is read. MLIR reads it as the bits of a double,
/// but prints sub-channel scales (held in the expressed type) as bits of
/// the expressed type; reading those back as a double could never give a
/// valid scale, so qjit reads them as the expressed type's bits instead.
struct HexScaleRule {
  std::optional<FloatType> subChannelExpressed;
};

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text), lexer_(text) {}

  std::variant<ParsedType, LocatedError> run() {
    ParsedType parsed;
    if (!parseDescriptor(parsed))
      return *error_;
    Token trailing = lexer_.next();
    if (!trailing.is(Kind::EndOfInput)) {
      fail(trailing.range,
           "unexpected " + describe(trailing) + " after the end of the type");
      return *error_;
    }
    return parsed;
  }

private:
  // --- Errors --------------------------------------------------------------
  bool fail(SourceRange where, std::string message) {
    if (!error_)
      error_ = LocatedError{where, std::move(message)};
    return false;
  }

  bool expect(Kind kind, std::string_view what, Token *out = nullptr) {
    Token token = lexer_.next();
    if (!token.is(kind))
      return fail(token.range, "expected " + std::string(what) + ", found " +
                                   describe(token));
    if (out)
      *out = token;
    return true;
  }

  bool consumeIf(Kind kind) {
    if (!lexer_.peek().is(kind))
      return false;
    (void)lexer_.next();
    return true;
  }

  // --- Literals ------------------------------------------------------------
  /// `-`? integer; `range` spans the sign and digits.
  bool parseInteger(int64_t &value, SourceRange &range, std::string_view what) {
    Token first = lexer_.next();
    Token digits = first;
    bool negative = first.is(Kind::Minus);
    if (negative)
      digits = lexer_.next();
    if (digits.is(Kind::Float)) {
      SourceRange literal = join(first.range, digits.range);
      return fail(literal, "expected " + std::string(what) +
                               " (an integer), found float literal " +
                               quoted(spellingOf(literal)));
    }
    if (!digits.is(Kind::Integer))
      return fail(digits.range, "expected " + std::string(what) +
                                    " (an integer), found " + describe(digits));
    range = join(first.range, digits.range);
    std::optional<int64_t> parsed = integerLiteralValue(digits.text, negative);
    if (!parsed)
      return fail(range, std::string(what) + " " + quoted(spellingOf(range)) +
                             " does not fit in 64 bits");
    value = *parsed;
    return true;
  }

  bool parseInt32(int32_t &value, SourceRange &range, std::string_view what) {
    int64_t wide = 0;
    if (!parseInteger(wide, range, what))
      return false;
    if (wide < std::numeric_limits<int32_t>::min() ||
        wide > std::numeric_limits<int32_t>::max())
      return fail(range, std::string(what) + " " + quoted(spellingOf(range)) +
                             " does not fit in 32 bits");
    value = static_cast<int32_t>(wide);
    return true;
  }

  /// A float literal (`-`? digits `.` ...) or a hex bit pattern.
  bool parseFloat(double &value, SourceRange &range, std::string_view what,
                  HexScaleRule hexRule = {}) {
    Token first = lexer_.next();
    Token literal = first;
    bool negative = first.is(Kind::Minus);
    if (negative)
      literal = lexer_.next();
    range = join(first.range, literal.range);
    std::string_view spelling = spellingOf(range);
    if (literal.is(Kind::Float)) {
      std::optional<double> parsed = floatLiteralValue(literal.text, negative);
      if (!parsed)
        return fail(range, std::string(what) + " " + quoted(spelling) +
                               " is not a valid float literal");
      value = *parsed;
      return true;
    }
    if (!literal.is(Kind::Integer))
      return fail(literal.range, "expected " + std::string(what) +
                                     " (a float literal), found " +
                                     describe(literal));
    if (literal.text.size() < 2 || literal.text[1] != 'x') {
      // Name what the user wrote (`1e-3`, `0X1F`), not just its digits.
      SourceRange word = gluedWord(range);
      return fail(word, std::string(what) + " " + quoted(spellingOf(word)) +
                            " is not a float literal; write it with a '.' "
                            "(as in 2.0 or 1.0e-3)");
    }
    if (negative)
      return fail(range, "hexadecimal " + std::string(what) + " " +
                             quoted(spelling) +
                             " must not have a leading '-' (the sign is "
                             "part of the bit pattern)");
    return hexFloat(literal, value, std::string(what), hexRule);
  }

  std::string_view spellingOf(SourceRange range) const {
    return text_.substr(range.offset, range.length);
  }

  /// `range` extended over the identifier characters glued to it, and a
  /// sign after an exponent letter: the whole of `1e-3` or `0X1F`.
  SourceRange gluedWord(SourceRange range) const {
    size_t end = range.offset + range.length;
    auto isWordChar = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
             c == '.' || c == '$';
    };
    while (end < text_.size()) {
      char c = text_[end];
      bool exponentSign = (c == '-' || c == '+') &&
                          (text_[end - 1] == 'e' || text_[end - 1] == 'E');
      if (!isWordChar(c) && !exponentSign)
        break;
      ++end;
    }
    return {range.offset, end - range.offset};
  }

  bool hexFloat(const Token &literal, double &value, const std::string &what,
                HexScaleRule hexRule) {
    std::optional<llvm::APInt> bits = hexLiteralBits(literal.text, 128);
    if (bits && hexRule.subChannelExpressed) {
      FloatType expressed = *hexRule.subChannelExpressed;
      unsigned width = floatTypeBits(expressed);
      unsigned active = bits->getActiveBits();
      bool readAsExpressed = expressed != FloatType::F64 && active <= width &&
                             (width < 64 || active > 64);
      if (readAsExpressed) {
        std::optional<double> decoded = valueOfBitPattern(*bits, expressed);
        if (!decoded)
          return fail(literal.range,
                      "hexadecimal " + what + " " + quoted(literal.text) +
                          " is not exactly representable as a double");
        value = *decoded;
        return true;
      }
    }
    if (!bits || bits->getActiveBits() > 64)
      return fail(literal.range, "hexadecimal " + what + " " +
                                     quoted(literal.text) +
                                     " is wider than the 64 bits of a double");
    value = std::bit_cast<double>(bits->getZExtValue());
    return true;
  }

  // --- Types ---------------------------------------------------------------
  bool parseDescriptor(ParsedType &parsed) {
    Token first = lexer_.peek();
    if (first.is(Kind::Identifier) && first.text == "tensor")
      return parseTensor(parsed);
    if (!first.is(Kind::BangIdentifier))
      return fail(first.range, "expected a !quant type or tensor<...>, found " +
                                   describe(first));
    return parseQuantType(parsed.type.element, parsed.element);
  }

  bool parseTensor(ParsedType &parsed) {
    Token keyword = lexer_.next();
    parsed.tensor.keyword = keyword.range;
    if (!expect(Kind::Less, "'<' after 'tensor'"))
      return false;
    TensorShape shape;
    while (true) {
      size_t at = lexer_.position();
      char c = at < text_.size() ? text_[at] : '\0';
      if (c == '*' && shape.ranked && shape.dims.empty()) {
        parsed.tensor.star = lexer_.next().range;
        shape.ranked = false;
        if (!lexer_.consumeDimensionSeparator())
          return fail(lexer_.peek().range,
                      "expected 'x' after '*' in an unranked tensor");
        break;
      }
      if (c == '?') {
        parsed.tensor.dims.push_back(lexer_.next().range);
        shape.dims.push_back(TensorShape::kDynamic);
      } else if (c >= '0' && c <= '9') {
        Token dim = lexer_.nextDimension();
        std::optional<int64_t> size = integerLiteralValue(dim.text, false);
        if (!size)
          return fail(dim.range, "tensor dimension " + quoted(dim.text) +
                                     " does not fit in 64 bits");
        parsed.tensor.dims.push_back(dim.range);
        shape.dims.push_back(*size);
      } else {
        break;
      }
      if (!lexer_.consumeDimensionSeparator()) {
        Token found = lexer_.peek();
        return fail(found.range,
                    "expected 'x' after tensor dimension " +
                        quoted(spellingOf(parsed.tensor.dims.back())) +
                        ", found " + describe(found));
      }
    }
    Token element = lexer_.peek();
    if (!element.is(Kind::BangIdentifier))
      return fail(element.range,
                  "expected a !quant element type in the tensor, found " +
                      describe(element));
    if (!parseQuantType(parsed.type.element, parsed.element))
      return false;
    Token close = lexer_.next();
    if (close.is(Kind::Comma))
      return fail(close.range, "unexpected ',' in tensor<...>: tensor "
                               "encodings are not supported");
    if (!close.is(Kind::Greater))
      return fail(close.range,
                  "expected '>' to close tensor<, found " + describe(close));
    parsed.type.tensor = std::move(shape);
    return true;
  }

  bool parseQuantType(QuantType &type, QuantTypeLocations &where) {
    Token name = lexer_.next();
    where.type = name.range;
    if (!name.is(Kind::BangIdentifier))
      return fail(name.range,
                  "expected a !quant type, found " + describe(name));
    std::string_view spelling = name.text;
    if (spelling == "!quant") {
      // The generic form `!quant<uniform<...>>`.
      if (!lexer_.atChar('<'))
        return fail(lexer_.peek().range,
                    "expected '<' right after '!quant' (no whitespace)");
      (void)lexer_.next();
      Token family = lexer_.next();
      if (!family.is(Kind::Identifier))
        return fail(family.range,
                    "expected a quant type name (uniform, any, calibrated, "
                    "quantile), found " +
                        describe(family));
      if (!parseFamily(family.text, family.range, type, where))
        return false;
      return expect(Kind::Greater, "'>' to close '!quant<'");
    }
    constexpr std::string_view kPrefix = "!quant.";
    if (spelling.substr(0, kPrefix.size()) != kPrefix)
      return fail(name.range, "unknown type " + quoted(spelling) +
                                  "; expected a !quant type");
    std::string_view family = spelling.substr(kPrefix.size());
    SourceRange familyRange{name.range.offset + kPrefix.size(),
                            name.range.length - kPrefix.size()};
    if (family.empty()) {
      Token found = lexer_.peek();
      return fail(found.range, "expected a quant type name after '!quant.', "
                               "found " +
                                   describe(found));
    }
    if (!isFamily(family))
      return unknownFamily(family, familyRange);
    if (!lexer_.atChar('<'))
      return fail(lexer_.peek().range, "expected '<' right after " +
                                           quoted(spelling) +
                                           " (no whitespace)");
    return parseFamily(family, familyRange, type, where);
  }

  static bool isFamily(std::string_view name) {
    return name == "uniform" || name == "any" || name == "calibrated" ||
           name == "quantile";
  }

  bool unknownFamily(std::string_view name, SourceRange range) {
    return fail(range, "unknown quant type " + quoted(name) +
                           " (expected uniform, any, calibrated or quantile)");
  }

  bool parseFamily(std::string_view family, SourceRange range, QuantType &type,
                   QuantTypeLocations &where) {
    if (family == "uniform")
      return parseUniform(type, where);
    if (family == "any")
      return parseAny(type, where);
    if (family == "calibrated")
      return parseCalibrated(type, where);
    if (family == "quantile")
      return parseQuantile(type, where);
    return unknownFamily(family, range);
  }

  bool parseStorage(StorageType &storage, QuantTypeLocations &where,
                    bool isQuantileTable) {
    Token token = lexer_.peek();
    where.storage = token.range;
    if (token.is(Kind::BangIdentifier) && !isQuantileTable) {
      if (!parseQuantileStorage(storage, where))
        return false;
    } else {
      token = lexer_.next();
      if (!token.is(Kind::Identifier))
        return fail(token.range,
                    "expected a storage type (iN, siN, uiN, uN, f8E4M3FN, "
                    "f8E5M2, f4E2M1FN or a !quant.quantile), found " +
                        describe(token));
      if (!storageFromName(token, storage))
        return false;
    }
    storage.min = storage.defaultMin();
    storage.max = storage.defaultMax();
    if (isQuantileTable || !lexer_.peek().is(Kind::Less))
      return true;
    (void)lexer_.next();
    return parseInteger(storage.min, where.storageMin, "storage minimum") &&
           expect(Kind::Colon, "':' between storage bounds") &&
           parseInteger(storage.max, where.storageMax, "storage maximum") &&
           expect(Kind::Greater, "'>' to close storage bounds");
  }

  bool storageFromName(const Token &token, StorageType &storage) {
    std::string_view name = token.text;
    if (std::optional<FloatType> floatType = floatTypeFromName(name)) {
      if (!isFloatStorage(*floatType))
        return fail(token.range, "float type " + quoted(name) +
                                     " cannot be a storage type (float "
                                     "storage is f8E4M3FN, f8E5M2 or "
                                     "f4E2M1FN)");
      storage.kind = StorageType::Kind::Float;
      storage.floatType = *floatType;
      storage.width = floatTypeBits(*floatType);
      storage.isSigned = true;
      return true;
    }
    std::optional<IntegerName> integer =
        integerName(name, /*quantShorthand=*/true);
    if (!integer)
      return fail(token.range, "illegal storage type " + quoted(name) +
                                   " (expected iN, siN, uiN, uN, f8E4M3FN, "
                                   "f8E5M2 or f4E2M1FN)");
    if (!integer->width)
      return fail(token.range, "storage type " + quoted(name) +
                                   " has an unsupported width; integer "
                                   "storage is 1 to 32 bits wide");
    storage.kind = StorageType::Kind::Integer;
    storage.width = *integer->width;
    storage.isSigned = integer->isSigned;
    storage.signednessPrefix = integer->signednessPrefix;
    return true;
  }

  struct IntegerName {
    bool isSigned = true;
    bool signednessPrefix = false;
    std::optional<unsigned> width; ///< nullopt: not 1..32.
  };

  /// `iN`, `siN`, `uiN` and, with `quantShorthand`, the quant dialect's
  /// `uN`; nullopt for any other spelling.
  static std::optional<IntegerName> integerName(std::string_view name,
                                                bool quantShorthand) {
    struct Spelling {
      std::string_view text;
      bool signednessPrefix;
      bool isSigned;
    };
    for (Spelling spelling :
         {Spelling{"si", true, true}, Spelling{"ui", true, false},
          Spelling{"i", false, true}, Spelling{"u", false, false}}) {
      if (name.substr(0, spelling.text.size()) != spelling.text)
        continue;
      if (spelling.text == "u" && !quantShorthand)
        return std::nullopt;
      std::string_view digits = name.substr(spelling.text.size());
      if (digits.empty() ||
          digits.find_first_not_of("0123456789") != digits.npos)
        return std::nullopt;
      IntegerName result{spelling.isSigned, spelling.signednessPrefix, {}};
      std::optional<int64_t> width = integerLiteralValue(digits, false);
      if (width && *width >= 1 && *width <= 32)
        result.width = static_cast<unsigned>(*width);
      return result;
    }
    return std::nullopt;
  }

  bool parseQuantileStorage(StorageType &storage, QuantTypeLocations &where) {
    auto quantile = std::make_shared<QuantType>();
    QuantTypeLocations quantileWhere;
    size_t start = lexer_.position();
    if (storageDepth_ == kMaxStorageNesting)
      return fail({start, 1}, "quant types nest as storage at most " +
                                  std::to_string(kMaxStorageNesting) + " deep");
    ++storageDepth_;
    bool parsed = parseQuantType(*quantile, quantileWhere);
    --storageDepth_;
    if (!parsed)
      return false;
    size_t end = lexer_.position();
    where.storage = {start, end - start};
    if (quantile->family != QuantType::Family::Quantile)
      return fail(quantileWhere.type,
                  "only a !quant.quantile type can be used as storage");
    if (auto problem = verifyQuantType(*quantile, quantileWhere, text_))
      return fail(problem->where, std::move(problem->message));
    storage.kind = StorageType::Kind::Quantile;
    storage.width = quantile->storage.width;
    storage.isSigned = quantile->storage.isSigned;
    storage.quantile = std::move(quantile);
    return true;
  }

  bool parseExpressed(std::optional<FloatType> &expressed,
                      QuantTypeLocations &where, std::string_view what) {
    Token token = lexer_.next();
    where.expressed = token.range;
    std::optional<FloatType> type;
    if (token.is(Kind::Identifier))
      type = floatTypeFromName(token.text);
    if (!type)
      return fail(token.range, "expected " + std::string(what) +
                                   " (a float type such as f32), found " +
                                   describe(token));
    expressed = type;
    return true;
  }

  /// scale (`:` zero-point)?
  bool parseScaleZero(QuantType &type, QuantTypeLocations &where,
                      HexScaleRule hexRule) {
    double scale = 0;
    SourceRange scaleRange;
    if (!parseFloat(scale, scaleRange, "scale", hexRule))
      return false;
    int64_t zeroPoint = 0;
    SourceRange zeroPointRange;
    if (consumeIf(Kind::Colon) &&
        !parseInteger(zeroPoint, zeroPointRange, "zero point"))
      return false;
    type.scales.push_back(scale);
    type.zeroPoints.push_back(zeroPoint);
    where.scales.push_back(scaleRange);
    where.zeroPoints.push_back(zeroPointRange);
    return true;
  }

  /// The elements of a `{...}` scale list after its `{`; `shape` receives
  /// the list's nested shape.
  bool parseScaleList(QuantType &type, QuantTypeLocations &where,
                      HexScaleRule hexRule, unsigned depth,
                      std::vector<int64_t> &shape) {
    if (depth > kMaxScaleNesting)
      return fail(lexer_.peek().range, "scale list nested deeper than " +
                                           std::to_string(kMaxScaleNesting) +
                                           " levels");
    std::vector<int64_t> elementShape;
    int64_t count = 0;
    do {
      Token start = lexer_.peek();
      std::vector<int64_t> thisShape;
      if (consumeIf(Kind::LBrace)) {
        if (!parseScaleList(type, where, hexRule, depth + 1, thisShape))
          return false;
      } else if (!parseScaleZero(type, where, hexRule)) {
        return false;
      }
      if (count == 0)
        elementShape = thisShape;
      else if (thisShape != elementShape)
        return fail(start.range, "inconsistent scale list: element " +
                                     std::to_string(count) + " has shape " +
                                     shapeText(thisShape) +
                                     " but element 0 has " +
                                     shapeText(elementShape));
      ++count;
    } while (consumeIf(Kind::Comma));
    Token close = lexer_.next();
    if (!close.is(Kind::RBrace))
      return fail(close.range, "expected ',' or '}' in the scale list, found " +
                                   describe(close));
    shape.assign(1, count);
    shape.insert(shape.end(), elementShape.begin(), elementShape.end());
    return true;
  }

  static std::string shapeText(const std::vector<int64_t> &shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      out += (i ? "x" : "") + std::to_string(shape[i]);
    return out + "]";
  }

  bool parseBlockSizes(QuantType &type, QuantTypeLocations &where) {
    if (consumeIf(Kind::RBrace))
      return true;
    do {
      BlockSize block;
      SourceRange axisRange, sizeRange;
      if (!parseInt32(block.axis, axisRange, "block axis") ||
          !expect(Kind::Colon, "':' between block axis and block size") ||
          !parseInteger(block.size, sizeRange, "block size"))
        return false;
      type.blockSizes.push_back(block);
      where.blockAxes.push_back(axisRange);
      where.blockSizes.push_back(sizeRange);
    } while (consumeIf(Kind::Comma));
    return expect(Kind::RBrace, "',' or '}' in the block sizes");
  }

  bool parseUniform(QuantType &type, QuantTypeLocations &where) {
    type.family = QuantType::Family::Uniform;
    if (!expect(Kind::Less, "'<'") ||
        !parseStorage(type.storage, where, /*isQuantileTable=*/false) ||
        !expect(Kind::Colon, "':' before the expressed type") ||
        !parseExpressed(type.expressed, where, "an expressed type"))
      return false;
    if (consumeIf(Kind::Colon)) {
      if (consumeIf(Kind::LBrace)) {
        type.granularity = QuantType::Granularity::SubChannel;
        if (!parseBlockSizes(type, where))
          return false;
      } else {
        type.granularity = QuantType::Granularity::PerAxis;
        if (!parseInt32(type.axis, where.axis, "quantized axis"))
          return false;
      }
    }
    if (!expect(Kind::Comma, "',' before the scale"))
      return false;
    if (lexer_.peek().is(Kind::Question)) {
      where.scaleList = lexer_.next().range;
      type.parametersAtCallTime = true;
    } else if (type.granularity == QuantType::Granularity::PerTensor) {
      if (!parseScaleZero(type, where, {}))
        return false;
    } else {
      Token open;
      if (!expect(Kind::LBrace, "'{' to open the scale list", &open))
        return false;
      where.scaleList = open.range;
      HexScaleRule hexRule;
      if (type.granularity == QuantType::Granularity::SubChannel)
        hexRule.subChannelExpressed = type.expressed;
      std::vector<int64_t> shape;
      if (!parseScaleList(type, where, hexRule, 1, shape))
        return false;
      // Per-axis lists may be nested (MLIR flattens them); sub-channel
      // lists are the scale tensor.
      if (type.granularity == QuantType::Granularity::SubChannel)
        type.scaleShape = std::move(shape);
    }
    return expect(Kind::Greater, "'>' to close the type");
  }

  bool parseAny(QuantType &type, QuantTypeLocations &where) {
    type.family = QuantType::Family::Any;
    if (!expect(Kind::Less, "'<'") ||
        !parseStorage(type.storage, where, /*isQuantileTable=*/false))
      return false;
    if (consumeIf(Kind::Colon) &&
        !parseExpressed(type.expressed, where, "an expressed type"))
      return false;
    return expect(Kind::Greater, "'>' to close the type");
  }

  bool parseCalibrated(QuantType &type, QuantTypeLocations &where) {
    type.family = QuantType::Family::Calibrated;
    return expect(Kind::Less, "'<'") &&
           parseExpressed(type.expressed, where, "an expressed type") &&
           expect(Kind::Less, "'<' before the calibrated range") &&
           parseFloat(type.calibratedMin, where.calibratedMin,
                      "calibrated minimum") &&
           expect(Kind::Colon, "':' in the calibrated range") &&
           parseFloat(type.calibratedMax, where.calibratedMax,
                      "calibrated maximum") &&
           expect(Kind::Greater, "'>' to close the calibrated range") &&
           expect(Kind::Greater, "'>' to close the type");
  }

  /// A float type, or an integer type as MLIR spells it (`iN`, `siN`,
  /// `uiN`: the quant dialect's `uN` is not a builtin type).
  bool parseTableType(QuantType &type, QuantTypeLocations &where) {
    Token token = lexer_.next();
    where.expressed = token.range;
    if (token.is(Kind::Identifier)) {
      if (std::optional<FloatType> floatType = floatTypeFromName(token.text)) {
        type.expressed = floatType;
        return true;
      }
      if (std::optional<IntegerName> integer =
              integerName(token.text, /*quantShorthand=*/false)) {
        if (!integer->width)
          return fail(token.range, "table type " + quoted(token.text) +
                                       " has an unsupported width; integer "
                                       "table types are 1 to 32 bits wide");
        type.integerTable = IntegerType{*integer->width, integer->isSigned,
                                        integer->signednessPrefix};
        return true;
      }
    }
    return fail(token.range,
                "quantile type must be a float or integer type, found " +
                    describe(token));
  }

  bool parseQuantile(QuantType &type, QuantTypeLocations &where) {
    type.family = QuantType::Family::Quantile;
    if (!expect(Kind::Less, "'<'") ||
        !parseStorage(type.storage, where, /*isQuantileTable=*/true))
      return false;
    if (lexer_.peek().is(Kind::Less))
      return fail(lexer_.peek().range,
                  "quantile storage bounds go after the table: "
                  "!quant.quantile<u4:f16, {...}, <min:max>>");
    Token open;
    if (!expect(Kind::Colon, "':' before the table's type") ||
        !parseTableType(type, where) ||
        !expect(Kind::Comma, "',' before the table") ||
        !expect(Kind::LBrace, "'{' to open the table", &open))
      return false;
    where.table = open.range;
    do {
      double entry = 0;
      SourceRange entryRange;
      if (!parseFloat(entry, entryRange, "table entry"))
        return false;
      // An integer has no signed zero: -0.0 is held (and prints) as 0.
      if (type.integerTable && entry == 0)
        entry = 0;
      type.table.push_back(entry);
      where.tableEntries.push_back(entryRange);
    } while (consumeIf(Kind::Comma));
    if (!expect(Kind::RBrace, "',' or '}' in the table"))
      return false;
    if (consumeIf(Kind::Comma)) {
      if (!expect(Kind::Less, "'<' to open the storage bounds") ||
          !parseInteger(type.storage.min, where.storageMin,
                        "storage minimum") ||
          !expect(Kind::Colon, "':' between storage bounds") ||
          !parseInteger(type.storage.max, where.storageMax,
                        "storage maximum") ||
          !expect(Kind::Greater, "'>' to close storage bounds"))
        return false;
    }
    return expect(Kind::Greater, "'>' to close the type");
  }

  std::string_view text_;
  Lexer lexer_;
  unsigned storageDepth_ = 0; ///< Quant types being parsed as storage.
  std::optional<LocatedError> error_;
};

} // namespace

std::variant<ParsedType, LocatedError> parseTypeText(std::string_view text) {
  return Parser(text).run();
}

} // namespace qjit::detail
