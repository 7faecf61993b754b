//===- qjit/QuantType.h - Parsed quant type descriptors ---------*- C++ -*-===//
//
// A plain-value model of MLIR's `quant` types as the frontend parses them:
// `!quant.any`, `!quant.uniform` (per-tensor, per-axis, sub-channel),
// `!quant.calibrated` and `!quant.quantile`, optionally inside a `tensor<>`.
// Values are immutable once built by the parser; equality is exact
// (floating-point fields compare bit for bit).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_QUANTTYPE_H
#define QJIT_QUANTTYPE_H

#include "qjit/Export.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qjit {

/// Every builtin float type MLIR 22 can spell.
enum class FloatType : uint8_t {
  F4E2M1FN,
  F6E2M3FN,
  F6E3M2FN,
  F8E3M4,
  F8E4M3,
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E4M3B11FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F8E8M0FNU,
  BF16,
  F16,
  TF32,
  F32,
  F64,
  F80,
  F128,
};

/// MLIR's spelling ("f8E4M3FN", "bf16", ...).
QJIT_API std::string_view floatTypeName(FloatType type);
/// The inverse of floatTypeName; nullopt for anything else.
QJIT_API std::optional<FloatType> floatTypeFromName(std::string_view name);
/// Total bit width of the format (f80 → 80, tf32 → 19).
QJIT_API unsigned floatTypeBits(FloatType type);
/// The largest finite value of a float storage format (448, 57344, 6),
/// which upstream MLIR also uses as the default storage bounds; 0 for
/// formats that are not storage formats.
QJIT_API int64_t floatStorageLargest(FloatType type);

struct QuantType;

/// A builtin integer type as MLIR spells it, `iN` / `siN` / `uiN` with
/// N = 1..32: a quantile table's type when it is not a float type. `iN`
/// (signless) holds [-2^(N-1), 2^(N-1)-1], as quant storage reads it.
struct QJIT_API IntegerType {
  unsigned width = 8;
  bool isSigned = true;
  /// Written `siN` / `uiN` rather than `iN`; printed as written, as
  /// upstream MLIR prints a builtin type. Presentation only, as for
  /// StorageType: not part of equality.
  bool signednessPrefix = false;

  /// The values of the type: [-2^(N-1), 2^(N-1)-1] or [0, 2^N-1].
  int64_t minValue() const;
  int64_t maxValue() const;

  friend bool operator==(const IntegerType &a, const IntegerType &b) {
    return a.width == b.width && a.isSigned == b.isSigned;
  }
};

/// MLIR's spelling, as written: `i8`, `si8`, `ui8` (unsigned is `uiN`
/// whatever signednessPrefix says: `iN` is signed).
QJIT_API std::string integerTypeName(const IntegerType &type);

/// The stored side of a quantized type.
struct QJIT_API StorageType {
  enum class Kind : uint8_t {
    Integer,  ///< iN / siN / uiN / uN, N = 1..32
    Float,    ///< f8E4M3FN, f8E5M2, f4E2M1FN
    Quantile, ///< a !quant.quantile type used as the storage of a uniform
  };
  Kind kind = Kind::Integer;
  /// Integer: width and signedness as written (si8 and i8 are the same).
  /// Float: the format's width; isSigned is true.
  /// Quantile: the quantile type's integer storage.
  unsigned width = 8;
  bool isSigned = true;
  /// Integer: written `siN` / `uiN` rather than `iN` / `uN`. A quantile
  /// type prints its storage as written, as upstream MLIR prints a builtin
  /// type (`ui4`, `si8`, `i8`); uniform and any types print `i` / `u`, as
  /// MLIR's quant printer does. Presentation only: not part of equality.
  bool signednessPrefix = false;
  FloatType floatType = FloatType::F8E4M3FN; ///< Kind::Float only.
  /// Kind::Quantile only: the quantile type (family == Quantile).
  std::shared_ptr<const QuantType> quantile;
  /// Effective bounds: explicit `<min:max>` or the default range.
  int64_t min = -128;
  int64_t max = 127;

  /// The range without explicit bounds: [-2^(w-1), 2^(w-1)-1] or [0, 2^w-1]
  /// for integers, ±(largest finite, truncated) for float formats.
  int64_t defaultMin() const;
  int64_t defaultMax() const;
  bool hasDefaultBounds() const {
    return min == defaultMin() && max == defaultMax();
  }

  friend bool operator==(const StorageType &a, const StorageType &b);
};

/// One entry of a sub-channel block-size list: `axis:size`.
struct QJIT_API BlockSize {
  int32_t axis = 0;
  int64_t size = 1;
  friend bool operator==(const BlockSize &, const BlockSize &) = default;
};

/// One quant type (the element type, without any tensor around it).
struct QJIT_API QuantType {
  enum class Family : uint8_t { Any, Uniform, Calibrated, Quantile };
  enum class Granularity : uint8_t { PerTensor, PerAxis, SubChannel };

  Family family = Family::Uniform;
  /// Any, Uniform, Quantile: the storage type.
  StorageType storage;
  /// Uniform, Calibrated: the expressed type. Any: optional.
  /// Quantile: the type of the table entries when it is a float type.
  std::optional<FloatType> expressed;
  /// Quantile only: the type of the table entries when it is an integer
  /// type (`!quant.quantile<ui4:i8, {...}>`); a quantile type has exactly
  /// one of `expressed` and `integerTable`.
  std::optional<IntegerType> integerTable;

  // --- Uniform -------------------------------------------------------------
  Granularity granularity = Granularity::PerTensor;
  /// Scales as IEEE doubles, as MLIR stores them. PerTensor: 1 entry;
  /// PerAxis: one per channel; SubChannel: row-major over scaleShape, each
  /// rounded to the expressed type (MLIR holds them in a dense attribute of
  /// that type).
  std::vector<double> scales;
  /// Zero points, parallel to scales (0 when omitted).
  std::vector<int64_t> zeroPoints;
  /// PerAxis: the quantized dimension.
  int32_t axis = 0;
  /// SubChannel: the block sizes in the order written.
  std::vector<BlockSize> blockSizes;
  /// SubChannel: shape of the nested scale list (its rank = tensor rank).
  std::vector<int64_t> scaleShape;
  /// A qjit extension (docs/types.md): `?` in place of the scales, which
  /// are then given with the zero points at call time (runtime
  /// parameters); scales, zeroPoints and scaleShape are empty, and the
  /// tensor shape says how many there are.
  bool parametersAtCallTime = false;

  // --- Calibrated ----------------------------------------------------------
  double calibratedMin = 0.0;
  double calibratedMax = 0.0;

  // --- Quantile ------------------------------------------------------------
  /// The lookup table, one entry per storage value from storage.min to
  /// storage.max; entry k is the value of stored integer storage.min + k.
  /// Entries are doubles as written, within the range of `expressed`; with
  /// an integerTable they are that type's values, held exactly as doubles
  /// (zero as +0.0).
  std::vector<double> table;

  friend bool operator==(const QuantType &a, const QuantType &b);
};

/// A `tensor<...>` around a quant type. Dynamic dims are kDynamic.
struct QJIT_API TensorShape {
  static constexpr int64_t kDynamic = -1;
  bool ranked = true;
  std::vector<int64_t> dims;
  friend bool operator==(const TensorShape &, const TensorShape &) = default;
};

/// What the frontend parses: a quant type, optionally inside a tensor.
struct QJIT_API TypeDescriptor {
  std::optional<TensorShape> tensor;
  QuantType element;
  friend bool operator==(const TypeDescriptor &a,
                         const TypeDescriptor &b) = default;
};

} // namespace qjit

#endif // QJIT_QUANTTYPE_H
