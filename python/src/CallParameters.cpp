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

/// Why scale `index` cannot be a scale, or "".
std::string scaleProblem(const ArrayView &view, size_t index) {
  const uint8_t *at = static_cast<const uint8_t *>(view.data()) +
                      index * dtypeBytes(view.dtype());
  double value = 0;
  if (view.dtype() == Dtype::F32) {
    float v;
    std::memcpy(&v, at, sizeof v);
    value = v;
  } else if (view.dtype() == Dtype::F64) {
    std::memcpy(&value, at, sizeof value);
  } else { // f16, or bf16 bits: judged from the bit pattern.
    uint16_t bits;
    std::memcpy(&bits, at, sizeof bits);
    uint16_t exponent = view.dtype() == Dtype::F16 ? 0x7C00 : 0x7F80;
    if ((bits & exponent) == exponent)
      return "is not finite";
    value = (bits & 0x7FFF) == 0 ? 0.0 : (bits & 0x8000) ? -1.0 : 1.0;
  }
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
  Dtype wanted = sideDtype(spec, BufferSide::Expressed);
  if (!dtypeFits(scaleView.dtype(), wanted))
    invalidArgument("scales= is " + std::string(dtypeName(scaleView.dtype())) +
                    "; the kernel's scales are " +
                    std::string(valueTypeName(spec.expressed)) +
                    (wanted == Dtype::BF16
                         ? " (uint16 bits or bfloat16)"
                         : " (" + std::string(dtypeName(wanted)) + ")"));
  checkCount(scaleView, "scales=", count);
  for (size_t i = 0; i < count; ++i)
    if (std::string problem = scaleProblem(scaleView, i); !problem.empty())
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
