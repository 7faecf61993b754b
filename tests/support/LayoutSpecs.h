//===- LayoutSpecs.h - LayoutSpec builders for tests ------------*- C++ -*-===//
#ifndef QJIT_TESTS_LAYOUTSPECS_H
#define QJIT_TESTS_LAYOUTSPECS_H

#include "qjit/KernelSpec.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace qjit::testing {

/// Per-axis parameters: `channels` of them, each repeated over `inner`
/// consecutive elements.
inline LayoutSpec perAxis(int64_t channels, int64_t inner) {
  LayoutSpec layout;
  layout.kind = LayoutSpec::Kind::PerAxis;
  layout.channels = channels;
  layout.inner = inner;
  return layout;
}

/// Sub-channel (blocked) parameters over `dims`.
inline LayoutSpec blocked(std::vector<LayoutSpec::Dim> dims) {
  LayoutSpec layout;
  layout.kind = LayoutSpec::Kind::Blocked;
  layout.dims = std::move(dims);
  return layout;
}

} // namespace qjit::testing

#endif // QJIT_TESTS_LAYOUTSPECS_H
