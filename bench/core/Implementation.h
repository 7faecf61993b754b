//===- Implementation.h - One row of a benchmark table ----------*- C++ -*-===//
//
// An Implementation computes a Workload's conversion: a qjit backend, the
// scalar reference, a plain C++ loop, a peer library, or a memory-bound
// copy. The harness and `qjit bench` drive every row through this interface.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_BENCH_IMPLEMENTATION_H
#define QJIT_BENCH_IMPLEMENTATION_H

#include "Workload.h"

#include "qjit/Error.h"
#include "qjit/KernelSpec.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qjit::bench {

class Implementation {
public:
  virtual ~Implementation() = default;

  /// Gets ready to run `w` (compiles, creates operators). ErrorCode::
  /// Unsupported means "this row does not apply": the row is skipped.
  virtual Status prepare(Workload &w) = 0;
  /// Converts w.input() into w.output(); only after a successful prepare.
  virtual void run(Workload &w) = 0;
  /// The qcast knobs whose reference result this row computes; nullopt
  /// when its output is not meant to be checked (memory-bound rows, the
  /// reference itself).
  virtual std::optional<QuantKnobs> semantics() const = 0;
  /// A short note for logs and labels ("avx2", "jit:uni"); may be empty.
  virtual std::string detail() const { return {}; }
};

/// A named way to make an Implementation.
struct ImplementationFactory {
  std::string name; ///< Row name in tables and benchmark names.
  std::function<std::unique_ptr<Implementation>()> create;
  /// Rows slower than ~1 element/ns only run up to this many elements.
  size_t maxElements = SIZE_MAX;
  /// Rows only registered from this many elements (2-thread rows: below
  /// kMinParallelElements qjit runs on one thread anyway).
  size_t minElements = 0;
  /// Timed by the wall clock: the benchmark's CPU time is the calling
  /// thread's only, which would credit a row with its other threads' work.
  bool multiThreaded = false;
};

/// Threads of the multi-threaded rows ("<row>_2t").
inline constexpr size_t kBenchThreads = 2;

/// The rows every build has: each qjit backend, the reference, the plain
/// loop, the memory-bound copies. Peers are added by the harness.
std::vector<ImplementationFactory> coreImplementations();

// The individual core rows (one file each).
std::vector<ImplementationFactory> qjitBackendImplementations();
/// Each qjit backend through Kernel::runParallel on a kBenchThreads-thread
/// DefaultThreadPool.
std::vector<ImplementationFactory> qjitThreadedImplementations();
/// The case as a dynamic qcast on each backend ("llvm_dynamic",
/// "asmjit_dynamic"; qcast rows only).
std::vector<ImplementationFactory> dynamicQcastImplementations();
ImplementationFactory referenceImplementation();
ImplementationFactory plainLoopImplementation();
std::vector<ImplementationFactory> memoryBoundImplementations();

} // namespace qjit::bench

#endif
