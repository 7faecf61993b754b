//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
#include "Npy.h"
#include "FileIO.h"
#include "ToolTestSupport.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <array>
#include <string>
#include <thread>

namespace qjit::tool {
namespace {

using ::qjit::testing::ScratchDir;

/// A version 1.0 file with `dict` as its header (padded to 64) and `data`.
std::vector<uint8_t> npyFile(const std::string &dict,
                             const std::vector<uint8_t> &data,
                             uint8_t major = 1) {
  std::string header = dict;
  size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    file.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

std::string parseError(const std::vector<uint8_t> &file) {
  Expected<NpyArray> array = parseNpy(file);
  EXPECT_FALSE(array);
  return array ? "" : array.status().message();
}

TEST(Npy, WritesNumpysHeaderLayout) {
  std::array<int64_t, 2> shape = {2, 3};
  std::vector<uint8_t> header = npyHeader(NpyDtype::F4, shape);
  std::string text(header.begin(), header.end());
  ASSERT_EQ(header.size() % 64, 0u);
  EXPECT_EQ(text.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(header[8] | header[9] << 8, header.size() - 10);
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(text.substr(10, dict.size()), dict);
  EXPECT_EQ(text.find_first_not_of(' ', 10 + dict.size()), text.size() - 1);
  EXPECT_EQ(text.back(), '\n');
}

TEST(Npy, ShapeTuplesFollowPythonRepr) {
  auto dictOf = [](std::vector<int64_t> shape) {
    std::vector<uint8_t> header = npyHeader(NpyDtype::U1, shape);
    return std::string(header.begin() + 10, header.end());
  };
  EXPECT_NE(dictOf({}).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(dictOf({5}).find("'shape': (5,), }"), std::string::npos);
  EXPECT_NE(dictOf({0, 4}).find("'shape': (0, 4), }"), std::string::npos);
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  ScratchDir dir;
  const NpyDtype dtypes[] = {
      NpyDtype::F4, NpyDtype::F2, NpyDtype::F8, NpyDtype::I1, NpyDtype::U1,
      NpyDtype::I2, NpyDtype::U2, NpyDtype::I4, NpyDtype::U4, NpyDtype::I8};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {7}, {2, 3}, {2, 1, 3}, {3, 0, 2}};
  for (NpyDtype dtype : dtypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      std::vector<uint8_t> data(npyElementCount(shape) * npyItemBytes(dtype));
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<uint8_t>(i * 37 + 1);
      std::string path = dir.file("a.npy");
      ASSERT_TRUE(writeNpy(path, dtype, shape, data));
      Expected<NpyArray> back = readNpy(path);
      ASSERT_TRUE(back) << back.status().message();
      EXPECT_EQ(back->dtype, dtype) << npyDescr(dtype);
      EXPECT_EQ(back->shape, shape);
      EXPECT_EQ(back->data, data);
    }
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.npy"});
}

TEST(Npy, HugeHeadersUseVersion2) {
  std::vector<int64_t> shape(30000, 1); // "1, " x 30000 > 65535 bytes.
  std::vector<uint8_t> header = npyHeader(NpyDtype::I4, shape);
  ASSERT_EQ(header[6], 2);
  EXPECT_EQ(header.size() % 64, 0u);
  std::vector<uint8_t> file = header;
  file.insert(file.end(), {1, 0, 0, 0});
  Expected<NpyArray> array = parseNpy(file);
  ASSERT_TRUE(array) << array.status().message();
  EXPECT_EQ(array->shape, shape);
}

TEST(Npy, ReadsWhatOtherWritersProduce) {
  // Double quotes, other key order, no trailing comma, Python 2 longs,
  // a bare '=' byte order, version 2.0 and 3.0 preambles.
  std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6};
  for (uint8_t major : {1, 2, 3}) {
    Expected<NpyArray> array = parseNpy(npyFile(
        "{\"shape\": (3L,2L), \"fortran_order\": False, \"descr\": \"=i2\"}",
        std::vector<uint8_t>(12), major));
    ASSERT_TRUE(array) << array.status().message();
    EXPECT_EQ(array->dtype, NpyDtype::I2);
    EXPECT_EQ(array->shape, (std::vector<int64_t>{3, 2}));
  }
  Expected<NpyArray> bytes = parseNpy(npyFile(
      "{'descr': '<u1', 'fortran_order': False, 'shape': (6,), }", data));
  ASSERT_TRUE(bytes) << bytes.status().message();
  EXPECT_EQ(bytes->dtype, NpyDtype::U1);
}

TEST(Npy, RejectsUnsupportedContentClearly) {
  auto withDescr = [](const std::string &descr) {
    return npyFile("{'descr': " + descr +
                       ", 'fortran_order': False, 'shape': (1,), }",
                   std::vector<uint8_t>(8));
  };
  EXPECT_NE(parseError(withDescr("'>f4'")).find("big-endian"),
            std::string::npos);
  EXPECT_NE(parseError(withDescr("'|O'")).find("object"), std::string::npos);
  EXPECT_NE(parseError(withDescr("[('a', '<f4')]")).find("structured"),
            std::string::npos);
  std::string complex = parseError(withDescr("'<c8'"));
  EXPECT_NE(complex.find("unsupported dtype '<c8'"), std::string::npos);
  EXPECT_NE(complex.find("<f4"), std::string::npos) << "lists what works";
  EXPECT_NE(parseError(npyFile("{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (2, 2), }",
                               std::vector<uint8_t>(16)))
                .find("Fortran"),
            std::string::npos);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::vector<uint8_t> four(4);
  const std::string good = "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (1,), }";
  struct Case {
    std::vector<uint8_t> file;
    std::string expected;
  };
  std::vector<uint8_t> wrongMagic = npyFile(good, four);
  wrongMagic[1] = 'X';
  std::vector<uint8_t> version4 = npyFile(good, four);
  version4[6] = 4;
  std::vector<uint8_t> longHeader = npyFile(good, four);
  longHeader[9] = 0x7f;
  const Case cases[] = {
      {{}, "magic"},
      {wrongMagic, "magic"},
      {{0x93, 'N', 'U', 'M', 'P', 'Y', 1}, "preamble"},
      {version4, "version 4.0"},
      {longHeader, "runs past the end"},
      {npyFile("[1, 2]", four), "not a dict"},
      {npyFile("{'descr': '<f4', 'shape': (1,)}", four), "needs 'descr'"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
               "'extra': 1}",
               four),
       "unexpected key 'extra'"},
      {npyFile("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
               "'shape': (1,)}",
               four),
       "twice"},
      {npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", four),
       "True or False"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
               four),
       "non-negative"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", four),
       "tuple"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
               "(4294967296, 4294967296)}",
               four),
       "overflows"},
      {npyFile("{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", four),
       "expected ':' after 'descr'"},
      {npyFile(good, {1, 2, 3}), "needs 4 data bytes, but the file has 3"},
      {npyFile(good, {1, 2, 3, 4, 5}),
       "needs 4 data bytes, but the file has 5"},
  };
  for (const Case &c : cases) {
    std::string message = parseError(c.file);
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << message;
  }
}

TEST(Npy, ReadErrorsNameTheFile) {
  ScratchDir dir;
  Expected<NpyArray> missing = readNpy(dir.file("missing.npy"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), ErrorCode::IOError);
  EXPECT_NE(missing.status().message().find("missing.npy"), std::string::npos);

  qjit::testing::writeBytes(dir.file("bad.npy"), {'x'});
  Expected<NpyArray> bad = readNpy(dir.file("bad.npy"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("bad.npy"), std::string::npos);
}

TEST(AtomicWrite, LeavesNothingBehindOnFailure) {
  ScratchDir dir;
  std::vector<uint8_t> data = {1, 2, 3};
  std::array<std::span<const uint8_t>, 1> pieces = {data};
  EXPECT_FALSE(writeOutputFile(dir.file("no/such/dir/out"), pieces));
  // Renaming over a directory fails after the temporary was written.
  std::filesystem::create_directory(dir.path() / "taken");
  Status overDirectory = writeOutputFile(dir.file("taken"), pieces);
  EXPECT_FALSE(overDirectory);
  EXPECT_EQ(overDirectory.code(), ErrorCode::IOError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken"});
}

TEST(AtomicWrite, ReplacesWholeFiles) {
  ScratchDir dir;
  std::string path = dir.file("out.bin");
  qjit::testing::writeBytes(path, std::vector<uint8_t>(100, 7));
  std::vector<uint8_t> a = {1, 2}, b = {3};
  std::array<std::span<const uint8_t>, 2> pieces = {a, b};
  ASSERT_TRUE(writeOutputFile(path, pieces));
  EXPECT_EQ(qjit::testing::readBytes(path), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.bin"});
}

TEST(OutputFile, KeepsAnExistingFilesPermissions) {
  ScratchDir dir;
  std::string path = dir.file("private.bin");
  qjit::testing::writeBytes(path, {9});
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  std::vector<uint8_t> data = {1, 2, 3};
  std::array<std::span<const uint8_t>, 1> pieces = {data};
  ASSERT_TRUE(writeOutputFile(path, pieces));
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  EXPECT_EQ(qjit::testing::readBytes(path), data);
}

TEST(OutputFile, WritesThroughALinkAndKeepsIt) {
  ScratchDir dir;
  std::string target = dir.file("target.bin"), link = dir.file("link.bin");
  qjit::testing::writeBytes(target, {9, 9});
  std::filesystem::create_symlink(target, link);
  std::vector<uint8_t> data = {4, 5};
  std::array<std::span<const uint8_t>, 1> pieces = {data};
  ASSERT_TRUE(writeOutputFile(link, pieces));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(qjit::testing::readBytes(target), data);
  // A dangling link: its target is created.
  std::string dangling = dir.file("dangling.bin");
  std::filesystem::create_symlink(dir.file("new.bin"), dangling);
  ASSERT_TRUE(writeOutputFile(dangling, pieces));
  EXPECT_TRUE(std::filesystem::is_symlink(dangling));
  EXPECT_EQ(qjit::testing::readBytes(dir.file("new.bin")), data);
}

TEST(OutputFile, WritesDevicesAndFifosInPlace) {
  std::vector<uint8_t> data(1000, 0x5a);
  std::array<std::span<const uint8_t>, 1> pieces = {data};
  // /dev/null stays a character device (a rename would replace it).
  ASSERT_TRUE(writeOutputFile("/dev/null", pieces));
  struct stat info;
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  ScratchDir dir;
  std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<uint8_t> received;
  std::thread reader([&] { received = qjit::testing::readBytes(fifo); });
  ASSERT_TRUE(writeOutputFile(fifo, pieces));
  reader.join();
  EXPECT_EQ(received, data);
  ASSERT_EQ(::stat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  // A directory is refused, not replaced.
  Status directory = writeOutputFile(dir.path().string(), pieces);
  EXPECT_FALSE(directory);
  EXPECT_TRUE(std::filesystem::is_directory(dir.path()));
}

} // namespace
} // namespace qjit::tool
