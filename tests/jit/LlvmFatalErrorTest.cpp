//===- LlvmFatalErrorTest.cpp - LLVM failures come back as errors ---------===//
//
// Must-fail cases, kept apart from the differential suites: work that makes
// LLVM report a fatal error (report_fatal_error, an instruction it cannot
// select) returns a BackendFailure from runGuarded, and the process goes on
// compiling kernels afterwards.
//
//===----------------------------------------------------------------------===//
#include "llvm/FatalErrorGuard.h"
#include "llvm/LlvmTarget.h"
#include "llvm/TargetObject.h"

#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/ErrorHandling.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

// LeakSanitizer's switch, where the build has it: a failure skips the
// frames LLVM was in, and what they owned is lost by design.
extern "C" void __lsan_disable() __attribute__((weak));
extern "C" void __lsan_enable() __attribute__((weak));

namespace qjit {
namespace {

using ::testing::HasSubstr;

/// Leak checking off for the deliberate failures of one test.
class FailuresLeak {
public:
  FailuresLeak() {
    if (__lsan_disable)
      __lsan_disable();
  }
  ~FailuresLeak() {
    if (__lsan_enable)
      __lsan_enable();
  }
};

/// Any kernel compiles and runs on this host after a failure.
void expectKernelsStillCompile() {
  Expected<std::unique_ptr<Backend>> backend =
      createLlvmBackend(IsaLevel::Scalar);
  ASSERT_TRUE(backend) << backend.status().message();
  Expected<TypeDescriptor> type =
      parseTypeOrError("!quant.uniform<i8:f32, 0.5:3>");
  ASSERT_TRUE(type);
  Expected<KernelSpec> spec = lowerToKernelSpec(*type, KernelOp::QCast, {});
  ASSERT_TRUE(spec);
  Expected<CompiledCode> code = (*backend)->compile(*spec);
  ASSERT_TRUE(code) << code.status().message();
  float in[2] = {1.0f, -2.0f};
  int8_t out[2] = {};
  reinterpret_cast<KernelFn>(const_cast<void *>(code->entry))(in, out, 2);
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], -1);
}

TEST(LlvmFatalError, ReportedFatalErrorIsAStatus) {
  FailuresLeak leaks;
  for (int round = 0; round < 2; ++round) { // Recovery works more than once.
    Status status = llvmjit::runGuarded("the test's work", [] {
      llvm::report_fatal_error("deliberate failure");
      return Status::ok();
    });
    ASSERT_FALSE(status);
    EXPECT_EQ(status.code(), ErrorCode::BackendFailure);
    EXPECT_THAT(status.message(), HasSubstr("the test's work"));
    EXPECT_THAT(status.message(), HasSubstr("deliberate failure"));
  }
  expectKernelsStillCompile();
}

TEST(LlvmFatalError, WorkThatSucceedsReturnsItsStatus) {
  EXPECT_TRUE(llvmjit::runGuarded("ok", [] { return Status::ok(); }));
  Status refused = llvmjit::runGuarded("refused", [] {
    return Status::error(ErrorCode::Unsupported, "not this one");
  });
  EXPECT_EQ(refused.code(), ErrorCode::Unsupported);
  EXPECT_EQ(refused.message(), "not this one");
}

TEST(LlvmFatalError, InstructionSelectionFailureIsAStatus) {
  // An AVX-512 intrinsic compiled for AVX2: LLVM's type legalizer cannot
  // split its result.
  FailuresLeak leaks;
  llvmjit::initializeLlvmTargets();
  llvmjit::TargetConfig config = llvmjit::hostTargetConfig(IsaLevel::Avx2);
  Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      llvmjit::createTargetMachine(config);
  ASSERT_TRUE(machine) << machine.status().message();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("unselectable", *context);
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple());
  llvm::IRBuilder<> b(*context);
  auto *floats = llvm::FixedVectorType::get(b.getFloatTy(), 16);
  auto *ints = llvm::FixedVectorType::get(b.getInt32Ty(), 16);
  auto *function = llvm::Function::Create(
      llvm::FunctionType::get(floats, {floats, ints}, false),
      llvm::Function::ExternalLinkage, "unselectable", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", function));
  b.CreateRet(b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_permvar_sf_512, {},
                                {function->getArg(0), function->getArg(1)}));
  Status status = llvmjit::runGuarded("selecting", [&] {
    return llvmjit::emitObject(*module, **machine).takeStatus();
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.code(), ErrorCode::BackendFailure);
  EXPECT_THAT(status.message(), HasSubstr("selecting failed inside LLVM: "));
  llvmjit::quarantine(module);
  llvmjit::quarantine(context);
  llvmjit::quarantine(*machine);
  expectKernelsStillCompile();
}

} // namespace
} // namespace qjit
