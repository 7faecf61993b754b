//===- LayoutPeriodTest.cpp - Periods, strides and group runs -------------===//
#include "plan/LayoutPeriod.h"

#include "LayoutSpecs.h"

#include <gtest/gtest.h>

namespace qjit::testing {
namespace {

constexpr int64_t kDyn = LayoutSpec::kDynamic;

/// consecutiveGroupRun's L must be exactly what periodParameterIndices
/// walks: element i of the period in group i / L.
void expectRunsOfConsecutiveGroups(const LayoutSpec &layout, int64_t run) {
  std::vector<plan::PeriodDim> dims = plan::periodDims(layout);
  ASSERT_EQ(plan::consecutiveGroupRun(dims), run);
  std::vector<int64_t> groups = plan::periodParameterIndices(dims);
  for (size_t i = 0; i < groups.size(); ++i)
    ASSERT_EQ(groups[i], static_cast<int64_t>(i) / run) << "element " << i;
}

TEST(LayoutPeriodTest, RowsOfBlocksAndAxesAreRunsOfConsecutiveGroups) {
  expectRunsOfConsecutiveGroups(perAxis(3, 1), 1);
  expectRunsOfConsecutiveGroups(perAxis(40, 16), 16);
  expectRunsOfConsecutiveGroups(blocked({{5, 1}, {160, 32}}), 32);
  expectRunsOfConsecutiveGroups(blocked({{2, 1}, {3, 1}, {64, 64}}), 64);
}

TEST(LayoutPeriodTest, BlocksAcrossRowsOrOfDynamicExtentAreNot) {
  auto run = [](const LayoutSpec &layout) {
    return plan::consecutiveGroupRun(plan::periodDims(layout));
  };
  EXPECT_EQ(run(LayoutSpec{}), 0);
  EXPECT_EQ(run(blocked({{4, 2}, {6, 3}})), 0);
  EXPECT_EQ(run(blocked({{3, 1}, {kDyn, kDyn}})), 0);
  EXPECT_EQ(run(perAxis(2, kDyn)), 0);
}

/// A dynamic qcast takes per-axis rows of a dynamic extent as runs too
/// (their length comes with the call); per tensor is one group.
TEST(LayoutPeriodTest, DynamicGroupRunsAddRowsOfADynamicExtent) {
  EXPECT_EQ(plan::dynamicGroupRun(perAxis(2, kDyn)), LayoutSpec::kDynamic);
  EXPECT_EQ(plan::dynamicGroupRun(perAxis(40, 16)), 16);
  EXPECT_EQ(plan::dynamicGroupRun(blocked({{5, 1}, {160, 32}})), 32);
  EXPECT_EQ(plan::dynamicGroupRun(LayoutSpec{}), 0);
  EXPECT_EQ(plan::dynamicGroupRun(blocked({{4, 2}, {6, 3}})), 0);
}

} // namespace
} // namespace qjit::testing
