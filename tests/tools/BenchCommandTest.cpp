//===- BenchCommandTest.cpp - `qjit bench` listings for scripts -----------===//
//
// --list-types is how bench/model.py learns the harness's cases: one line
// per case of --list, NAME baked|runtime TYPE, the type complete and valid.
//
//===----------------------------------------------------------------------===//
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace qjit::tool {
namespace {

using ::qjit::testing::runQjit;
using ::qjit::testing::ToolResult;

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    result.push_back(line);
  return result;
}

TEST(BenchCommand, ListTypesPrintsEveryCaseWithItsFullType) {
  ToolResult list = runQjit({"bench", "--list"});
  ToolResult types = runQjit({"bench", "--list-types", "--n=65536"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  ASSERT_EQ(types.exitCode, 0) << types.err;
  std::vector<std::string> names = lines(list.out), rows = lines(types.out);
  ASSERT_EQ(rows.size(), names.size()) << types.out;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::istringstream row(rows[i]);
    std::string name, parameters, type;
    row >> name >> parameters;
    std::getline(row >> std::ws, type);
    EXPECT_EQ(names[i].substr(0, names[i].find(' ')), name);
    EXPECT_TRUE(parameters == "baked" || parameters == "runtime") << rows[i];
    ToolResult parsed = runQjit({"parse", type});
    EXPECT_EQ(parsed.exitCode, 0) << name << ": " << parsed.err;
  }
  EXPECT_NE(types.out.find("i8_block32 runtime tensor<64x1024x"),
            std::string::npos)
      << types.out;
  EXPECT_EQ(runQjit({"bench", "--list-types", "--n=100"}).exitCode, 2);
}

} // namespace
} // namespace qjit::tool
