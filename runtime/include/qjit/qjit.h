/*===- qjit/qjit.h - The C API -------------------------------------------===*
 *
 * A C (and FFI) face of the runtime:
 *
 *   qjit_runtime *runtime;
 *   if (qjit_runtime_create(NULL, &runtime) != QJIT_OK)
 *     fprintf(stderr, "%s\n", qjit_last_error());
 *   qjit_kernel *kernel;
 *   qjit_kernel_compile(runtime, "!quant.uniform<i8:f32, 2.0:10>",
 *                       QJIT_OP_QCAST, NULL, &kernel);
 *   qjit_kernel_run(kernel, QJIT_DTYPE_F32, src, sizeof src,
 *                   QJIT_DTYPE_I8, dst, sizeof dst, n, NULL);
 *   qjit_kernel_release(kernel);
 *   qjit_runtime_destroy(runtime);
 *
 * Options structs start with their size, so a program built against an
 * older header (a smaller struct) keeps working: initialize them with
 * qjit_runtime_options_init / qjit_compile_options_init, then set fields.
 *
 * Every function that can fail returns a qjit_status and, on failure,
 * leaves its outputs untouched and sets this thread's last-error text
 * (qjit_last_error). Arguments are always validated: a null pointer, an
 * out-of-range enum, a buffer too small or of the wrong dtype is an error,
 * never a crash. Handles are independent: a kernel stays valid after its
 * runtime is destroyed. Runtimes and kernels may be used from any number of
 * threads at once; each create has exactly one destroy/release.
 *
 *===----------------------------------------------------------------------===*/
#ifndef QJIT_QJIT_H
#define QJIT_QJIT_H

#include <stddef.h>
#include <stdint.h>

#include "qjit/Export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qjit_status {
  QJIT_OK = 0,
  QJIT_ERROR_INVALID_TYPE = 1,     /* the type text does not parse/verify */
  QJIT_ERROR_UNSUPPORTED = 2,      /* valid, but no kernel computes it */
  QJIT_ERROR_INVALID_ARGUMENT = 3, /* null, size, dtype, enum, option */
  QJIT_ERROR_BACKEND = 4,          /* the JIT refused */
  QJIT_ERROR_IO = 5,
  QJIT_ERROR_OUT_OF_MEMORY = 6
} qjit_status;

typedef enum qjit_op {
  QJIT_OP_QCAST = 0, /* expressed -> stored */
  QJIT_OP_DCAST = 1, /* stored -> expressed */
  QJIT_OP_SCAST = 2  /* stored bits -> stored bits */
} qjit_op;

typedef enum qjit_backend {
  QJIT_BACKEND_AUTO = 0,
  QJIT_BACKEND_LLVM = 1,
  QJIT_BACKEND_ASMJIT = 2,
  QJIT_BACKEND_REFERENCE = 3
} qjit_backend;

typedef enum qjit_semantics {
  QJIT_SEMANTICS_DEFAULT = 0, /* docs/semantics.md defaults */
  QJIT_SEMANTICS_MLIR = 1,
  QJIT_SEMANTICS_ONNX = 2,
  QJIT_SEMANTICS_PYTORCH = 3, /* per-axis dcast in f64 (semantics 5.5) */
  QJIT_SEMANTICS_TFLITE = 4,
  QJIT_SEMANTICS_XNNPACK = 5, /* dynamic minmax: XNNPACK's qd8 rule */
  QJIT_SEMANTICS_GGML = 6,    /* dynamic absmax: llama.cpp's q8_0 rule */
  QJIT_SEMANTICS_VLLM = 7     /* dynamic absmax: vLLM's per-token fp8 */
} qjit_semantics;

/* Element formats of kernel buffers (docs/semantics.md, host formats). */
typedef enum qjit_dtype {
  QJIT_DTYPE_F16 = 0,  /* IEEE half bits */
  QJIT_DTYPE_BF16 = 1, /* upper 16 bits of an f32 */
  QJIT_DTYPE_F32 = 2,
  QJIT_DTYPE_F64 = 3,
  QJIT_DTYPE_I8 = 4,
  QJIT_DTYPE_U8 = 5,
  QJIT_DTYPE_I16 = 6,
  QJIT_DTYPE_U16 = 7,
  QJIT_DTYPE_I32 = 8,
  QJIT_DTYPE_U32 = 9,
  QJIT_DTYPE_BYTES = 10, /* packed sub-byte or fp8/fp4 storage: raw bytes */
  QJIT_DTYPE_I64 = 11    /* zero points (qjit_param_info) */
} qjit_dtype;

typedef struct qjit_runtime qjit_runtime;
typedef struct qjit_kernel qjit_kernel;

/* Fields are only ever appended. `size` is sizeof the struct the caller
 * was compiled with (qjit_runtime_options_init sets it); the library reads
 * the fields that fit in it and takes defaults for the rest. */
typedef struct qjit_runtime_options {
  size_t size;
  qjit_backend backend;
  const char *max_isa; /* "scalar", "sse4", "avx2", "avx512"; NULL: none */
  qjit_semantics semantics;
  size_t cache_max_kernels; /* see qjit::CacheLimits */
  size_t cache_max_code_bytes;
  /* Appended: the persistent cache (qjit::DiskCacheOptions). NULL or ""
   * means the QJIT_CACHE_DIR environment variable (unset: no disk cache);
   * the string is copied. A max of 0 turns the disk cache off. */
  const char *cache_dir;
  uint64_t cache_max_disk_bytes;
} qjit_runtime_options;

/* Overflow of qcast to float storage (docs/semantics.md 8.2; the
 * `--no-saturate` flag of the qjit tool). 0 keeps the runtime's knobs.
 * Integer and quantile storage always saturate. */
typedef enum qjit_saturate {
  QJIT_SATURATE_DEFAULT = 0, /* the runtime's knobs (on) */
  QJIT_SATURATE_ON = 1,      /* clamp to the largest finite value */
  QJIT_SATURATE_OFF = 2      /* overflow to NaN (f8E4M3FN) or inf (f8E5M2) */
} qjit_saturate;

/* Dynamic qcast (docs/semantics.md 11): the kernel computes each group's
 * scale and zero point from its input and writes them too (run it with
 * qjit_kernel_run_dynamic). The formula follows the runtime's semantics:
 * QJIT_SEMANTICS_PYTORCH selects the pytorch rule (11.2, 11.4). */
typedef enum qjit_dynamic {
  QJIT_DYNAMIC_NONE = 0,   /* parameters baked or given at call time */
  QJIT_DYNAMIC_ABSMAX = 1, /* symmetric: s = amax / qmax, zero point 0 */
  QJIT_DYNAMIC_MINMAX = 2, /* asymmetric: from [min(x, 0), max(x, 0)] */
  QJIT_DYNAMIC_MX = 3      /* OCP MX: power-of-two scales as E8M0 bytes */
} qjit_dynamic;
/* QJIT_DYNAMIC_MX: how a group's scale rounds to a power of two
 * (docs/semantics.md 11.8). */
typedef enum qjit_scale_rounding {
  QJIT_SCALE_ROUNDING_FLOOR = 0, /* the OCP MX spec's shared exponent */
  QJIT_SCALE_ROUNDING_CEIL = 1,  /* smallest 2^E >= amax / largest */
  QJIT_SCALE_ROUNDING_EVEN = 2   /* PyTorch's to(float8_e8m0fnu) */
} qjit_scale_rounding;
/* The format of runtime scales (docs/semantics.md 2.3; qjit_param_info's
 * scale_dtype names it), or of the scales a dynamic qcast writes (11.7;
 * QJIT_DYNAMIC_MX writes E8M0). Anything but EXPRESSED needs
 * runtime_parameters or dynamic. */
typedef enum qjit_scale_format {
  QJIT_SCALE_FORMAT_EXPRESSED = 0, /* the expressed dtype */
  QJIT_SCALE_FORMAT_F32 = 1,
  QJIT_SCALE_FORMAT_F16 = 2,  /* IEEE half bits */
  QJIT_SCALE_FORMAT_BF16 = 3, /* upper 16 bits of an f32 */
  QJIT_SCALE_FORMAT_E8M0 = 4  /* OCP MX bytes: 2^(b - 127), 0xFF NaN */
} qjit_scale_format;
/* As qjit_runtime_options: `size` first, fields only appended. The first
 * version ended after runtime_parameters; saturate came second (a caller
 * of the first version gets QJIT_SATURATE_DEFAULT), dynamic third,
 * scale_format fourth, scale_rounding fifth. */
typedef struct qjit_compile_options {
  size_t size;
  int unpacked;           /* keep sub-byte storage one value per byte */
  int runtime_parameters; /* take scales / zero points at call time */
  qjit_saturate saturate;
  qjit_dynamic dynamic;           /* qcast only; QJIT_DYNAMIC_NONE by default */
  qjit_scale_format scale_format; /* QJIT_SCALE_FORMAT_EXPRESSED by default */
  qjit_scale_rounding scale_rounding; /* QJIT_DYNAMIC_MX only; FLOOR */
} qjit_compile_options;

/* Call-time inputs of kernels that take them (qjit_kernel_takes_params).
 * The pointers have the layout and meaning of qjit::KernelParams (what the
 * raw qjit_param_kernel_fn reads); the counts are the entries each array
 * holds, which qjit_kernel_run checks against qjit_kernel_param_info. */
typedef struct qjit_kernel_params {
  const int64_t *extents;     /* per-axis: {inner}; blocked: dims 1.. */
  const void *scales;         /* in the scale format (param_info) */
  const int64_t *zero_points; /* NULL: all zero */
  size_t extent_count;
  size_t scale_count;
  size_t zero_point_count; /* ignored when zero_points is NULL */
} qjit_kernel_params;

/* What a kernel reads from qjit_kernel_params (qjit_kernel_param_info). As
 * the options, `size` is set by the caller (sizeof the struct it was
 * compiled with) and only the fields that fit are written. */
typedef struct qjit_param_info {
  size_t size;
  size_t extent_count;     /* extents entries read (dynamic extents) */
  size_t scale_count;      /* scales read; 0 when the parameters are baked */
  size_t zero_point_count; /* zero points read when zero_points != NULL */
  qjit_dtype scale_dtype;  /* the scale format's: the expressed dtype, or
                              F32, F16, BF16 or U8 (E8M0 bytes) */
  qjit_dtype zero_point_dtype; /* QJIT_DTYPE_I64 */
  /* The grid of parameters, outermost first; the product of the dims is
   * the number of parameters, row-major order over it the order of the
   * type's scales. Rank 0 per-tensor, {channels} per-axis, one dim per dim
   * of the collapsed blocked layout (qjit::parameterShape). `dims` stays
   * valid while the kernel does; NULL when rank is 0. */
  size_t rank;
  const int64_t *dims;
} qjit_param_info;

typedef struct qjit_cache_stats {
  uint64_t hits, misses, compiles, failures, evictions;
  uint64_t compile_nanoseconds;
  size_t kernels, code_bytes;
} qjit_cache_stats;

/* The persistent cache's counters (qjit::CacheStats' disk fields). A
 * separate struct because qjit_cache_stats has no size: as the options,
 * `size` is set by the caller and only the fields that fit are written. */
typedef struct qjit_disk_cache_stats {
  size_t size;
  uint64_t hits, misses, writes;
  uint64_t bytes_read, bytes_written;
  uint64_t evictions;
  uint64_t rejects; /* truncated, corrupted, foreign or old-format files */
} qjit_disk_cache_stats;

/* The two native kernel ABIs (see qjit/Runtime.h, Kernel::function). */
typedef void (*qjit_kernel_fn)(const void *src, void *dst, size_t n);
typedef void (*qjit_param_kernel_fn)(const void *src, void *dst, size_t n,
                                     const qjit_kernel_params *params);

/* The message of this thread's last failed call; "" after a success. The
 * text stays valid until this thread's next qjit call. */
QJIT_API const char *qjit_last_error(void);
/* QJIT_VERSION_STRING of the library (may differ from the header's). */
QJIT_API const char *qjit_version(void);

/* Fills the defaults (auto backend, no ISA cap, default semantics and
 * cache limits) and size. NULL is ignored. */
QJIT_API void qjit_runtime_options_init(qjit_runtime_options *options);
/* options may be NULL for the defaults. QJIT_ERROR_INVALID_ARGUMENT for a
 * null output, an options size of 0 or smaller than the first version's,
 * an out-of-range enum or an unknown max_isa; the backend's error when an
 * explicitly requested backend is not available. */
QJIT_API qjit_status qjit_runtime_create(const qjit_runtime_options *options,
                                         qjit_runtime **runtime);
/* NULL is ignored. Kernels compiled by the runtime stay valid. */
QJIT_API void qjit_runtime_destroy(qjit_runtime *runtime);
QJIT_API qjit_status qjit_runtime_stats(const qjit_runtime *runtime,
                                        qjit_cache_stats *stats);
/* The disk cache counters of `runtime` (all 0 without a disk cache).
 * QJIT_ERROR_INVALID_ARGUMENT for a null argument or a size of 0. */
QJIT_API qjit_status qjit_runtime_disk_stats(const qjit_runtime *runtime,
                                             qjit_disk_cache_stats *stats);

/* Fills the defaults (packed storage, baked parameters, the runtime's
 * saturation) and size. NULL is ignored. */
QJIT_API void qjit_compile_options_init(qjit_compile_options *options);
/* Compiles `op` for the quant (or tensor) type `type` with the runtime's
 * semantics; options may be NULL for the defaults. On an invalid type
 * (QJIT_ERROR_INVALID_TYPE) the last error is the rendered diagnostic. A
 * type whose scale list is `?` (docs/types.md) needs runtime_parameters.
 * QJIT_ERROR_INVALID_ARGUMENT for null pointers, an out-of-range op or
 * saturate, an options size of 0 or smaller than the first version's. */
QJIT_API qjit_status qjit_kernel_compile(qjit_runtime *runtime,
                                         const char *type, qjit_op op,
                                         const qjit_compile_options *options,
                                         qjit_kernel **kernel);
/* NULL is ignored. */
QJIT_API void qjit_kernel_release(qjit_kernel *kernel);

/* The kernel's name; valid while the kernel is. NULL for a NULL kernel. */
QJIT_API const char *qjit_kernel_name(const qjit_kernel *kernel);
QJIT_API qjit_status qjit_kernel_takes_params(const qjit_kernel *kernel,
                                              int *takes);
/* The dtypes of the buffers qjit_kernel_run reads and writes. */
QJIT_API qjit_status qjit_kernel_dtypes(const qjit_kernel *kernel,
                                        qjit_dtype *src, qjit_dtype *dst);
/* Bytes n elements need in the source and destination buffers. */
QJIT_API qjit_status qjit_kernel_buffer_bytes(const qjit_kernel *kernel,
                                              size_t n, size_t *src_bytes,
                                              size_t *dst_bytes);
/* How many parameters, extents and of which dtypes the kernel reads from
 * qjit_kernel_params, and the parameters' shape (see qjit_param_info).
 * Set info->size first. QJIT_ERROR_INVALID_ARGUMENT for a null kernel or
 * info, or an info size of 0 or smaller than the first version's. */
QJIT_API qjit_status qjit_kernel_param_info(const qjit_kernel *kernel,
                                            qjit_param_info *info);

/* The raw code, which checks nothing. QJIT_ERROR_UNSUPPORTED for kernels
 * running on the scalar reference; QJIT_ERROR_INVALID_ARGUMENT when asking
 * for the ABI the kernel does not have (see qjit_kernel_takes_params). */
QJIT_API qjit_status qjit_kernel_function(const qjit_kernel *kernel,
                                          qjit_kernel_fn *function);
QJIT_API qjit_status qjit_kernel_param_function(const qjit_kernel *kernel,
                                                qjit_param_kernel_fn *function);

/* Runs the kernel on n elements after checking the dtypes against
 * qjit_kernel_dtypes, the sizes against qjit_kernel_buffer_bytes, the
 * pointers, overlap, and params (required when the kernel takes params,
 * ignored otherwise): each array the call reads must hold at least the
 * entries qjit_kernel_param_info gives (longer is fine; with n == 0 no
 * scales or zero points are read). Any failed check is
 * QJIT_ERROR_INVALID_ARGUMENT, and dst is untouched. */
QJIT_API qjit_status qjit_kernel_run(const qjit_kernel *kernel,
                                     qjit_dtype src_dtype, const void *src,
                                     size_t src_bytes, qjit_dtype dst_dtype,
                                     void *dst, size_t dst_bytes, size_t n,
                                     const qjit_kernel_params *params);

/* Where qjit_kernel_run_dynamic writes the parameters it computes, in the
 * formats qjit_kernel_params takes (so a runtime-parameter dcast reads them
 * back): scales in the expressed dtype, or in scale_format when the kernel
 * was compiled with one (f16 or bf16 scales of f32 values, f32 of f64
 * values), zero points as int64 (NULL: not written). The counts are the entries
 * each array holds; each must be at least what qjit_kernel_param_info gives. */
typedef struct qjit_param_outputs {
  void *scales;
  int64_t *zero_points;
  size_t scale_count;
  size_t zero_point_count; /* ignored when zero_points is NULL */
} qjit_param_outputs;
/* Runs a dynamic qcast (compiled with qjit_compile_options::dynamic) on n
 * elements: the codes go to dst, every group's scale and zero point to
 * outputs (written even when n is 0: empty groups get the all-zero rule).
 * params supplies the dynamic extents of the layout only (NULL when it has
 * none). The checks of qjit_kernel_run apply; any failure, or a kernel that
 * is not a dynamic qcast, is QJIT_ERROR_INVALID_ARGUMENT with nothing
 * written. */
QJIT_API qjit_status qjit_kernel_run_dynamic(const qjit_kernel *kernel,
                                             qjit_dtype src_dtype,
                                             const void *src, size_t src_bytes,
                                             qjit_dtype dst_dtype, void *dst,
                                             size_t dst_bytes, size_t n,
                                             const qjit_kernel_params *params,
                                             const qjit_param_outputs *outputs);
/* Threads (docs/runtime.md "Threads"; qjit/ThreadPool.h). qjit starts no
 * thread of its own: a parallel run hands chunks to the caller's pool.
 * parallel_for(pool, task, task_context, tasks) must call
 * task(task_context, i) exactly once for every i in [0, tasks), on any
 * threads in any order, and return when all have returned. `threads` is
 * how many run at once (0 or 1: the calling thread only). As the options,
 * `size` is sizeof the struct the caller was compiled with. */
typedef void (*qjit_task_fn)(void *task_context, size_t index);
typedef struct qjit_thread_pool {
  size_t size;
  void (*parallel_for)(void *pool, qjit_task_fn task, void *task_context,
                       size_t tasks);
  void *pool;
  size_t threads;
} qjit_thread_pool;

/* Below this many elements qjit_kernel_run_parallel runs on the calling
 * thread (qjit::kMinParallelElements). */
#define QJIT_MIN_PARALLEL_ELEMENTS ((size_t)1 << 17)

/* qjit_kernel_run with the work split over `pool` at boundaries that keep
 * every element's result identical to qjit_kernel_run's (whole blocks,
 * channel runs, packed bytes, 64-element runs); calls too small or with no
 * such split run on the calling thread. The checks of qjit_kernel_run
 * apply, and a null or undersized pool is QJIT_ERROR_INVALID_ARGUMENT. */
QJIT_API qjit_status qjit_kernel_run_parallel(const qjit_kernel *kernel,
                                              const qjit_thread_pool *pool,
                                              qjit_dtype src_dtype,
                                              const void *src, size_t src_bytes,
                                              qjit_dtype dst_dtype, void *dst,
                                              size_t dst_bytes, size_t n,
                                              const qjit_kernel_params *params);
/* Elements [start, start + count) of a call of n elements, for callers
 * that split calls themselves: the buffers, params and checks are those
 * of qjit_kernel_run for n elements, each element gets the parameter of
 * its absolute position, and only the range's bytes of dst are written.
 * start must be a multiple of qjit_kernel_split_granularity's `split`;
 * ranges starting at multiples of its `row` run the JIT code (others the
 * scalar reference). */
QJIT_API qjit_status qjit_kernel_run_range(
    const qjit_kernel *kernel, qjit_dtype src_dtype, const void *src,
    size_t src_bytes, qjit_dtype dst_dtype, void *dst, size_t dst_bytes,
    size_t n, size_t start, size_t count, const qjit_kernel_params *params);
/* Where ranges may start (`split`: elements per byte of packed storage, 1
 * otherwise) and where they run the JIT code (`row`: the layout's period,
 * or with runtime parameters one block row of the outermost dim). params
 * supplies dynamic extents (may be NULL when there are none). */
QJIT_API qjit_status qjit_kernel_split_granularity(
    const qjit_kernel *kernel, const qjit_kernel_params *params, size_t *split,
    size_t *row);

/* A pthreadpool (the pool XNNPACK uses) for callers without a pool of
 * their own; its threads start here and stop at destroy. threads 0: one
 * per core. */
typedef struct qjit_default_pool qjit_default_pool;
QJIT_API qjit_status qjit_default_pool_create(size_t threads,
                                              qjit_default_pool **pool);
/* NULL is ignored. No run may be using the pool. */
QJIT_API void qjit_default_pool_destroy(qjit_default_pool *pool);
/* The interface to pass to qjit_kernel_run_parallel (set interface->size
 * first); valid while the pool is. */
QJIT_API qjit_status qjit_default_pool_interface(const qjit_default_pool *pool,
                                                 qjit_thread_pool *interface);

/* Logging. The library's messages (spdlog loggers "qjit", "qjit.cache" and
 * "qjit.jit", docs/runtime.md) go to stderr at spdlog's default level
 * (info) unless changed here. Both calls are thread-safe and take effect
 * for every thread at once. */
typedef enum qjit_log_level {
  QJIT_LOG_TRACE = 0,
  QJIT_LOG_DEBUG = 1, /* one line per compile, backend choices */
  QJIT_LOG_INFO = 2,
  QJIT_LOG_WARN = 3,
  QJIT_LOG_ERROR = 4,
  QJIT_LOG_OFF = 5
} qjit_log_level;

/* Receives one message: its level (never QJIT_LOG_OFF) and text, without a
 * trailing newline, valid during the call only. Calls are serialized; the
 * callback must not call qjit functions. */
typedef void (*qjit_log_callback)(qjit_log_level level, const char *message,
                                  void *user);

/* Messages below `level` are dropped; QJIT_LOG_OFF drops all.
 * QJIT_ERROR_INVALID_ARGUMENT for an out-of-range level. */
QJIT_API qjit_status qjit_log_set_level(qjit_log_level level);
/* Sends every message to callback(level, message, user) instead of stderr;
 * NULL restores stderr. When it returns, no message goes to the previous
 * destination any more. (A C++ application that registered its own spdlog
 * logger under one of the names keeps that logger's sinks.) Fails only
 * with QJIT_ERROR_OUT_OF_MEMORY. */
QJIT_API qjit_status qjit_log_set_callback(qjit_log_callback callback,
                                           void *user);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QJIT_QJIT_H */
