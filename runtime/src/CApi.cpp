//===- CApi.cpp - The C API over the runtime ------------------------------===//
#include "qjit/qjit.h"

#include "qjit/KernelCall.h"
#include "qjit/Runtime.h"
#include "qjit/ThreadPool.h"
#include "qjit/Version.h"
#include "qjit/internal/NamedLogger.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

struct qjit_runtime {
  std::unique_ptr<qjit::Runtime> runtime;
};

struct qjit_default_pool {
  std::unique_ptr<qjit::DefaultThreadPool> pool;
};

struct qjit_kernel {
  std::shared_ptr<const qjit::Kernel> kernel;
  /// What qjit_param_info::dims points to.
  std::vector<int64_t> parameterShape;
};

namespace qjit {

namespace {

// qjit_compile_options::scale_format converts by value.
static_assert(static_cast<int>(ScaleFormat::Expressed) ==
                  QJIT_SCALE_FORMAT_EXPRESSED &&
              static_cast<int>(ScaleFormat::F32) == QJIT_SCALE_FORMAT_F32 &&
              static_cast<int>(ScaleFormat::F16) == QJIT_SCALE_FORMAT_F16 &&
              static_cast<int>(ScaleFormat::BF16) == QJIT_SCALE_FORMAT_BF16 &&
              static_cast<int>(ScaleFormat::E8M0) == QJIT_SCALE_FORMAT_E8M0);

// qjit_compile_options::dynamic and scale_rounding convert by value.
static_assert(static_cast<int>(DynamicScheme::None) == QJIT_DYNAMIC_NONE &&
              static_cast<int>(DynamicScheme::AbsMax) == QJIT_DYNAMIC_ABSMAX &&
              static_cast<int>(DynamicScheme::MinMax) == QJIT_DYNAMIC_MINMAX &&
              static_cast<int>(DynamicScheme::Mx) == QJIT_DYNAMIC_MX);
static_assert(
    static_cast<int>(ScaleRounding::Floor) == QJIT_SCALE_ROUNDING_FLOOR &&
    static_cast<int>(ScaleRounding::Ceil) == QJIT_SCALE_ROUNDING_CEIL &&
    static_cast<int>(ScaleRounding::Even) == QJIT_SCALE_ROUNDING_EVEN);

// qjit_kernel_params starts as KernelParams spelled in C (the counts
// follow), so native param kernels can be handed to C callers as they are.
static_assert(
    std::is_standard_layout_v<KernelParams> &&
    sizeof(KernelParams) == offsetof(qjit_kernel_params, extent_count) &&
    offsetof(KernelParams, extents) == offsetof(qjit_kernel_params, extents) &&
    offsetof(KernelParams, scales) == offsetof(qjit_kernel_params, scales) &&
    offsetof(KernelParams, zeroPoints) ==
        offsetof(qjit_kernel_params, zero_points));

// Where each version of the sized structs ends. A size below the first
// version's is an error; a field appended later is read only when the
// caller's size holds it, and takes its default otherwise.
constexpr size_t kRuntimeOptionsV1 =
    offsetof(qjit_runtime_options, cache_max_code_bytes) +
    sizeof(qjit_runtime_options::cache_max_code_bytes);
constexpr size_t kCompileOptionsV1 =
    offsetof(qjit_compile_options, runtime_parameters) +
    sizeof(qjit_compile_options::runtime_parameters);
// Later versions appended saturate, then dynamic, then scale_format, then
// scale_rounding; a field the caller's size does not cover keeps its
// default (readCallerOptions).
constexpr size_t kParamInfoV1 =
    offsetof(qjit_param_info, dims) + sizeof(qjit_param_info::dims);

thread_local std::string lastError;

qjit_status toCStatus(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return QJIT_OK;
  case ErrorCode::InvalidType:
    return QJIT_ERROR_INVALID_TYPE;
  case ErrorCode::Unsupported:
    return QJIT_ERROR_UNSUPPORTED;
  case ErrorCode::InvalidArgument:
    return QJIT_ERROR_INVALID_ARGUMENT;
  case ErrorCode::BackendFailure:
    return QJIT_ERROR_BACKEND;
  case ErrorCode::IOError:
    return QJIT_ERROR_IO;
  }
  return QJIT_ERROR_BACKEND;
}

/// Records the outcome of a call as this thread's last error.
qjit_status report(const Status &status) {
  lastError = status.message();
  return toCStatus(status.code());
}

Status invalid(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

Status checkNotNull(const void *pointer, const char *what) {
  return pointer ? Status::ok()
                 : invalid(std::string(what) + " must not be null");
}

/// Runs an entry point's body: no C++ exception may reach a C caller.
template <typename Body> qjit_status guarded(Body body) {
  try {
    return report(body());
  } catch (const std::bad_alloc &) {
    lastError = "out of memory";
    return QJIT_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    lastError = e.what();
    return QJIT_ERROR_BACKEND;
  }
}

/// The integer a C caller stored in an enum. C allows any int there, but
/// C++ must not read a value outside the enumerators' range as the enum
/// (undefined behaviour), so its bytes are copied out instead.
template <typename Enum> long long rawValue(const Enum &value) {
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<long long>(raw);
}

template <typename Enum> bool inRange(const Enum &value, Enum last) {
  long long raw = rawValue(value);
  return raw >= 0 && raw <= static_cast<long long>(last);
}

qjit_dtype valueDtype(ValueType type) {
  switch (type) {
  case ValueType::F16:
    return QJIT_DTYPE_F16;
  case ValueType::BF16:
    return QJIT_DTYPE_BF16;
  case ValueType::F32:
    return QJIT_DTYPE_F32;
  case ValueType::F64:
    return QJIT_DTYPE_F64;
  }
  return QJIT_DTYPE_BYTES;
}

/// The dtype of runtime scale arrays (E8M0 codes are plain bytes).
qjit_dtype scaleDtype(const KernelSpec &spec) {
  switch (spec.params.scaleFormat) {
  case ScaleFormat::Expressed:
    return valueDtype(spec.expressed);
  case ScaleFormat::F32:
    return QJIT_DTYPE_F32;
  case ScaleFormat::F16:
    return QJIT_DTYPE_F16;
  case ScaleFormat::BF16:
    return QJIT_DTYPE_BF16;
  case ScaleFormat::E8M0:
    return QJIT_DTYPE_U8;
  }
  return QJIT_DTYPE_BYTES;
}

qjit_dtype storageDtype(const StorageSpec &storage) {
  if (storage.kind == StorageType::Kind::Float || storage.packed)
    return QJIT_DTYPE_BYTES;
  switch (storage.containerBytes()) {
  case 1:
    return storage.isSigned ? QJIT_DTYPE_I8 : QJIT_DTYPE_U8;
  case 2:
    return storage.isSigned ? QJIT_DTYPE_I16 : QJIT_DTYPE_U16;
  default:
    return storage.isSigned ? QJIT_DTYPE_I32 : QJIT_DTYPE_U32;
  }
}

qjit_dtype sideDtype(const KernelSpec &spec, BufferSide side) {
  return side == BufferSide::Expressed ? valueDtype(spec.expressed)
                                       : storageDtype(spec.storage);
}

const char *dtypeName(const qjit_dtype &dtype) {
  static constexpr const char *kNames[] = {"f16", "bf16", "f32",   "f64",
                                           "i8",  "u8",   "i16",   "u16",
                                           "i32", "u32",  "bytes", "i64"};
  return inRange(dtype, QJIT_DTYPE_I64) ? kNames[rawValue(dtype)] : "invalid";
}

Status checkDtype(const Kernel &kernel, BufferSide side,
                  const qjit_dtype &given, const char *role) {
  qjit_dtype expected = sideDtype(kernel.spec(), side);
  if (rawValue(given) == expected)
    return Status::ok();
  return invalid(std::string(role) + " dtype is " + dtypeName(given) +
                 "; kernel " + kernel.name() + " needs " + dtypeName(expected));
}

/// A caller's struct of `size` bytes: at least the first version.
Status checkStructSize(size_t size, size_t firstVersion, const char *what,
                       const char *how) {
  if (size == 0)
    return invalid(std::string(what) + ".size is 0: set it with " + how);
  if (size < firstVersion)
    return invalid(std::string(what) + ".size is " + std::to_string(size) +
                   ", smaller than its first version (" +
                   std::to_string(firstVersion) + " bytes)");
  return Status::ok();
}

/// The fields of a caller's options struct (NULL: none) its `size` covers,
/// over the defaults in `options`, once the size is checked against the
/// first version's: copied as bytes, since the caller's enums may hold any
/// int (rawValue checks them afterwards).
template <typename Options>
Status readCallerOptions(Options &options, const Options *given,
                         size_t firstVersion, const char *name,
                         const char *init) {
  if (!given)
    return Status::ok();
  if (Status s = checkStructSize(given->size, firstVersion, name, init); !s)
    return s;
  size_t ownSize = options.size;
  std::memcpy(&options, given, std::min(given->size, sizeof(Options)));
  options.size = ownSize;
  return Status::ok();
}

Status checkKernel(const qjit_kernel *kernel) {
  return checkNotNull(kernel, "kernel");
}

qjit_log_level logLevel(spdlog::level::level_enum level) {
  switch (level) {
  case spdlog::level::trace:
    return QJIT_LOG_TRACE;
  case spdlog::level::debug:
    return QJIT_LOG_DEBUG;
  case spdlog::level::info:
    return QJIT_LOG_INFO;
  case spdlog::level::warn:
    return QJIT_LOG_WARN;
  default: // err and critical; off is never a message's level.
    return QJIT_LOG_ERROR;
  }
}

Status noNativeFunction(const Kernel &kernel) {
  return Status::error(ErrorCode::Unsupported,
                       "kernel " + kernel.name() +
                           " runs on the scalar reference: no native "
                           "function (use qjit_kernel_run)");
}

} // namespace

} // namespace qjit

using namespace qjit;

extern "C" {

const char *qjit_last_error(void) { return lastError.c_str(); }

const char *qjit_version(void) { return QJIT_VERSION_STRING; }

void qjit_runtime_options_init(qjit_runtime_options *options) {
  if (!options)
    return;
  CacheLimits limits;
  *options = qjit_runtime_options{sizeof(qjit_runtime_options),
                                  QJIT_BACKEND_AUTO,
                                  nullptr,
                                  QJIT_SEMANTICS_DEFAULT,
                                  limits.maxKernels,
                                  limits.maxCodeBytes,
                                  nullptr,
                                  DiskCacheOptions().maxBytes};
}

qjit_status qjit_runtime_create(const qjit_runtime_options *options,
                                qjit_runtime **runtime) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(runtime, "runtime output"); !s)
      return s;
    qjit_runtime_options c;
    qjit_runtime_options_init(&c);
    // Fields past the first version keep their defaults unless covered.
    if (Status s = readCallerOptions(c, options, kRuntimeOptionsV1,
                                     "qjit_runtime_options",
                                     "qjit_runtime_options_init");
        !s)
      return s;
    if (!inRange(c.backend, QJIT_BACKEND_REFERENCE))
      return invalid("invalid backend " + std::to_string(rawValue(c.backend)));
    if (!inRange(c.semantics, QJIT_SEMANTICS_VLLM))
      return invalid("invalid semantics " +
                     std::to_string(rawValue(c.semantics)));
    RuntimeOptions cpp;
    cpp.backend = static_cast<BackendKind>(c.backend);
    LoweringOptions semantics =
        loweringForPreset(static_cast<SemanticsPreset>(c.semantics));
    cpp.knobs = semantics.knobs;
    cpp.perAxisDequantizeInF64 = semantics.perAxisDequantizeInF64;
    cpp.dynamicRule = semantics.dynamicRule;
    cpp.cache = CacheLimits{c.cache_max_kernels, c.cache_max_code_bytes};
    if (c.cache_dir)
      cpp.diskCache.directory = c.cache_dir;
    cpp.diskCache.maxBytes = c.cache_max_disk_bytes;
    if (c.max_isa) {
      Expected<IsaLevel> isa = parseIsaLevel(c.max_isa);
      if (!isa)
        return isa.status();
      cpp.maxIsa = *isa;
    }
    Expected<std::unique_ptr<Runtime>> created = Runtime::create(cpp);
    if (!created)
      return created.status();
    *runtime = new qjit_runtime{std::move(*created)};
    return Status::ok();
  });
}

void qjit_runtime_destroy(qjit_runtime *runtime) { delete runtime; }

qjit_status qjit_runtime_stats(const qjit_runtime *runtime,
                               qjit_cache_stats *stats) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(runtime, "runtime"); !s)
      return s;
    if (Status s = checkNotNull(stats, "stats output"); !s)
      return s;
    CacheStats cpp = runtime->runtime->stats();
    *stats =
        qjit_cache_stats{cpp.hits,     cpp.misses,    cpp.compiles,
                         cpp.failures, cpp.evictions, cpp.compileNanoseconds,
                         cpp.kernels,  cpp.codeBytes};
    return Status::ok();
  });
}

qjit_status qjit_runtime_disk_stats(const qjit_runtime *runtime,
                                    qjit_disk_cache_stats *stats) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(runtime, "runtime"); !s)
      return s;
    if (Status s = checkNotNull(stats, "stats output"); !s)
      return s;
    if (stats->size == 0)
      return invalid("qjit_disk_cache_stats.size is 0 (set it to sizeof)");
    CacheStats cpp = runtime->runtime->stats();
    qjit_disk_cache_stats c{sizeof(qjit_disk_cache_stats),
                            cpp.diskHits,
                            cpp.diskMisses,
                            cpp.diskWrites,
                            cpp.diskBytesRead,
                            cpp.diskBytesWritten,
                            cpp.diskEvictions,
                            cpp.diskRejects};
    // Only what the caller's struct holds; its size stays its own.
    size_t covered = std::min(stats->size, sizeof c);
    std::memcpy(reinterpret_cast<char *>(stats) + sizeof c.size,
                reinterpret_cast<const char *>(&c) + sizeof c.size,
                covered > sizeof c.size ? covered - sizeof c.size : 0);
    return Status::ok();
  });
}

void qjit_compile_options_init(qjit_compile_options *options) {
  if (!options)
    return;
  *options = qjit_compile_options{sizeof(qjit_compile_options),
                                  0,
                                  0,
                                  QJIT_SATURATE_DEFAULT,
                                  QJIT_DYNAMIC_NONE,
                                  QJIT_SCALE_FORMAT_EXPRESSED,
                                  QJIT_SCALE_ROUNDING_FLOOR};
}

qjit_status qjit_kernel_compile(qjit_runtime *runtime, const char *type,
                                qjit_op op, const qjit_compile_options *options,
                                qjit_kernel **kernel) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(runtime, "runtime"); !s)
      return s;
    if (Status s = checkNotNull(type, "type"); !s)
      return s;
    if (Status s = checkNotNull(kernel, "kernel output"); !s)
      return s;
    if (!inRange(op, QJIT_OP_SCAST))
      return invalid("invalid op " + std::to_string(rawValue(op)));
    qjit_compile_options c;
    qjit_compile_options_init(&c);
    if (Status s = readCallerOptions(c, options, kCompileOptionsV1,
                                     "qjit_compile_options",
                                     "qjit_compile_options_init");
        !s)
      return s;
    if (!inRange(c.dynamic, QJIT_DYNAMIC_MX))
      return invalid("invalid dynamic " + std::to_string(rawValue(c.dynamic)));
    if (!inRange(c.scale_rounding, QJIT_SCALE_ROUNDING_EVEN))
      return invalid("invalid scale_rounding " +
                     std::to_string(rawValue(c.scale_rounding)));
    if (!inRange(c.scale_format, QJIT_SCALE_FORMAT_E8M0))
      return invalid("invalid scale_format " +
                     std::to_string(rawValue(c.scale_format)));
    if (!inRange(c.saturate, QJIT_SATURATE_OFF))
      return invalid("invalid saturate " +
                     std::to_string(rawValue(c.saturate)));
    LoweringOptions lowering = runtime->runtime->defaultLowering();
    lowering.unpacked = c.unpacked != 0;
    lowering.runtimeParameters = c.runtime_parameters != 0;
    if (c.saturate != QJIT_SATURATE_DEFAULT)
      lowering.knobs.saturate = c.saturate == QJIT_SATURATE_ON;
    lowering.dynamicScheme = static_cast<DynamicScheme>(c.dynamic);
    lowering.scaleFormat = static_cast<ScaleFormat>(c.scale_format);
    lowering.scaleRounding = static_cast<ScaleRounding>(c.scale_rounding);
    Expected<std::shared_ptr<const Kernel>> compiled =
        runtime->runtime->compile(type, static_cast<KernelOp>(op), lowering);
    if (!compiled)
      return compiled.status();
    std::vector<int64_t> shape = (*compiled)->parameterShape();
    *kernel = new qjit_kernel{std::move(*compiled), std::move(shape)};
    return Status::ok();
  });
}

void qjit_kernel_release(qjit_kernel *kernel) { delete kernel; }

const char *qjit_kernel_name(const qjit_kernel *kernel) {
  return kernel ? kernel->kernel->name().c_str() : nullptr;
}

qjit_status qjit_kernel_takes_params(const qjit_kernel *kernel, int *takes) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(takes, "output"); !s)
      return s;
    *takes = kernel->kernel->spec().takesParams() ? 1 : 0;
    return Status::ok();
  });
}

qjit_status qjit_kernel_dtypes(const qjit_kernel *kernel, qjit_dtype *src,
                               qjit_dtype *dst) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(src, "source dtype output"); !s)
      return s;
    if (Status s = checkNotNull(dst, "destination dtype output"); !s)
      return s;
    const KernelSpec &spec = kernel->kernel->spec();
    *src = sideDtype(spec, kernelInputSide(spec.op));
    *dst = sideDtype(spec, kernelOutputSide(spec.op));
    return Status::ok();
  });
}

qjit_status qjit_kernel_buffer_bytes(const qjit_kernel *kernel, size_t n,
                                     size_t *src_bytes, size_t *dst_bytes) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(src_bytes, "source size output"); !s)
      return s;
    if (Status s = checkNotNull(dst_bytes, "destination size output"); !s)
      return s;
    const KernelSpec &spec = kernel->kernel->spec();
    Expected<size_t> in = bufferBytes(spec, kernelInputSide(spec.op), n);
    if (!in)
      return in.status();
    Expected<size_t> out = bufferBytes(spec, kernelOutputSide(spec.op), n);
    if (!out)
      return out.status();
    *src_bytes = *in;
    *dst_bytes = *out;
    return Status::ok();
  });
}

qjit_status qjit_kernel_param_info(const qjit_kernel *kernel,
                                   qjit_param_info *info) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(info, "info output"); !s)
      return s;
    size_t size = info->size;
    if (Status s = checkStructSize(size, kParamInfoV1, "qjit_param_info",
                                   "sizeof(qjit_param_info)");
        !s)
      return s;
    const Kernel &k = *kernel->kernel;
    ParameterCounts counts = k.parameterCounts();
    const std::vector<int64_t> &shape = kernel->parameterShape;
    qjit_param_info full{size,
                         counts.extents,
                         counts.scales,
                         counts.zeroPoints,
                         scaleDtype(k.spec()),
                         QJIT_DTYPE_I64,
                         shape.size(),
                         shape.empty() ? nullptr : shape.data()};
    // Only what the caller's version of the struct holds.
    std::memcpy(info, &full, std::min(size, sizeof full));
    return Status::ok();
  });
}

qjit_status qjit_kernel_function(const qjit_kernel *kernel,
                                 qjit_kernel_fn *function) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(function, "function output"); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    if (k.spec().takesParams())
      return invalid("kernel " + k.name() +
                     " takes params: use qjit_kernel_param_function");
    KernelFn fn = k.function();
    if (!fn)
      return noNativeFunction(k);
    *function = fn;
    return Status::ok();
  });
}

qjit_status qjit_kernel_param_function(const qjit_kernel *kernel,
                                       qjit_param_kernel_fn *function) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(function, "function output"); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    if (!k.spec().takesParams())
      return invalid("kernel " + k.name() +
                     " takes no params: use qjit_kernel_function");
    ParamKernelFn fn = k.paramFunction();
    if (!fn)
      return noNativeFunction(k);
    // Same ABI: qjit_kernel_params starts as KernelParams (see the
    // static_assert).
    *function = reinterpret_cast<qjit_param_kernel_fn>(fn);
    return Status::ok();
  });
}

qjit_status qjit_kernel_run(const qjit_kernel *kernel, qjit_dtype src_dtype,
                            const void *src, size_t src_bytes,
                            qjit_dtype dst_dtype, void *dst, size_t dst_bytes,
                            size_t n, const qjit_kernel_params *params) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    if (Status s =
            checkDtype(k, kernelInputSide(k.spec().op), src_dtype, "source");
        !s)
      return s;
    if (Status s = checkDtype(k, kernelOutputSide(k.spec().op), dst_dtype,
                              "destination");
        !s)
      return s;
    if (!params)
      return k.run(src, src_bytes, dst, dst_bytes, n);
    KernelParams cppParams{params->extents, params->scales,
                           params->zero_points};
    ParameterCounts lengths{params->extent_count, params->scale_count,
                            params->zero_point_count};
    return k.run(src, src_bytes, dst, dst_bytes, n, &cppParams, &lengths);
  });
}

qjit_status qjit_kernel_run_dynamic(const qjit_kernel *kernel,
                                    qjit_dtype src_dtype, const void *src,
                                    size_t src_bytes, qjit_dtype dst_dtype,
                                    void *dst, size_t dst_bytes, size_t n,
                                    const qjit_kernel_params *params,
                                    const qjit_param_outputs *outputs) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(outputs, "outputs"); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    if (Status s =
            checkDtype(k, kernelInputSide(k.spec().op), src_dtype, "source");
        !s)
      return s;
    if (Status s = checkDtype(k, kernelOutputSide(k.spec().op), dst_dtype,
                              "destination");
        !s)
      return s;
    ParameterOutputs cppOutputs{outputs->scales, outputs->zero_points};
    ParameterCounts lengths{0, outputs->scale_count, outputs->zero_point_count};
    KernelParams cppParams;
    if (params) {
      cppParams.extents = params->extents;
      lengths.extents = params->extent_count;
    }
    return k.runDynamic(src, src_bytes, dst, dst_bytes, n, cppOutputs,
                        &cppParams, &lengths);
  });
}

} // extern "C"

namespace qjit {
namespace {

static_assert(QJIT_MIN_PARALLEL_ELEMENTS == kMinParallelElements);
constexpr size_t kThreadPoolV1 =
    offsetof(qjit_thread_pool, threads) + sizeof(qjit_thread_pool::threads);

/// The checks every run entry point makes, then `run` with the C++ params
/// (null when the caller gave none) and their lengths.
template <typename Run>
qjit_status runChecked(const qjit_kernel *kernel, qjit_dtype src_dtype,
                       qjit_dtype dst_dtype, const qjit_kernel_params *params,
                       Run run) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    if (Status s =
            checkDtype(k, kernelInputSide(k.spec().op), src_dtype, "source");
        !s)
      return s;
    if (Status s = checkDtype(k, kernelOutputSide(k.spec().op), dst_dtype,
                              "destination");
        !s)
      return s;
    if (!params)
      return run(k, nullptr, nullptr);
    KernelParams cppParams{params->extents, params->scales,
                           params->zero_points};
    ParameterCounts lengths{params->extent_count, params->scale_count,
                            params->zero_point_count};
    return run(k, &cppParams, &lengths);
  });
}

} // namespace
} // namespace qjit

extern "C" {

qjit_status qjit_kernel_run_parallel(const qjit_kernel *kernel,
                                     const qjit_thread_pool *pool,
                                     qjit_dtype src_dtype, const void *src,
                                     size_t src_bytes, qjit_dtype dst_dtype,
                                     void *dst, size_t dst_bytes, size_t n,
                                     const qjit_kernel_params *params) {
  return runChecked(
      kernel, src_dtype, dst_dtype, params,
      [&](const Kernel &k, const KernelParams *p,
          const ParameterCounts *lengths) -> Status {
        if (Status s = checkNotNull(pool, "pool"); !s)
          return s;
        if (Status s =
                checkStructSize(pool->size, kThreadPoolV1, "qjit_thread_pool",
                                "sizeof(qjit_thread_pool)");
            !s)
          return s;
        ThreadPool cppPool{pool->parallel_for, pool->pool, pool->threads};
        return k.runParallel(cppPool, src, src_bytes, dst, dst_bytes, n, p,
                             lengths);
      });
}

qjit_status qjit_kernel_run_range(const qjit_kernel *kernel,
                                  qjit_dtype src_dtype, const void *src,
                                  size_t src_bytes, qjit_dtype dst_dtype,
                                  void *dst, size_t dst_bytes, size_t n,
                                  size_t start, size_t count,
                                  const qjit_kernel_params *params) {
  return runChecked(kernel, src_dtype, dst_dtype, params,
                    [&](const Kernel &k, const KernelParams *p,
                        const ParameterCounts *lengths) {
                      return k.runRange(src, src_bytes, dst, dst_bytes, n,
                                        start, count, p, lengths);
                    });
}

qjit_status qjit_kernel_split_granularity(const qjit_kernel *kernel,
                                          const qjit_kernel_params *params,
                                          size_t *split, size_t *row) {
  return guarded([&]() -> Status {
    if (Status s = checkKernel(kernel); !s)
      return s;
    if (Status s = checkNotNull(split, "split output"); !s)
      return s;
    if (Status s = checkNotNull(row, "row output"); !s)
      return s;
    const Kernel &k = *kernel->kernel;
    KernelParams cppParams;
    if (params)
      cppParams.extents = params->extents;
    Expected<size_t> rows = k.rowGranularity(params ? &cppParams : nullptr);
    if (!rows)
      return rows.status();
    *split = k.splitGranularity();
    *row = *rows;
    return Status::ok();
  });
}

qjit_status qjit_default_pool_create(size_t threads, qjit_default_pool **pool) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(pool, "pool output"); !s)
      return s;
    Expected<std::unique_ptr<DefaultThreadPool>> created =
        DefaultThreadPool::create(threads);
    if (!created)
      return created.status();
    *pool = new qjit_default_pool{std::move(*created)};
    return Status::ok();
  });
}

void qjit_default_pool_destroy(qjit_default_pool *pool) { delete pool; }

qjit_status qjit_default_pool_interface(const qjit_default_pool *pool,
                                        qjit_thread_pool *interface) {
  return guarded([&]() -> Status {
    if (Status s = checkNotNull(pool, "pool"); !s)
      return s;
    if (Status s = checkNotNull(interface, "interface output"); !s)
      return s;
    size_t size = interface->size;
    if (Status s = checkStructSize(size, kThreadPoolV1, "qjit_thread_pool",
                                   "sizeof(qjit_thread_pool)");
        !s)
      return s;
    ThreadPool cpp = pool->pool->pool();
    qjit_thread_pool full{size, cpp.parallelFor, cpp.pool, cpp.threads};
    std::memcpy(interface, &full, std::min(size, sizeof full));
    return Status::ok();
  });
}

qjit_status qjit_log_set_level(qjit_log_level level) {
  return guarded([&]() -> Status {
    if (!inRange(level, QJIT_LOG_OFF))
      return invalid("invalid log level " + std::to_string(rawValue(level)));
    static constexpr spdlog::level::level_enum kLevels[] = {
        spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
        spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
    detail::setLogLevel(kLevels[rawValue(level)]);
    return Status::ok();
  });
}

qjit_status qjit_log_set_callback(qjit_log_callback callback, void *user) {
  return guarded([&]() -> Status {
    if (!callback) {
      detail::setLogCallback({});
      return Status::ok();
    }
    detail::setLogCallback([callback, user](spdlog::level::level_enum level,
                                            std::string_view text) {
      std::string message(text); // NUL-terminated for C.
      callback(logLevel(level), message.c_str(), user);
    });
    return Status::ok();
  });
}

} // extern "C"
