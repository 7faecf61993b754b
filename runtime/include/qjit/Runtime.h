//===- qjit/Runtime.h - The public runtime API ------------------*- C++ -*-===//
//
// Compile a quant type (or a KernelSpec) for an op and get back a Kernel:
//
//   auto runtime = qjit::Runtime::create({});
//   if (!runtime) return runtime.status();
//   auto kernel = (*runtime)->compile("!quant.uniform<i8:f32, 2.0:10>",
//                                     qjit::KernelOp::QCast);
//   if (!kernel) return kernel.status();
//   Status s = (*kernel)->run(src, srcBytes, dst, dstBytes, n);
//
// Nothing here throws; every failure is a Status. Runtime and Kernel are
// safe to use from several threads at once.
//
// Logging goes to the spdlog loggers "qjit", "qjit.cache" and "qjit.jit"
// (each created on first use with the registry's level and a sink they
// share, stderr unless qjit_log_set_callback redirects it, unless the
// application registered its own under that name first). The
// library never touches the default logger. Each compile is logged to "qjit"
// at debug level with the kernel's name, backend and compile time. See
// docs/runtime.md for the cache, logging and the C API (qjit/qjit.h).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_H
#define QJIT_RUNTIME_H

#include "qjit/Error.h"
#include "qjit/Export.h"
#include "qjit/Isa.h"
#include "qjit/KernelCall.h"
#include "qjit/KernelSpec.h"
#include "qjit/ThreadPool.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qjit {

/// Who makes kernels. `Auto` picks, per kernel, the JIT backend that fits
/// it best (Backend::fit: a kernel specialized for the spec before one
/// composed from general parts that measured slower), asmjit before llvm
/// when they fit equally (each only if this build has it and it supports
/// the effective ISA level); when that one fails to compile, the next, then
/// the scalar reference. An explicitly requested
/// backend is the only one used: if it cannot compile a spec, that is the
/// error.
enum class BackendKind : uint8_t { Auto, Llvm, Asmjit, Reference };

QJIT_API std::string_view
backendKindName(BackendKind kind); ///< "auto", "llvm", ...
QJIT_API Expected<BackendKind> parseBackendKind(std::string_view name);

/// How many compiled kernels a runtime keeps. When either limit is
/// exceeded the least recently used kernels leave the cache; a kernel still
/// held by a caller stays valid (its handle owns the code), it just has to
/// be compiled again by the next compile() that asks for it. A kernel
/// larger than maxCodeBytes is returned but not cached; maxKernels 0
/// disables caching (concurrent requests for one kernel still share one
/// compile).
struct QJIT_API CacheLimits {
  size_t maxKernels = 4096;
  size_t maxCodeBytes = size_t(64)
                        << 20; ///< Machine code, per Kernel::codeBytes.
};

/// Kernel cache counters (of one runtime, or of the whole process).
struct QJIT_API CacheStats {
  /// compile() calls served by an already compiled kernel.
  uint64_t hits = 0;
  /// compile() calls that found no compiled kernel: each either started a
  /// compile or waited for the one in flight for the same key.
  uint64_t misses = 0;
  uint64_t compiles = 0;  ///< Compiles started (at most one per key at once).
  uint64_t failures = 0;  ///< Compiles that failed (failures are not cached).
  uint64_t evictions = 0; ///< Kernels dropped by the limits or clearCache().
  uint64_t compileNanoseconds = 0; ///< Total time spent compiling.
  /// compile(typeText, ...) calls that found the text, op and lowering
  /// options already lowered (skipping parse and lowering; the kernel
  /// lookup that follows counts as a hit or miss as usual).
  uint64_t typeTextHits = 0;
  size_t kernels = 0;   ///< Kernels cached now.
  size_t codeBytes = 0; ///< Their machine code bytes.
  /// The persistent cache (DiskCacheOptions): compiles that found their
  /// code on disk, compiles that looked and did not, entries written,
  /// bytes of entry files read (hits) and written, entries evicted to stay
  /// under the bound, and files ignored as truncated, corrupted, foreign
  /// or of another format (each also counts as a miss). Only backends that
  /// reload code (llvm) look: asmjit re-emits (docs/runtime.md).
  uint64_t diskHits = 0;
  uint64_t diskMisses = 0;
  uint64_t diskWrites = 0;
  uint64_t diskBytesRead = 0;
  uint64_t diskBytesWritten = 0;
  uint64_t diskEvictions = 0;
  uint64_t diskRejects = 0;
};

/// The persistent kernel cache: compiled llvm kernels kept as files in a
/// directory, shared by every runtime and process that names it (see
/// docs/runtime.md, "Persistent cache"). It never fails a compile: an
/// unusable directory or a failed write logs a warning and the runtime
/// goes on without it.
struct QJIT_API DiskCacheOptions {
  /// The directory; empty means the QJIT_CACHE_DIR environment variable,
  /// and no disk cache when that is unset or empty too.
  std::string directory;
  /// Bound on the directory's entry bytes; past it the least recently
  /// used entries are removed. 0 turns the disk cache off.
  uint64_t maxBytes = uint64_t(256) << 20;
};

struct QJIT_API RuntimeOptions {
  BackendKind backend = BackendKind::Auto;
  /// The highest ISA level kernels may use. The effective level is also
  /// capped by the host and by the QJIT_MAX_ISA environment variable (see
  /// effectiveIsaLevel); unset means no cap beyond those.
  std::optional<IsaLevel> maxIsa;
  /// The knobs compile(typeText, op) uses, e.g. knobsForPreset(Onnx).
  QuantKnobs knobs;
  /// Its LoweringOptions::perAxisDequantizeInF64 (loweringForPreset(PyTorch)
  /// sets it).
  bool perAxisDequantizeInF64 = false;
  /// Its LoweringOptions::dynamicRule (loweringForPreset(PyTorch) sets it).
  DynamicRule dynamicRule = DynamicRule::Default;
  CacheLimits cache;
  DiskCacheOptions diskCache;
};

/// A compiled kernel. It owns its code: the code stays valid as long as
/// any shared_ptr to the Kernel is alive, whatever happens to the Runtime.
/// Immutable, so any number of threads may run it at once.
class QJIT_API Kernel {
public:
  virtual ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// The spec compiled, without its shape: the code does not read the
  /// shape (the layout holds what it needs), so specs that differ only in
  /// shape get one kernel.
  const KernelSpec &spec() const { return spec_; }
  /// spec().kernelName(): a short identifier for logs and symbols.
  const std::string &name() const { return name_; }
  /// The backend that made the code: Llvm, Asmjit or Reference (never Auto).
  BackendKind backend() const { return backend_; }
  /// The ISA level the code was generated for (Scalar for the reference).
  IsaLevel isa() const { return isa_; }
  /// Bytes of machine code the kernel owns (0 for the reference).
  virtual size_t codeBytes() const { return 0; }

  /// The plain C-callable code, for specs where !spec().takesParams():
  ///
  ///   void kernel(const void *src, void *dst, size_t n);
  ///
  /// reads n elements from src and writes n to dst (formats per
  /// kernelInputSide / kernelOutputSide of KernelCall.h, sizes per
  /// bufferBytes; packed storage starts at the first byte, see
  /// docs/semantics.md). src and dst must not overlap. Nothing is checked: n
  /// must satisfy checkKernelCall, buffers must be large enough. The function
  /// is reentrant.
  ///
  /// nullptr when the spec takes params (see paramFunction) or when the
  /// kernel runs on the scalar reference: the reference is C++ code driven
  /// by the spec, and a plain function pointer cannot carry that context
  /// (no per-kernel trampoline exists without generating code, which is
  /// exactly what the reference fallback must not need). Use run() there.
  KernelFn function() const;

  /// As function(), for specs where spec().takesParams():
  ///
  ///   void kernel(const void *src, void *dst, size_t n,
  ///               const KernelParams *params);
  ///
  /// `params` is never null; see KernelParams for what it must hold.
  /// nullptr when the spec takes no params, for a dynamic qcast (its code
  /// writes parameters too: use runDynamic) or for reference kernels.
  ParamKernelFn paramFunction() const;

  /// What a call reads from KernelParams: qjit::parameterCounts(spec()).
  ParameterCounts parameterCounts() const;
  /// The logical shape of the parameters: qjit::parameterShape(spec()).
  std::vector<int64_t> parameterShape() const;

  /// Runs the kernel on n elements after checking everything the raw
  /// function cannot: non-null buffers (unless zero bytes are needed),
  /// srcBytes and dstBytes at least bufferBytes() of each side, n fits the
  /// layout and `params` is given when spec().takesParams() (ignored
  /// otherwise); with `lengths`, that the params' arrays hold what the call
  /// reads (see checkKernelCall). On error dst is untouched.
  Status run(const void *src, size_t srcBytes, void *dst, size_t dstBytes,
             size_t n, const KernelParams *params = nullptr,
             const ParameterCounts *lengths = nullptr) const;

  /// Runs the elements [start, start + count) of a call of n elements, so
  /// a caller can split any layout itself: src, dst, params and the checks
  /// are those of run(n) (whole buffers, not the range's), and each element
  /// gets the parameter of its absolute position, so ranges that cover
  /// [0, n) once, run in any order on any threads, write exactly what
  /// run(n) writes. Only the range's bytes of dst are written. start must
  /// be a multiple of splitGranularity() (whole packed bytes). Ranges that
  /// start on rowGranularity() run the JIT code; others run the scalar
  /// reference (exact, slow). See docs/runtime.md "Threads".
  Status runRange(const void *src, size_t srcBytes, void *dst, size_t dstBytes,
                  size_t n, size_t start, size_t count,
                  const KernelParams *params = nullptr,
                  const ParameterCounts *lengths = nullptr) const;
  /// Where a range may start: elements per byte of packed storage, else 1.
  size_t splitGranularity() const;
  /// Where a range runs the JIT code: the layout's period (per tensor: 1),
  /// or with runtime parameters of a blocked or per-axis layout on asmjit
  /// one block row of the outermost dim (whole channels, whole rows of
  /// blocks); a multiple of splitGranularity(). `params` gives dynamic
  /// extents. (llvm's code runs whole periods only.)
  Expected<size_t> rowGranularity(const KernelParams *params = nullptr) const;

  /// run() with the work split over `pool` (the caller's threads: see
  /// ThreadPool) at multiples of rowGranularity() and of 64 elements, so
  /// every chunk runs the JIT code on whole streamed stores and bytes.
  /// Results are bit-identical to run(). Calls of fewer than
  /// kMinParallelElements elements, or with no such split, run on the
  /// calling thread. Checks what run() checks; on error dst is untouched.
  Status runParallel(const ThreadPool &pool, const void *src, size_t srcBytes,
                     void *dst, size_t dstBytes, size_t n,
                     const KernelParams *params = nullptr,
                     const ParameterCounts *lengths = nullptr) const;

  /// Runs a dynamic qcast (spec().params.dynamic, docs/semantics.md 11):
  /// writes the n codes to dst and every group's scale and zero point to
  /// `outputs` (parameterCounts() entries each, in the formats KernelParams
  /// takes, so a runtime-parameter dcast reads them back). Checks what run()
  /// checks, with checkDynamicCall for `outputs`; `params` supplies dynamic
  /// extents only. An InvalidArgument error for other kernels, and on any
  /// error nothing is written.
  Status runDynamic(const void *src, size_t srcBytes, void *dst,
                    size_t dstBytes, size_t n, const ParameterOutputs &outputs,
                    const KernelParams *params = nullptr,
                    const ParameterCounts *lengths = nullptr) const;

  /// Assembly text of this kernel (or of the same spec for another target
  /// per `options`), produced on demand by the backend. An Unsupported
  /// error for reference kernels, which have no machine code.
  virtual Expected<std::string>
  assembly(const AsmOptions &options = {}) const = 0;

protected:
  /// `entry` is the native code (KernelFn or ParamKernelFn per the spec), or
  /// null for kernels that only run through invoke().
  Kernel(KernelSpec spec, BackendKind backend, IsaLevel isa, const void *entry);

private:
  /// Whether the code can run a whole number of rows short of a period.
  bool codeRunsPeriodPrefixes() const;
  /// Runs the already checked range of a checked call.
  Status invokeRange(const void *src, void *dst, size_t n, size_t start,
                     size_t count, const KernelParams *params) const;
  /// Runs the already checked call.
  virtual Status invoke(const void *src, void *dst, size_t n,
                        const KernelParams *params) const = 0;
  /// Runs the already checked dynamic qcast (Unsupported unless overridden).
  virtual Status invokeDynamic(const void *src, void *dst, size_t n,
                               const KernelParams *params,
                               const ParameterOutputs &outputs) const;

  /// Whether a call of n > 0 elements, a whole number of static periods,
  /// has buffers checkBuffers accepts: the common call, checked without
  /// building a Status (the full checks give the errors).
  bool isPlainCall(const void *src, size_t srcBytes, const void *dst,
                   size_t dstBytes, size_t n) const;

  KernelSpec spec_;
  std::string name_;
  BackendKind backend_;
  IsaLevel isa_;
  const void *entry_;
  /// The layout's period when no extent is dynamic, else 0.
  uint64_t period_ = 0;
  /// What run() needs of a plain call's parameters beyond isPlainCall:
  /// nothing, or runtime scales (no lengths to check); Checked: every call
  /// takes the full checks (dynamic qcast, extents, zero-point promises).
  enum class PlainParams : uint8_t { None, Scales, Checked };
  PlainParams plainParams_ = PlainParams::Checked;
};

/// Compiles kernels and caches them (see CacheLimits). The cache key is
/// the spec (compared exactly, scales bit for bit) together with what is
/// fixed per runtime: the backend choice, the effective and host ISA levels
/// and the versions of qjit, LLVM and asmjit. compile(typeText, ...) also
/// remembers what each (text, op, lowering options) lowered to, as many as
/// CacheLimits::maxKernels, so a repeated call neither parses nor lowers;
/// clearCache() forgets those too. Concurrent
/// compile() calls for one key run one compile and all get its result;
/// calls for kernels already compiled never wait for another compile.
class QJIT_API Runtime {
public:
  /// Fails when the options cannot be honoured: an invalid QJIT_MAX_ISA, or
  /// an explicitly requested backend this build or CPU does not provide.
  static Expected<std::unique_ptr<Runtime>>
  create(const RuntimeOptions &options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// Parses `typeText` (a quant type or a tensor of one) and compiles `op`
  /// with defaultLowering(). A bad type is an InvalidType error whose
  /// message is the rendered diagnostic (with a caret under the problem).
  Expected<std::shared_ptr<const Kernel>> compile(std::string_view typeText,
                                                  KernelOp op);
  /// As above with explicit lowering options (knobs included: start from
  /// defaultLowering() to keep the runtime's knobs).
  Expected<std::shared_ptr<const Kernel>>
  compile(std::string_view typeText, KernelOp op,
          const LoweringOptions &lowering);
  /// Compiles a spec as is (normally one lowerToKernelSpec made).
  Expected<std::shared_ptr<const Kernel>> compile(const KernelSpec &spec);

  /// LoweringOptions carrying the runtime's knobs.
  LoweringOptions defaultLowering() const;
  const RuntimeOptions &options() const;
  /// The ISA level kernels are generated for (effectiveIsaLevel of the
  /// options' cap, fixed at create()).
  IsaLevel isa() const;

  /// This runtime's cache counters.
  CacheStats stats() const;
  /// Drops every compiled kernel from the cache (live handles stay valid)
  /// and every remembered lowering of a type text.
  void clearCache();

private:
  class Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Cache counters summed over every runtime this process created, including
/// destroyed ones (kernels and codeBytes: what is cached now).
QJIT_API CacheStats processCacheStats();

} // namespace qjit

#endif // QJIT_RUNTIME_H
