//===- RuntimeParameters.cpp - Scales and zero points from .npy -----------===//
#include "RuntimeParameters.h"

#include "KernelOptions.h"
#include "Npz.h"

#include "qjit/KernelCall.h"

#include <cmath>
#include <cstring>
#include <utility>

namespace qjit::tool {

namespace {

Status mismatch(const std::string &path, const std::string &message) {
  return Status::error(ErrorCode::InvalidArgument, path + ": " + message);
}

/// The scale tensor of a sub-channel layout: shape / block sizes (1 along
/// a dim without a block size); empty otherwise.
std::vector<int64_t> scaleTensorShape(const KernelSpec &spec,
                                      const QuantType &element) {
  if (element.granularity != QuantType::Granularity::SubChannel)
    return {};
  std::vector<int64_t> grid(spec.shape.size(), 1);
  for (const BlockSize &block : element.blockSizes)
    if (block.axis >= 0 && static_cast<size_t>(block.axis) < grid.size() &&
        spec.shape[block.axis] > 0)
      grid[block.axis] = spec.shape[block.axis] / block.size;
  return grid;
}

Status checkShape(const std::string &path, const NpyArray &array,
                  const KernelSpec &spec, const QuantType &element) {
  int64_t count = spec.layout.parameterCount();
  std::vector<int64_t> grid = scaleTensorShape(spec, element);
  bool flat = (array.shape.size() == 1 && array.shape[0] == count) ||
              array.shape == parameterShape(spec);
  // The grid holds `count` parameters too; checked, as values are read up
  // to `count`.
  bool asTensor = !grid.empty() && array.shape == grid &&
                  npyElementCount(grid) == static_cast<uint64_t>(count);
  // A per-tensor layout takes one value, 0-d or (1,).
  bool scalar = count == 1 && array.shape.empty();
  if (flat || asTensor || scalar)
    return Status::ok();
  std::string expected = "(" + std::to_string(count) + ",)";
  if (!grid.empty())
    expected += " or the scale tensor's shape " + formatShape(grid);
  return mismatch(path, "the kernel's layout takes " + std::to_string(count) +
                            " parameters, so the array must be " + expected +
                            ", not " +
                            (array.shape.empty() ? std::string("0-d")
                                                 : formatShape(array.shape)));
}

/// Why scale `index` of the array cannot be a scale, or "".
std::string scaleProblem(const KernelSpec &spec, const NpyArray &array,
                         size_t index) {
  if (spec.params.scaleFormat == ScaleFormat::E8M0)
    return "";
  double value = decodeScale(spec.params.scaleFormat, spec.expressed,
                             array.data.data(), index);
  if (!std::isfinite(value))
    return "is not finite";
  if (value == 0)
    return "is zero";
  return value < 0 ? "is negative" : "";
}

/// The scales array of `files`, with the name messages give it.
std::pair<std::string, Expected<NpyArray>>
loadScales(const ParameterFiles &files) {
  if (files.archive)
    return {files.scales + ": scales", readNpzArray(files.scales, "scales")};
  return {files.scales, readNpy(files.scales)};
}

bool isIntegerDtype(NpyDtype dtype) {
  return dtype != NpyDtype::F4 && dtype != NpyDtype::F2 &&
         dtype != NpyDtype::F8;
}

int64_t integerAt(const NpyArray &array, size_t index) {
  const uint8_t *at = array.data.data() + index * npyItemBytes(array.dtype);
  auto load = [at]<typename T>(T) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return static_cast<int64_t>(value);
  };
  switch (array.dtype) {
  case NpyDtype::I1:
    return load(int8_t{});
  case NpyDtype::U1:
    return load(uint8_t{});
  case NpyDtype::I2:
    return load(int16_t{});
  case NpyDtype::U2:
    return load(uint16_t{});
  case NpyDtype::I4:
    return load(int32_t{});
  case NpyDtype::U4:
    return load(uint32_t{});
  default:
    return load(int64_t{});
  }
}

} // namespace

NpyDtype scaleDtype(const KernelSpec &spec, NpyDtype expressedDtype) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    return expressedDtype;
  case ScaleFormat::F32:
    return NpyDtype::F4;
  case ScaleFormat::F16:
    return NpyDtype::F2;
  case ScaleFormat::BF16:
    return NpyDtype::U2;
  case ScaleFormat::E8M0:
    return NpyDtype::U1;
  }
  return expressedDtype;
}

Expected<ScaleFormat> inferScaleFormat(const ParameterFiles &files,
                                       const KernelSpec &spec,
                                       NpyDtype expressedDtype) {
  auto [name, scales] = loadScales(files);
  if (!scales)
    return scales.status();
  if (scales->dtype == expressedDtype)
    return ScaleFormat::Expressed;
  switch (scales->dtype) {
  case NpyDtype::F4:
    return ScaleFormat::F32;
  case NpyDtype::F2:
    return ScaleFormat::F16;
  case NpyDtype::U1:
    return ScaleFormat::E8M0;
  case NpyDtype::U2:
    return mismatch(name, "'<u2' scales are bf16 bits only with "
                          "--scale-format=bf16");
  default:
    return mismatch(name, "scales are " +
                              std::string(valueTypeName(spec.expressed)) +
                              " ('" + std::string(npyDescr(expressedDtype)) +
                              "'), the type's expressed type, not '" +
                              std::string(npyDescr(scales->dtype)) +
                              "', nor in a scale format ('<f4' f32, '<f2' "
                              "f16, '|u1' e8m0, '<u2' bf16 bits with "
                              "--scale-format=bf16)");
  }
}

Expected<RuntimeParameters> RuntimeParameters::read(const ParameterFiles &files,
                                                    const KernelSpec &spec,
                                                    const QuantType &element,
                                                    NpyDtype scaleDtype) {
  RuntimeParameters parameters;
  // Messages name the file, and the array of an archive.
  auto load =
      [&](const std::string &path,
          const char *member) -> std::pair<std::string, Expected<NpyArray>> {
    if (files.archive)
      return {path + ": " + member, readNpzArray(path, member)};
    return {path, readNpy(path)};
  };
  auto [scalesName, scales] = loadScales(files);
  if (!scales)
    return scales.status();
  bool expressed = spec.params.scaleFormat == ScaleFormat::Expressed;
  if (scales->dtype != scaleDtype)
    return mismatch(
        scalesName,
        "scales are " +
            std::string(expressed ? valueTypeName(spec.expressed)
                                  : scaleFormatName(spec.params.scaleFormat)) +
            " ('" + std::string(npyDescr(scaleDtype)) + "'), " +
            (expressed ? "the type's expressed type" : "the scale format") +
            ", not '" + std::string(npyDescr(scales->dtype)) + "'");
  if (Status s = checkShape(scalesName, *scales, spec, element); !s)
    return s;
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  for (size_t i = 0; i < count; ++i)
    if (std::string problem = scaleProblem(spec, *scales, i); !problem.empty())
      return mismatch(scalesName, "scale " + std::to_string(i) + " " + problem +
                                      ": scales must be finite and positive");
  parameters.scales_ = std::move(scales->data);

  if (!files.zeroPoints && !files.archive)
    return parameters;
  auto [zeroPointsName, zeroPoints] =
      load(files.archive ? files.scales : *files.zeroPoints, "zero_points");
  if (!zeroPoints)
    return zeroPoints.status();
  if (!isIntegerDtype(zeroPoints->dtype))
    return mismatch(zeroPointsName,
                    "zero points are integers, not '" +
                        std::string(npyDescr(zeroPoints->dtype)) + "'");
  if (Status s = checkShape(zeroPointsName, *zeroPoints, spec, element); !s)
    return s;
  for (size_t i = 0; i < count; ++i)
    parameters.zeroPoints_.push_back(integerAt(*zeroPoints, i));
  return parameters;
}

KernelParams RuntimeParameters::params() const {
  KernelParams params;
  params.scales = scales_.data();
  params.zeroPoints = zeroPoints_.empty() ? nullptr : zeroPoints_.data();
  return params;
}

} // namespace qjit::tool
