//===- CallParameters.cpp - Runtime scales and zero points ----------------===//
#include "CallParameters.h"

#include "Errors.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace py = pybind11;

namespace qjit::python {

namespace {

void checkCount(const ArrayView &view, const char *what, size_t count) {
  if (view.elements() != count)
    invalidArgument(std::string(what) + " has " +
                    std::to_string(view.elements()) + " elements (shape " +
                    shapeText(view.shape()) + "); the kernel's layout takes " +
                    std::to_string(count));
}

/// The array dtype of the spec's runtime scales (E8M0: uint8 codes).
Dtype scaleDtype(const KernelSpec &spec) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    return sideDtype(spec, BufferSide::Expressed);
  case ScaleFormat::F32:
    return Dtype::F32;
  case ScaleFormat::F16:
    return Dtype::F16;
  case ScaleFormat::BF16:
    return Dtype::BF16;
  case ScaleFormat::E8M0:
    return Dtype::U8;
  }
  return Dtype::Other;
}

/// Why scale `index` cannot be a scale, or "". Every E8M0 code is taken as
/// the MX data holds it (0xFF, NaN, marks a NaN block).
std::string scaleProblem(const KernelSpec &spec, const ArrayView &view,
                         size_t index) {
  if (spec.params.scaleFormat == ScaleFormat::E8M0)
    return "";
  double value =
      decodeScale(spec.params.scaleFormat, spec.expressed, view.data(), index);
  if (!std::isfinite(value))
    return "is not finite";
  if (value == 0)
    return "is zero";
  return value < 0 ? "is negative" : "";
}

int64_t integerAt(const ArrayView &view, size_t index) {
  const uint8_t *at = static_cast<const uint8_t *>(view.data()) +
                      index * dtypeBytes(view.dtype());
  auto load = [at]<typename T>(T) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
  };
  switch (view.dtype()) {
  case Dtype::I8:
    return load(int8_t{});
  case Dtype::U8:
    return load(uint8_t{});
  case Dtype::I16:
    return load(int16_t{});
  case Dtype::U16:
    return load(uint16_t{});
  case Dtype::I32:
    return load(int32_t{});
  case Dtype::U32:
    return load(uint32_t{});
  case Dtype::U64: {
    uint64_t value = load(uint64_t{});
    if (value > uint64_t(std::numeric_limits<int64_t>::max()))
      invalidArgument("zero point " + std::to_string(index) + " (" +
                      std::to_string(value) + ") does not fit in int64");
    return static_cast<int64_t>(value);
  }
  default:
    return load(int64_t{});
  }
}

} // namespace

CallParameters CallParameters::read(const KernelSpec &spec, py::handle scales,
                                    py::handle zeroPoints) {
  CallParameters parameters;
  if (!spec.params.runtime) {
    if (!scales.is_none() || !zeroPoints.is_none())
      invalidArgument("this kernel's scales and zero points are baked from "
                      "the type; compile with runtime_params=True (or write "
                      "'?' for the scales) to pass scales= and zero_points=");
    return parameters;
  }
  if (scales.is_none())
    invalidArgument("this kernel reads its scales at call time: pass "
                    "scales= (and optionally zero_points=)");
  size_t count = static_cast<size_t>(spec.layout.parameterCount());
  ArrayView scaleView = ArrayView::of(scales, ArrayView::Use::Read, "scales=");
  Dtype wanted = scaleDtype(spec);
  std::string format =
      spec.params.scaleFormat == ScaleFormat::Expressed
          ? std::string(valueTypeName(spec.expressed))
          : std::string(scaleFormatName(spec.params.scaleFormat));
  if (!dtypeFits(scaleView.dtype(), wanted))
    invalidArgument("scales= is " + std::string(dtypeName(scaleView.dtype())) +
                    "; the kernel's scales are " + format +
                    (wanted == Dtype::BF16
                         ? " (uint16 bits or bfloat16)"
                         : " (" + std::string(dtypeName(wanted)) + ")"));
  checkCount(scaleView, "scales=", count);
  for (size_t i = 0; i < count; ++i)
    if (std::string problem = scaleProblem(spec, scaleView, i);
        !problem.empty())
      invalidArgument("scale " + std::to_string(i) + " " + problem +
                      ": scales must be finite and positive");
  parameters.scales_ = std::move(scaleView);

  if (zeroPoints.is_none())
    return parameters;
  ArrayView zeroView =
      ArrayView::of(zeroPoints, ArrayView::Use::Read, "zero_points=");
  if (!isIntegerDtype(zeroView.dtype()))
    invalidArgument("zero_points= is " +
                    std::string(dtypeName(zeroView.dtype())) +
                    "; zero points are integers");
  checkCount(zeroView, "zero_points=", count);
  if (zeroView.dtype() != Dtype::I64)
    for (size_t i = 0; i < count; ++i)
      parameters.zeroPoints_.push_back(integerAt(zeroView, i));
  parameters.zeroPointArray_ = std::move(zeroView);
  return parameters;
}

KernelParams CallParameters::params(const std::vector<int64_t> &extents) const {
  KernelParams params;
  params.extents = extents.empty() ? nullptr : extents.data();
  if (scales_)
    params.scales = scales_->data();
  if (!zeroPoints_.empty())
    params.zeroPoints = zeroPoints_.data();
  else if (zeroPointArray_)
    params.zeroPoints = static_cast<const int64_t *>(zeroPointArray_->data());
  return params;
}

ParameterCounts
CallParameters::lengths(const std::vector<int64_t> &extents) const {
  ParameterCounts counts;
  counts.extents = extents.size();
  counts.scales = scales_ ? scales_->elements() : 0;
  counts.zeroPoints = zeroPointArray_ ? zeroPointArray_->elements() : 0;
  return counts;
}

} // namespace qjit::python
