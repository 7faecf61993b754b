//===- ModelScriptTest.cpp - bench/model.py end to end --------------------===//
//
// The modelled speed report on one case and two CPUs: every cell gets a
// figure from the main loop llvm-mca models, and a failing backend turns
// into "—" with its reason instead of stopping the script. Skipped where
// Debian's python3 or llvm-mca-22 is missing.
//
//===----------------------------------------------------------------------===//
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>

namespace qjit::tool {
namespace {

using ::qjit::testing::ScratchDir;

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : ".";
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Runs bench/model.py with `qjit` as its qjit binary; its exit code.
int runModel(const std::string &qjit, const ScratchDir &dir) {
  std::string command = "/usr/bin/python3 " + env("QJIT_SOURCE_DIR") +
                        "/bench/model.py --qjit " + qjit +
                        " --cases '^i8_per_tensor$' --cpus "
                        "sapphirerapids,znver1 --out-md " +
                        dir.file("model.md") + " --json " +
                        dir.file("model.json") + " 2>" + dir.file("log");
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ModelScript : public ::testing::Test {
protected:
  void SetUp() override {
    if (std::system("test -x /usr/bin/python3 && llvm-mca-22 --version "
                    ">/dev/null 2>&1 && llvm-mc-22 --version >/dev/null "
                    "2>&1") != 0)
      GTEST_SKIP() << "needs /usr/bin/python3, llvm-mc-22 and llvm-mca-22";
  }
};

TEST_F(ModelScript, ModelsEveryBackendOnEveryCpu) {
  ScratchDir dir;
  ASSERT_EQ(runModel(env("QJIT_BINARY_DIR") + "/tools/qjit", dir), 0)
      << readText(dir.file("log"));
  std::string table = readText(dir.file("model.md"));
  EXPECT_NE(table.find("Modelled, not measured"), std::string::npos);
  for (const char *row : {"| i8_per_tensor | qcast | llvm | 0.",
                          "| i8_per_tensor | qcast | asmjit | 0.",
                          "| i8_per_tensor | dcast | llvm | 0.",
                          "| i8_per_tensor | dcast | asmjit | 0."})
    EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;
  // 64 i8 codes per AVX-512 iteration (four 16-byte narrowing stores).
  EXPECT_NE(table.find("| i8_per_tensor | qcast | asmjit | avx512 | "),
            std::string::npos)
      << table;
  EXPECT_NE(table.find(" | 64 | "), std::string::npos) << table;
  EXPECT_EQ(table.find("## Not modelled"), std::string::npos) << table;
  EXPECT_NE(readText(dir.file("model.json")).find("\"cycles_per_element\""),
            std::string::npos);
}

TEST_F(ModelScript, AFailingBackendIsADashWithItsReason) {
  ScratchDir dir;
  std::string fake = dir.file("qjit");
  std::ofstream(fake) << "#!/bin/sh\n"
                         "for a in \"$@\"; do [ \"$a\" = --backend=asmjit ] "
                         "&& { echo 'qjit asm: error: no asmjit' >&2; "
                         "exit 1; }; done\n"
                         "exec " +
                             env("QJIT_BINARY_DIR") + "/tools/qjit \"$@\"\n";
  ASSERT_EQ(std::system(("chmod +x " + fake).c_str()), 0);
  ASSERT_EQ(runModel(fake, dir), 0) << readText(dir.file("log"));
  std::string table = readText(dir.file("model.md"));
  EXPECT_NE(table.find("| i8_per_tensor | qcast | asmjit | — | — |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| i8_per_tensor | qcast | llvm | 0."),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("## Not modelled"), std::string::npos) << table;
  EXPECT_NE(table.find("no asmjit"), std::string::npos) << table;
}

} // namespace
} // namespace qjit::tool
