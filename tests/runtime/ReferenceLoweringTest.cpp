//===- ReferenceLoweringTest.cpp - Collapsed layouts keep their meaning ---===//
//
// Random per-axis and sub-channel types, some dims dynamic, lowered and run
// through the reference: every element must use the parameter the MLIR
// definition gives it (scale tensor index (i0 / b0, ..., ir / br)), however
// the lowering collapsed the layout.
//
//===----------------------------------------------------------------------===//
#include "ReferenceTestSupport.h"
#include "TestSeed.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

namespace qjit {
namespace {

struct RandomType {
  TypeDescriptor type;
  std::vector<int64_t> shape;  ///< The concrete shape of the call.
  std::vector<int64_t> blocks; ///< Per dim; the whole extent when unblocked.
};

RandomType randomType(std::mt19937_64 &rng) {
  auto below = [&](int64_t n) {
    return std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
  };
  RandomType result;
  size_t rank = static_cast<size_t>(1 + below(4));
  for (size_t d = 0; d < rank; ++d)
    result.shape.push_back(1 + below(5));
  result.blocks = result.shape;

  QuantType &element = result.type.element;
  element.storage.width = 32;
  element.storage.min = element.storage.defaultMin();
  element.storage.max = element.storage.defaultMax();
  element.expressed = FloatType::F32;
  std::vector<bool> fixed(rank, false); // Dims the type pins down.
  if (below(2) == 0) {
    element.granularity = QuantType::Granularity::PerAxis;
    element.axis = static_cast<int32_t>(below(static_cast<int64_t>(rank)));
    result.blocks[element.axis] = 1;
    fixed[element.axis] = true;
  } else {
    element.granularity = QuantType::Granularity::SubChannel;
    for (size_t d = 0; d < rank; ++d) {
      std::vector<int64_t> divisors;
      for (int64_t b = 1; b <= result.shape[d]; ++b)
        if (result.shape[d] % b == 0)
          divisors.push_back(b);
      if (below(3) == 0)
        continue;
      int64_t block = divisors[static_cast<size_t>(
          below(static_cast<int64_t>(divisors.size())))];
      element.blockSizes.push_back({static_cast<int32_t>(d), block});
      result.blocks[d] = block;
      fixed[d] = true;
    }
    for (size_t d = 0; d < rank; ++d)
      element.scaleShape.push_back(result.shape[d] / result.blocks[d]);
  }
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    count *= result.shape[d] / result.blocks[d];
  element.scales.assign(static_cast<size_t>(count), 1.0);
  for (int64_t k = 0; k < count; ++k)
    element.zeroPoints.push_back(k);

  TensorShape tensor;
  tensor.dims = result.shape;
  for (size_t d = 0; d < rank; ++d)
    if (!fixed[d] && below(3) == 0)
      tensor.dims[d] = TensorShape::kDynamic;
  result.type.tensor = tensor;
  return result;
}

/// The parameter of each element by MLIR's definition.
std::vector<int64_t> expectedIndices(const RandomType &t) {
  size_t rank = t.shape.size();
  int64_t total = 1;
  for (int64_t dim : t.shape)
    total *= dim;
  std::vector<int64_t> indices;
  for (int64_t flat = 0; flat < total; ++flat) {
    std::vector<int64_t> position(rank);
    int64_t rest = flat;
    for (size_t d = rank; d-- > 0;) {
      position[d] = rest % t.shape[d];
      rest /= t.shape[d];
    }
    int64_t index = 0;
    for (size_t d = 0; d < rank; ++d)
      index = index * (t.shape[d] / t.blocks[d]) + position[d] / t.blocks[d];
    indices.push_back(index);
  }
  return indices;
}

std::string describe(const RandomType &t, const KernelSpec &spec) {
  std::ostringstream out;
  out << "shape";
  for (int64_t dim : t.shape)
    out << ' ' << dim;
  out << ", blocks";
  for (int64_t block : t.blocks)
    out << ' ' << block;
  out << ", type dims";
  for (int64_t dim : t.type.tensor->dims)
    out << ' ' << dim;
  out << "\n" << spec.canonicalString();
  return out.str();
}

TEST(ReferenceLowering, CollapsedLayoutsMapElementsLikeTheType) {
  std::mt19937_64 rng(qjit::testing::testSeed());
  for (int round = 0; round < 300; ++round) {
    RandomType t = randomType(rng);
    Expected<KernelSpec> spec = lowerToKernelSpec(t.type, KernelOp::QCast);
    ASSERT_TRUE(spec.hasValue()) << spec.takeStatus().message();
    Expected<std::vector<int64_t>> extents =
        lowerCallExtents(t.type, {}, t.shape);
    ASSERT_TRUE(extents.hasValue()) << extents.takeStatus().message();
    KernelParams params;
    params.extents = extents->data();

    std::vector<int64_t> expected = expectedIndices(t);
    // Two tensors back to back: the layout repeats.
    std::vector<int64_t> twice = expected;
    twice.insert(twice.end(), expected.begin(), expected.end());
    std::vector<double> zeros(twice.size(), 0.0);
    EXPECT_EQ(testing::quantize(*spec, zeros,
                                spec->takesParams() ? &params : nullptr),
              twice)
        << describe(t, *spec);
  }
}

} // namespace
} // namespace qjit
