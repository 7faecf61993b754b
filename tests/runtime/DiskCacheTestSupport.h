//===- DiskCacheTestSupport.h - Shared by the disk cache tests --*- C++ -*-===//
#ifndef QJIT_TESTS_RUNTIME_DISKCACHETESTSUPPORT_H
#define QJIT_TESTS_RUNTIME_DISKCACHETESTSUPPORT_H

#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

namespace qjit::testing {

/// A fresh directory, removed with everything in it at the end.
class ScratchDirectory {
public:
  ScratchDirectory() {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "qjit-disk-XXXXXX")
            .string();
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

/// The i-th of many distinct llvm kernels (a per-tensor qcast with its own
/// scale).
inline std::string distinctType(size_t i) {
  return "!quant.uniform<i8:f32, " + std::to_string(0.5 + double(i) / 64) +
         ":" + std::to_string(int(i % 200) - 100) + ">";
}

/// A runtime on the llvm backend with its disk cache in `directory`.
inline std::unique_ptr<Runtime>
diskRuntime(const std::filesystem::path &directory,
            uint64_t maxBytes = DiskCacheOptions().maxBytes) {
  RuntimeOptions options;
  options.backend = BackendKind::Llvm;
  options.diskCache.directory = directory.string();
  options.diskCache.maxBytes = maxBytes;
  Expected<std::unique_ptr<Runtime>> runtime = Runtime::create(options);
  EXPECT_TRUE(runtime.hasValue()) << runtime.status().message();
  return runtime ? std::move(*runtime) : nullptr;
}

/// What `kernel` writes for a fixed pseudo-random input of 64 elements.
inline std::vector<uint8_t> outputOf(const Kernel &kernel) {
  constexpr size_t kElements = 64;
  const KernelSpec &spec = kernel.spec();
  std::vector<uint8_t> in(
      *bufferBytes(spec, kernelInputSide(spec.op), kElements)),
      out(*bufferBytes(spec, kernelOutputSide(spec.op), kElements));
  std::mt19937_64 random(42);
  std::uniform_real_distribution<float> values(-300.0f, 300.0f);
  for (size_t i = 0; i + sizeof(float) <= in.size(); i += sizeof(float)) {
    float value = values(random);
    std::memcpy(in.data() + i, &value, sizeof value);
  }
  EXPECT_TRUE(
      kernel.run(in.data(), in.size(), out.data(), out.size(), kElements)
          .isOk());
  return out;
}

/// The entry files in `directory` (temporaries excluded).
inline std::vector<std::filesystem::path>
entryFiles(const std::filesystem::path &directory) {
  std::vector<std::filesystem::path> files;
  for (const auto &item : std::filesystem::directory_iterator(directory))
    if (item.path().extension() == ".qjk")
      files.push_back(item.path());
  return files;
}

} // namespace qjit::testing

#endif
