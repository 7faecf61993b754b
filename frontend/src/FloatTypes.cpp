//===- FloatTypes.cpp - MLIR's builtin float type names -------------------===//
#include "qjit/QuantType.h"

#include <array>

namespace qjit {

namespace {
struct FloatTypeInfo {
  FloatType type;
  std::string_view name;
  unsigned bits;
};

// Indexed by FloatType.
constexpr std::array<FloatTypeInfo, 18> kFloatTypes = {{
    {FloatType::F4E2M1FN, "f4E2M1FN", 4},
    {FloatType::F6E2M3FN, "f6E2M3FN", 6},
    {FloatType::F6E3M2FN, "f6E3M2FN", 6},
    {FloatType::F8E3M4, "f8E3M4", 8},
    {FloatType::F8E4M3, "f8E4M3", 8},
    {FloatType::F8E4M3FN, "f8E4M3FN", 8},
    {FloatType::F8E4M3FNUZ, "f8E4M3FNUZ", 8},
    {FloatType::F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8},
    {FloatType::F8E5M2, "f8E5M2", 8},
    {FloatType::F8E5M2FNUZ, "f8E5M2FNUZ", 8},
    {FloatType::F8E8M0FNU, "f8E8M0FNU", 8},
    {FloatType::BF16, "bf16", 16},
    {FloatType::F16, "f16", 16},
    {FloatType::TF32, "tf32", 19},
    {FloatType::F32, "f32", 32},
    {FloatType::F64, "f64", 64},
    {FloatType::F80, "f80", 80},
    {FloatType::F128, "f128", 128},
}};
} // namespace

std::string_view floatTypeName(FloatType type) {
  return kFloatTypes[static_cast<size_t>(type)].name;
}

std::optional<FloatType> floatTypeFromName(std::string_view name) {
  for (const FloatTypeInfo &info : kFloatTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

unsigned floatTypeBits(FloatType type) {
  return kFloatTypes[static_cast<size_t>(type)].bits;
}

} // namespace qjit
