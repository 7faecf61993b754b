//===- NpyFiles.h - .npy arrays and tool results in tests -------*- C++ -*-===//
#ifndef QJIT_TESTS_TOOLS_NPYFILES_H
#define QJIT_TESTS_TOOLS_NPYFILES_H

#include "Npy.h"
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace qjit::testing {

template <typename T>
void writeArray(const std::string &path, tool::NpyDtype dtype,
                std::vector<int64_t> shape, const std::vector<T> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  ASSERT_TRUE(tool::writeNpy(path, dtype, shape, bytes));
}

inline tool::NpyArray readArray(const std::string &path) {
  Expected<tool::NpyArray> array = tool::readNpy(path);
  EXPECT_TRUE(array) << path << ": " << array.status().message();
  return array ? *array : tool::NpyArray{};
}

template <typename T> std::vector<T> valuesOf(const tool::NpyArray &array) {
  std::vector<T> values(array.data.size() / sizeof(T));
  std::memcpy(values.data(), array.data.data(), values.size() * sizeof(T));
  return values;
}

/// Exit 0, nothing on stderr.
inline void expectSuccess(const ToolResult &result) {
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
}

/// Exit `code` with `needle` on stderr.
inline void expectFailure(const ToolResult &result, int code,
                          const std::string &needle) {
  EXPECT_EQ(result.exitCode, code) << result.err;
  EXPECT_NE(result.err.find(needle), std::string::npos)
      << "expected '" << needle << "' in: " << result.err;
}

inline void writeText(const std::string &path, const std::string &text) {
  writeBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

inline std::string readTextOf(const std::string &path) {
  std::vector<uint8_t> bytes = readBytes(path);
  return std::string(bytes.begin(), bytes.end());
}

} // namespace qjit::testing

#endif
