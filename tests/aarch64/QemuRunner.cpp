//===- QemuRunner.cpp - Runs AArch64 kernels under qemu-user --------------===//
#include "QemuRunner.h"

#include "qjit/internal/Reference.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>

namespace qjit::testing {

namespace {

namespace fs = std::filesystem;

constexpr const char *kQemu = QJIT_QEMU_AARCH64;
constexpr const char *kRunner = QJIT_AARCH64_RUNNER;

class JobWriter {
public:
  explicit JobWriter(const fs::path &path) : out_(path, std::ios::binary) {}
  void bytes(const void *data, size_t size) {
    out_.write(static_cast<const char *>(data),
               static_cast<std::streamsize>(size));
  }
  void u64(uint64_t value) { bytes(&value, 8); }
  void u32(uint32_t value) { bytes(&value, 4); }
  template <typename T> void array(const std::vector<T> &values) {
    u64(values.size()); // Elements: bytes for uint8_t.
    bytes(values.data(), values.size() * sizeof(T));
  }
  bool ok() {
    out_.flush();
    return out_.good();
  }

private:
  std::ofstream out_;
};

void writeKernel(JobWriter &job, const QemuKernel &kernel) {
  const KernelSpec &spec = *kernel.spec;
  job.u64(kernel.code->bytes.size());
  job.u64(kernel.code->entryOffset);
  job.bytes(kernel.code->bytes.data(), kernel.code->bytes.size());
  const KernelTester::CallParams &params = *kernel.params;
  bool dynamic = spec.params.dynamic != DynamicScheme::None;
  job.u32(dynamic ? 2 : spec.takesParams() ? 1 : 0); // The runner's ABIs.
  job.array(params.extents);
  job.array(params.scales);
  if (params.nullZeroPoints)
    job.u64(0);
  else
    job.array(params.zeroPoints);
  if (dynamic) {
    job.u64(kernel.dynamicParameters);
    job.u64(kernel.dynamicValueBytes);
    job.u64(kernel.dynamicScaleBytes);
  }
  job.u32(static_cast<uint32_t>(kernel.calls->size()));
  for (const KernelTester::PreparedCall &call : *kernel.calls) {
    job.u64(call.n);
    job.u64(call.srcOffset);
    job.array(call.src);
    job.u64(call.dstOffset);
    job.u64(call.expected.size() - 2 * KernelTester::kGuardBytes);
  }
}

std::string quoted(const fs::path &path) { return "'" + path.string() + "'"; }

std::string readText(const fs::path &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A fresh directory under the system temporary directory, removed with
/// this object.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    std::string pattern =
        (fs::temp_directory_path() / "qjit-aarch64-XXXXXX").string();
    if (char *made = mkdtemp(pattern.data()))
      path_ = made;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    if (!path_.empty())
      fs::remove_all(path_, ignored);
  }
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

} // namespace

std::optional<std::string> missingAArch64Tools() {
  if (std::string(kRunner).empty())
    return "aarch64-linux-gnu-gcc was not found at configure time, so the "
           "AArch64 runner was not built (scripts/setup.sh installs "
           "gcc-aarch64-linux-gnu and libc6-dev-arm64-cross)";
  if (std::string(kQemu).empty() || !fs::exists(kQemu))
    return "qemu-aarch64-static was not found (scripts/setup.sh installs "
           "qemu-user-static)";
  if (!fs::exists(kRunner))
    return std::string("the AArch64 runner ") + kRunner + " is missing";
  return std::nullopt;
}

::testing::AssertionResult
runUnderQemu(const std::vector<QemuKernel> &kernels,
             std::vector<std::vector<QemuCallResult>> &results) {
  TemporaryDirectory directory;
  if (directory.path().empty())
    return ::testing::AssertionFailure() << "cannot create a temporary "
                                            "directory";
  fs::path jobPath = directory.path() / "job.bin";
  fs::path outPath = directory.path() / "out.bin";
  fs::path errPath = directory.path() / "stderr.txt";
  {
    JobWriter job(jobPath);
    job.bytes("QJITJOB2", 8);
    job.u32(static_cast<uint32_t>(kernels.size()));
    for (const QemuKernel &kernel : kernels)
      writeKernel(job, kernel);
    if (!job.ok())
      return ::testing::AssertionFailure() << "cannot write " << jobPath;
  }
  std::string command = quoted(kQemu) + " " + quoted(kRunner) + " " +
                        quoted(jobPath) + " " + quoted(outPath) + " 2> " +
                        quoted(errPath);
  // Exit status 4: a kernel wrote into a guard; the comparison below
  // reports where. Anything else non-zero is a crash or a usage error.
  int status = std::system(command.c_str());
  if (!(WIFEXITED(status) &&
        (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4)))
    return ::testing::AssertionFailure()
           << "the AArch64 runner failed (status " << status
           << "): " << readText(errPath);

  std::ifstream out(outPath, std::ios::binary);
  results.assign(kernels.size(), {});
  for (size_t k = 0; k < kernels.size(); ++k)
    for (const KernelTester::PreparedCall &call : *kernels[k].calls) {
      QemuCallResult result;
      char unchanged = 0;
      out.read(&unchanged, 1);
      result.inputUnchanged = unchanged == 1;
      auto read = [&](std::vector<uint8_t> &guarded, size_t bytes) {
        guarded.resize(bytes + 2 * KernelTester::kGuardBytes);
        out.read(reinterpret_cast<char *>(guarded.data()),
                 static_cast<std::streamsize>(guarded.size()));
      };
      read(result.output, call.expected.size() - 2 * KernelTester::kGuardBytes);
      if (kernels[k].spec->params.dynamic != DynamicScheme::None) {
        read(result.scales,
             kernels[k].dynamicParameters * kernels[k].dynamicScaleBytes);
        read(result.zeroPoints, kernels[k].dynamicParameters * 8);
      }
      if (!out)
        return ::testing::AssertionFailure()
               << "the runner's output " << outPath << " is truncated";
      results[k].push_back(std::move(result));
    }
  return ::testing::AssertionSuccess();
}

} // namespace qjit::testing
