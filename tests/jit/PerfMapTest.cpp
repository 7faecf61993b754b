//===- PerfMapTest.cpp - QJIT_PERF_MAP names each pass of a kernel --------===//
//
// perf reads /tmp/perf-<pid>.map to name JIT'd code. asmjit's dynamic qcast
// holds its passes behind one entry; each gets a line of its own, so that a
// profile says which pass the time goes to. The setting is read once per
// process: ctest runs each test in a process of its own, where this test
// sets it before any kernel is finished.
//
//===----------------------------------------------------------------------===//
#include "qjit/Isa.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace qjit {
namespace {

struct MapLine {
  uintptr_t start = 0;
  size_t size = 0;
  std::string name;
};

std::string perfMapPath() {
  return "/tmp/perf-" + std::to_string(getpid()) + ".map";
}

std::vector<MapLine> perfMapLines(const std::string &containing) {
  std::ifstream in(perfMapPath());
  std::vector<MapLine> lines;
  for (std::string text; std::getline(in, text);) {
    std::istringstream fields(text);
    MapLine line;
    fields >> std::hex >> line.start >> line.size >> line.name;
    if (line.name.find(containing) != std::string::npos)
      lines.push_back(line);
  }
  return lines;
}

TEST(PerfMap, NamesTheEntryAndEachPassOfADynamicQcast) {
  if (hostIsaLevel() < IsaLevel::Avx2)
    GTEST_SKIP() << "asmjit's dynamic qcast needs AVX2";
  setenv("QJIT_PERF_MAP", "1", 1);
  LoweringOptions options;
  options.dynamicScheme = DynamicScheme::AbsMax;
  Expected<TypeDescriptor> type =
      parseTypeOrError("tensor<4x64x!quant.uniform<i8:f32:{0:1,1:32}, ?>>");
  ASSERT_TRUE(type) << type.status().message();
  Expected<KernelSpec> spec =
      lowerToKernelSpec(*type, KernelOp::QCast, options);
  ASSERT_TRUE(spec) << spec.status().message();
  Expected<std::unique_ptr<Backend>> backend =
      createBackend("asmjit", IsaLevel::Avx2);
  ASSERT_TRUE(backend) << backend.status().message();
  Expected<CompiledCode> code = (*backend)->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();

  std::vector<MapLine> lines = perfMapLines(spec->kernelName());
  if (lines.empty())
    GTEST_SKIP() << "QJIT_PERF_MAP was read before this test set it";
  const char *suffixes[] = {":asmjit", ":asmjit:range", ":asmjit:batches",
                            ":asmjit:choose-batches", ":asmjit:quantize"};
  ASSERT_EQ(lines.size(), std::size(suffixes));
  uintptr_t at = reinterpret_cast<uintptr_t>(code->entry);
  for (size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i].name);
    EXPECT_TRUE(lines[i].name.ends_with(suffixes[i]));
    // Back to back, over the whole code.
    EXPECT_EQ(lines[i].start, at);
    EXPECT_GT(lines[i].size, 0u);
    at += lines[i].size;
  }
  EXPECT_EQ(at, reinterpret_cast<uintptr_t>(code->entry) + code->codeBytes);
  std::remove(perfMapPath().c_str()); // This process's, which ends here.
}

} // namespace
} // namespace qjit
