//===- CorpusTest.cpp - The frontend's table-driven corpus ----------------===//
//
// One test per case of tests/frontend/corpus/*.txt (the format is documented
// at the top of every file; regenerate.py there re-derives the expectations
// from mlir-opt 22). A test is named after its file and line, e.g.
// `Corpus/CorpusCaseTest.Case/per_tensor_L42`.
//
// Valid cases check the canonical print byte for byte, that it parses back
// to an equal type and prints identically (a fixed point), and the
// normalized print. Invalid cases check the diagnostic's line:column, that
// its message names the offending value, and the rendered form
// (`error: <input>:L:C: message`, the source line, a caret at column C).
//
//===----------------------------------------------------------------------===//
#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace qjit {
namespace {

struct CorpusCase {
  std::string file; ///< File name, without directory.
  unsigned line = 0;
  std::string input;
  std::optional<std::string> print;
  std::optional<std::string> normalized;
  std::optional<std::string> errorAt;
  std::optional<std::string> errorNames;

  std::string where() const { return file + ":" + std::to_string(line); }
};

void PrintTo(const CorpusCase &c, std::ostream *os) {
  *os << c.where(); // short: it also ends up in the ctest test name
}

/// Where the corpus lives, or nullopt when QJIT_SOURCE_DIR is missing.
std::optional<std::filesystem::path> corpusDirectory() {
  const char *sourceDir = std::getenv("QJIT_SOURCE_DIR");
  if (!sourceDir || !*sourceDir)
    return std::nullopt;
  return std::filesystem::path(sourceDir) / "tests" / "frontend" / "corpus";
}

/// Everything read from the corpus, plus the format problems found on the
/// way (reported by the CorpusTest.Loads test).
struct Corpus {
  std::vector<CorpusCase> cases;
  std::vector<std::string> problems;
};

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

void finishCase(std::optional<CorpusCase> &pending, Corpus &corpus) {
  if (!pending)
    return;
  const CorpusCase &c = *pending;
  if (c.print.has_value() == c.errorAt.has_value())
    corpus.problems.push_back(c.where() +
                              ": needs exactly one of print: or error-at:");
  else
    corpus.cases.push_back(c);
  pending.reset();
}

void readCorpusFile(const std::filesystem::path &path, Corpus &corpus) {
  std::ifstream stream(path);
  if (!stream) {
    corpus.problems.push_back("cannot read " + path.string());
    return;
  }
  const std::string file = path.filename().string();
  std::optional<CorpusCase> pending;
  bool inputSeen = false;
  std::string raw;
  for (unsigned lineNo = 1; std::getline(stream, raw); ++lineNo) {
    if (startsWith(raw, "#"))
      continue;
    if (raw.find_first_not_of(" \t\r") == std::string::npos) {
      finishCase(pending, corpus);
      continue;
    }
    if (!pending) {
      pending.emplace();
      pending->file = file;
      pending->line = lineNo;
      inputSeen = false;
    }
    CorpusCase &c = *pending;
    if (raw == "|" || startsWith(raw, "| ")) {
      if (inputSeen)
        c.input += '\n';
      c.input += raw.substr(std::min<size_t>(raw.size(), 2));
      inputSeen = true;
      continue;
    }
    const size_t colon = raw.find(':');
    if (colon == std::string::npos) {
      corpus.problems.push_back(file + ":" + std::to_string(lineNo) +
                                ": expected 'key: value'");
      continue;
    }
    const std::string key = raw.substr(0, colon);
    std::string value = raw.substr(colon + 1);
    if (startsWith(value, " "))
      value.erase(0, 1);
    if (key == "input") {
      c.input = value;
      inputSeen = true;
    } else if (key == "print") {
      c.print = value;
    } else if (key == "normalized") {
      c.normalized = value;
    } else if (key == "error-at") {
      c.errorAt = value;
    } else if (key == "error-names") {
      c.errorNames = value;
    } else if (key != "qjit") {
      corpus.problems.push_back(file + ":" + std::to_string(lineNo) +
                                ": unknown key '" + key + "'");
    }
  }
  finishCase(pending, corpus);
}

Corpus readCorpus() {
  Corpus corpus;
  std::optional<std::filesystem::path> dir = corpusDirectory();
  if (!dir) {
    corpus.problems.push_back(
        "QJIT_SOURCE_DIR is not set: run the tests through ctest, or set it "
        "to the qjit source directory");
    return corpus;
  }
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(*dir, error))
    if (entry.path().extension() == ".txt")
      files.push_back(entry.path());
  if (error || files.empty()) {
    corpus.problems.push_back("no corpus files in " + dir->string());
    return corpus;
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path &file : files)
    readCorpusFile(file, corpus);
  return corpus;
}

/// Read once: the test list and the tests themselves share it.
const Corpus &corpus() {
  static const Corpus instance = readCorpus();
  return instance;
}

/// A 1-based position in the input.
struct Location {
  unsigned line = 1;
  unsigned column = 1;
  friend bool operator==(const Location &, const Location &) = default;
};

std::ostream &operator<<(std::ostream &os, const Location &location) {
  return os << location.line << ":" << location.column;
}

Location locationOf(std::string_view text, size_t offset) {
  Location location;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++location.line;
      location.column = 1;
    } else {
      ++location.column;
    }
  }
  return location;
}

/// The position `error-at:` designates ("TOKEN", "TOKEN @N" or "<end>").
std::optional<Location> expectedLocation(const CorpusCase &c) {
  const std::string &spec = *c.errorAt;
  if (spec == "<end>")
    return locationOf(c.input, c.input.size());
  std::string token = spec;
  unsigned occurrence = 1;
  const size_t at = spec.rfind(" @");
  if (at != std::string::npos && at + 2 < spec.size() &&
      std::all_of(spec.begin() + at + 2, spec.end(),
                  [](char ch) { return ch >= '0' && ch <= '9'; })) {
    token = spec.substr(0, at);
    occurrence = std::stoul(spec.substr(at + 2));
  }
  size_t offset = std::string::npos;
  for (unsigned n = 0; n < occurrence; ++n) {
    offset = c.input.find(token, offset == std::string::npos ? 0 : offset + 1);
    if (offset == std::string::npos)
      return std::nullopt;
  }
  return locationOf(c.input, offset);
}

/// The alternatives of `error-names:` ("a | b": either will do).
std::vector<std::string> namedValues(const std::string &spec) {
  std::vector<std::string> values;
  size_t begin = 0;
  while (true) {
    const size_t bar = spec.find(" | ", begin);
    values.push_back(spec.substr(begin, bar - begin));
    if (bar == std::string::npos)
      return values;
    begin = bar + 3;
  }
}

std::string lineOf(std::string_view text, unsigned line) {
  size_t begin = 0;
  for (unsigned n = 1; n < line; ++n)
    begin = text.find('\n', begin) + 1;
  return std::string(text.substr(begin, text.find('\n', begin) - begin));
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

class CorpusCaseTest : public ::testing::TestWithParam<CorpusCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusCaseTest);

void checkValid(const CorpusCase &c) {
  const ParseResult result = parseType(c.input);
  ASSERT_TRUE(result.type.has_value())
      << "rejected: "
      << (result.diagnostic ? result.diagnostic->render() : "(no diagnostic)");
  EXPECT_FALSE(result.diagnostic.has_value()) << "diagnostic on a valid type";
  const std::string printed = printType(*result.type);
  EXPECT_EQ(printed, *c.print) << "canonical print";

  const ParseResult reparsed = parseType(printed);
  ASSERT_TRUE(reparsed.type.has_value())
      << "the print does not parse: "
      << (reparsed.diagnostic ? reparsed.diagnostic->render() : "");
  EXPECT_TRUE(*reparsed.type == *result.type) << "parse(print(t)) != t";
  EXPECT_EQ(printType(*reparsed.type), printed) << "print is no fixed point";

  EXPECT_EQ(printType(normalizeType(*result.type)),
            c.normalized.value_or(*c.print))
      << "normalized print";
}

void checkInvalid(const CorpusCase &c) {
  const std::optional<Location> expected = expectedLocation(c);
  ASSERT_TRUE(expected.has_value())
      << "corpus error: error-at '" << *c.errorAt << "' is not in the input";

  const ParseResult result = parseType(c.input);
  ASSERT_FALSE(result.type.has_value())
      << "accepted as " << printType(*result.type);
  ASSERT_TRUE(result.diagnostic.has_value()) << "rejected without diagnostic";
  const Diagnostic &diagnostic = *result.diagnostic;
  EXPECT_EQ((Location{diagnostic.line, diagnostic.column}), *expected)
      << "location of: " << diagnostic.message;

  if (c.errorNames) {
    const std::vector<std::string> values = namedValues(*c.errorNames);
    EXPECT_TRUE(std::any_of(values.begin(), values.end(),
                            [&](const std::string &value) {
                              return diagnostic.message.find(value) !=
                                     std::string::npos;
                            }))
        << "the message does not name '" << *c.errorNames
        << "': " << diagnostic.message;
  }

  // The rendered form: header, the source line, a caret under column C.
  const std::string sourceLine = lineOf(c.input, expected->line);
  EXPECT_EQ(diagnostic.sourceLine, sourceLine);
  const std::string rendered = diagnostic.render();
  const std::vector<std::string> lines = splitLines(rendered);
  ASSERT_GE(lines.size(), 3u) << rendered;
  const std::string header =
      "error: <input>:" + std::to_string(expected->line) + ":" +
      std::to_string(expected->column) + ": ";
  EXPECT_EQ(lines[0], header + diagnostic.message) << rendered;
  EXPECT_EQ(lines[1], sourceLine) << rendered;
  const std::string &caretLine = lines[2];
  EXPECT_EQ(caretLine.find('^'), expected->column - 1) << rendered;
  EXPECT_EQ(caretLine.find_first_not_of(" \t"), expected->column - 1)
      << rendered;

  const Expected<TypeDescriptor> asExpected = parseTypeOrError(c.input);
  ASSERT_FALSE(asExpected.hasValue());
  EXPECT_EQ(asExpected.status().code(), ErrorCode::InvalidType);
  EXPECT_EQ(asExpected.status().message(), rendered);
}

TEST_P(CorpusCaseTest, Case) {
  const CorpusCase &c = GetParam();
  SCOPED_TRACE(c.where() + ": " + c.input);
  if (c.print)
    checkValid(c);
  else
    checkInvalid(c);
}

std::string caseName(const ::testing::TestParamInfo<CorpusCase> &info) {
  std::string stem = info.param.file.substr(0, info.param.file.rfind('.'));
  for (char &ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return stem + "_L" + std::to_string(info.param.line);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCaseTest,
                         ::testing::ValuesIn(corpus().cases), caseName);

// The corpus is found, well-formed, and as large as the issue asks.
TEST(CorpusTest, Loads) {
  for (const std::string &problem : corpus().problems)
    ADD_FAILURE() << problem;
  EXPECT_GE(corpus().cases.size(), 300u);
}

} // namespace
} // namespace qjit
