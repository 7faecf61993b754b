//===- BenchCommandTest.cpp - `qjit bench` listings for scripts -----------===//
//
// --list-types is how bench/model.py learns the harness's cases: one line
// per case of --list, NAME baked|runtime[,semantics=PRESET] TYPE, the type
// complete and valid.
//
//===----------------------------------------------------------------------===//
#include "ToolTestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
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
    std::string kind = parameters.substr(0, parameters.find(','));
    EXPECT_TRUE(kind == "baked" || kind == "runtime") << rows[i];
    ToolResult parsed = runQjit({"parse", type});
    EXPECT_EQ(parsed.exitCode, 0) << name << ": " << parsed.err;
  }
  EXPECT_NE(types.out.find("i8_block32 runtime tensor<64x1024x"),
            std::string::npos)
      << types.out;
  // A preset's knobs follow as a qjit flag.
  EXPECT_NE(types.out.find("i8_per_tensor_xnnpack_knobs baked,semantics="
                           "xnnpack !quant.uniform<i8:f32, "),
            std::string::npos)
      << types.out;
  EXPECT_EQ(runQjit({"bench", "--list-types", "--n=100"}).exitCode, 2);
}

TEST(BenchCommand, JsonAndCsvCarryEveryRow) {
  auto bench = [](const char *format) {
    ToolResult result = runQjit({"bench", "!quant.uniform<i8:f32, 2.0:10>",
                                 "--op=qcast", "--n=4096", "--min-time=0.001",
                                 std::string("--format=") + format});
    EXPECT_EQ(result.exitCode, 0) << format << result.err;
    return result.out;
  };
  nlohmann::json document = nlohmann::json::parse(bench("json"));
  EXPECT_EQ(document["op"], "qcast");
  EXPECT_EQ(document["n"], 4096);
  ASSERT_TRUE(document["rows"].is_array());
  bool sawReference = false;
  for (const nlohmann::json &row : document["rows"]) {
    ASSERT_TRUE(row.contains("row")) << row;
    EXPECT_TRUE(row.contains("skipped") || row.contains("elements_per_ns"))
        << row;
    sawReference = sawReference || row["row"] == "reference";
  }
  EXPECT_TRUE(sawReference) << document;

  std::vector<std::string> csv = lines(bench("csv"));
  ASSERT_EQ(csv.size(), document["rows"].size() + 1);
  EXPECT_EQ(csv[0], "row,detail,elements_per_ns,gigabytes_per_second,"
                    "vs_reference,vs_best,check,skipped");
  EXPECT_EQ(runQjit({"bench", "!quant.uniform<i8:f32, 2.0:10>", "--op=qcast",
                     "--format=xml"})
                .exitCode,
            2);
}

TEST(BenchCommand, HelpOffersOnlyTheOpsItMeasures) {
  ToolResult help = runQjit({"bench", "--help"});
  EXPECT_EQ(help.exitCode, 0) << help.err;
  EXPECT_NE(help.out.find("--op=qcast|dcast "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("scast"), std::string::npos) << help.out;
}

TEST(BenchCommand, TypeAndCaseExcludeEachOther) {
  ToolResult result = runQjit({"bench", "!quant.uniform<i8:f32, 2.0:10>",
                               "--case=i8_per_tensor", "--op=qcast"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("TYPE and --case exclude each other"),
            std::string::npos)
      << result.err;
}

/// The JSON rows of `qjit bench` by name.
std::map<std::string, nlohmann::json> rowsByName(const std::string &json) {
  std::map<std::string, nlohmann::json> rows;
  const nlohmann::json document = nlohmann::json::parse(json);
  for (const nlohmann::json &row : document["rows"])
    rows[row["row"].get<std::string>()] = row;
  return rows;
}

TEST(BenchCommand, DynamicTimesTheSchemeAndTheRuntimeParameterKernels) {
  // `?` scales: the static rows read what the reference's mx qcast chose
  // from the input, at call time, and match the reference.
  ToolResult mx = runQjit(
      {"bench", "tensor<4x256x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>",
       "--op=qcast", "--dynamic=mx", "--scale-rounding=ceil",
       "--min-time=0.001", "--format=json"});
  ASSERT_EQ(mx.exitCode, 0) << mx.err;
  std::map<std::string, nlohmann::json> rows = rowsByName(mx.out);
  for (const char *name : {"llvm_dynamic", "asmjit_dynamic"}) {
    ASSERT_TRUE(rows.count(name)) << mx.out;
    EXPECT_TRUE(rows[name].contains("elements_per_ns")) << rows[name];
    EXPECT_NE(rows[name]["detail"].get<std::string>().find("mx"),
              std::string::npos)
        << rows[name];
  }
  EXPECT_EQ(rows["llvm"]["check"], "exact") << rows["llvm"];
  // A case's own parameters, and the scheme asked for.
  ToolResult minmax =
      runQjit({"bench", "--case=i8_block32", "--op=qcast", "--n=4096",
               "--dynamic=minmax", "--min-time=0.001", "--format=json"});
  ASSERT_EQ(minmax.exitCode, 0) << minmax.err;
  rows = rowsByName(minmax.out);
  EXPECT_NE(rows["llvm_dynamic"]["detail"].get<std::string>().find("minmax"),
            std::string::npos)
      << minmax.out;
  EXPECT_EQ(rows["llvm"]["check"], "exact") << rows["llvm"];
  // `?` scales without a scheme have nothing to run with.
  ToolResult unknown =
      runQjit({"bench", "!quant.uniform<i8:f32, ?>", "--op=qcast", "--n=4096"});
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("--dynamic"), std::string::npos) << unknown.err;
}

TEST(BenchCommand, AnElementCountTooLargeForMemoryIsAnError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve more address space than the limit";
#endif
  // 100 G floats: no allocation can succeed under a 2 GiB address space.
  qjit::testing::ToolRunOptions limits;
  limits.maxAddressSpaceBytes = uint64_t{2} << 30;
  ToolResult result = runQjit({"bench", "!quant.uniform<i8:f32, 2.0:10>",
                               "--op=qcast", "--n=99999999999"},
                              limits);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("cannot allocate"), std::string::npos)
      << result.err;
}

} // namespace
} // namespace qjit::tool
