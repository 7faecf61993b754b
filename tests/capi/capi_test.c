/*===- capi_test.c - The C API, from C ------------------------------------===*
 *
 * Pure C11: every entry point's success and every error path. Uses the
 * reference backend where exact results matter, so it runs anywhere.
 *
 *===----------------------------------------------------------------------===*/
#include "qjit/qjit.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,  \
              __LINE__, #cond, qjit_last_error());                             \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* The call failed with `status` and said something containing `text`. */
#define CHECK_ERROR(call, status, text)                                        \
  do {                                                                         \
    CHECK((call) == (status));                                                 \
    CHECK(strstr(qjit_last_error(), (text)) != NULL);                          \
  } while (0)

static const char kType[] = "!quant.uniform<i8:f32, 2.0:10>";

static qjit_runtime *create_runtime(qjit_backend backend) {
  qjit_runtime_options options;
  qjit_runtime_options_init(&options);
  options.backend = backend;
  qjit_runtime *runtime = NULL;
  CHECK(qjit_runtime_create(&options, &runtime) == QJIT_OK);
  CHECK(runtime != NULL);
  CHECK(strcmp(qjit_last_error(), "") == 0);
  return runtime;
}

static void test_runtime_create(void) {
  qjit_runtime_options options;
  qjit_runtime *runtime = NULL;
  CHECK(strlen(qjit_version()) > 0);
  qjit_runtime_options_init(NULL); /* ignored */

  CHECK_ERROR(qjit_runtime_create(NULL, NULL), QJIT_ERROR_INVALID_ARGUMENT,
              "runtime output");
  qjit_runtime_options_init(&options);
  options.backend = (qjit_backend)99;
  CHECK_ERROR(qjit_runtime_create(&options, &runtime),
              QJIT_ERROR_INVALID_ARGUMENT, "backend");
  qjit_runtime_options_init(&options);
  options.semantics = (qjit_semantics)-1;
  CHECK_ERROR(qjit_runtime_create(&options, &runtime),
              QJIT_ERROR_INVALID_ARGUMENT, "semantics");
  qjit_runtime_options_init(&options);
  options.max_isa = "avx9000";
  CHECK_ERROR(qjit_runtime_create(&options, &runtime),
              QJIT_ERROR_INVALID_ARGUMENT, "avx9000");
  CHECK(runtime == NULL); /* outputs untouched on error */

  CHECK(qjit_runtime_create(NULL, &runtime) == QJIT_OK);
  qjit_runtime_destroy(runtime);
  qjit_runtime_destroy(NULL);
}

static void test_compile(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_kernel *kernel = NULL;
  CHECK_ERROR(qjit_kernel_compile(NULL, kType, QJIT_OP_QCAST, NULL, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "runtime");
  CHECK_ERROR(qjit_kernel_compile(runtime, NULL, QJIT_OP_QCAST, NULL, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "type");
  CHECK_ERROR(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, NULL, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "kernel output");
  CHECK_ERROR(qjit_kernel_compile(runtime, kType, (qjit_op)7, NULL, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "op");
  CHECK_ERROR(qjit_kernel_compile(runtime, "!quant.uniform<i8:f32, 2:10>",
                                  QJIT_OP_QCAST, NULL, &kernel),
              QJIT_ERROR_INVALID_TYPE, "^");
  CHECK_ERROR(qjit_kernel_compile(runtime, "!quant.any<i8:f32>", QJIT_OP_QCAST,
                                  NULL, &kernel),
              QJIT_ERROR_UNSUPPORTED, "quant.any");
  CHECK(kernel == NULL);

  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, NULL, &kernel) ==
        QJIT_OK);
  CHECK(kernel != NULL);
  CHECK(qjit_kernel_name(kernel) != NULL);
  CHECK(qjit_kernel_name(NULL) == NULL);

  qjit_cache_stats stats;
  CHECK_ERROR(qjit_runtime_stats(NULL, &stats), QJIT_ERROR_INVALID_ARGUMENT,
              "runtime");
  CHECK_ERROR(qjit_runtime_stats(runtime, NULL), QJIT_ERROR_INVALID_ARGUMENT,
              "stats");
  qjit_kernel *again = NULL;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, NULL, &again) ==
        QJIT_OK);
  CHECK(qjit_runtime_stats(runtime, &stats) == QJIT_OK);
  CHECK(stats.compiles == 1 && stats.hits == 1 && stats.kernels == 1);
  qjit_kernel_release(again);

  /* Kernels outlive their runtime. */
  qjit_runtime_destroy(runtime);
  float x[3] = {0.0f, 2.0f, -2.0f};
  int8_t q[3] = {0, 0, 0};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 3, NULL) == QJIT_OK);
  CHECK(q[0] == 10 && q[1] == 11 && q[2] == 9);
  qjit_kernel_release(kernel);
  qjit_kernel_release(NULL);
}

static void test_queries(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, "!quant.uniform<u4:f16, 0.5:3>",
                            QJIT_OP_DCAST, NULL, &kernel) == QJIT_OK);
  qjit_dtype src, dst;
  CHECK_ERROR(qjit_kernel_dtypes(NULL, &src, &dst), QJIT_ERROR_INVALID_ARGUMENT,
              "kernel");
  CHECK_ERROR(qjit_kernel_dtypes(kernel, NULL, &dst),
              QJIT_ERROR_INVALID_ARGUMENT, "source");
  CHECK_ERROR(qjit_kernel_dtypes(kernel, &src, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "destination");
  CHECK(qjit_kernel_dtypes(kernel, &src, &dst) == QJIT_OK);
  CHECK(src == QJIT_DTYPE_BYTES && dst == QJIT_DTYPE_F16); /* packed u4 */

  size_t in = 0, out = 0;
  CHECK_ERROR(qjit_kernel_buffer_bytes(NULL, 3, &in, &out),
              QJIT_ERROR_INVALID_ARGUMENT, "kernel");
  CHECK_ERROR(qjit_kernel_buffer_bytes(kernel, 3, NULL, &out),
              QJIT_ERROR_INVALID_ARGUMENT, "source");
  CHECK_ERROR(qjit_kernel_buffer_bytes(kernel, 3, &in, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "destination");
  CHECK(qjit_kernel_buffer_bytes(kernel, 3, &in, &out) == QJIT_OK);
  CHECK(in == 2 && out == 6);
  CHECK(qjit_kernel_buffer_bytes(kernel, SIZE_MAX, &in, &out) != QJIT_OK);

  int takes = -1;
  CHECK_ERROR(qjit_kernel_takes_params(NULL, &takes),
              QJIT_ERROR_INVALID_ARGUMENT, "kernel");
  CHECK_ERROR(qjit_kernel_takes_params(kernel, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "output");
  CHECK(qjit_kernel_takes_params(kernel, &takes) == QJIT_OK && takes == 0);

  qjit_kernel_fn fn = NULL;
  qjit_param_kernel_fn param_fn = NULL;
  CHECK_ERROR(qjit_kernel_function(NULL, &fn), QJIT_ERROR_INVALID_ARGUMENT,
              "kernel");
  CHECK_ERROR(qjit_kernel_function(kernel, NULL), QJIT_ERROR_INVALID_ARGUMENT,
              "function output");
  CHECK_ERROR(qjit_kernel_function(kernel, &fn), QJIT_ERROR_UNSUPPORTED,
              "reference");
  CHECK_ERROR(qjit_kernel_param_function(NULL, &param_fn),
              QJIT_ERROR_INVALID_ARGUMENT, "kernel");
  CHECK_ERROR(qjit_kernel_param_function(kernel, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "function output");
  CHECK_ERROR(qjit_kernel_param_function(kernel, &param_fn),
              QJIT_ERROR_INVALID_ARGUMENT, "takes no params");
  CHECK(fn == NULL && param_fn == NULL);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

static void test_run_errors(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, NULL, &kernel) ==
        QJIT_OK);
  float x[4] = {0.0f, 2.0f, -2.0f, 4.0f};
  int8_t q[4] = {0, 0, 0, 0};
  CHECK_ERROR(qjit_kernel_run(NULL, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8,
                              q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "kernel");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F64, x, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "needs f32");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_U8, q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "needs i8");
  CHECK_ERROR(qjit_kernel_run(kernel, (qjit_dtype)42, x, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "invalid");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, 8, QJIT_DTYPE_I8, q,
                              sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "source buffer");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, q, 3, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "destination buffer");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, NULL, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "null");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, NULL, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "null");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, (int8_t *)x, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "overlap");
  CHECK(q[0] == 0 && q[3] == 0); /* dst untouched by failed calls */
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, NULL, 0, QJIT_DTYPE_I8, NULL, 0,
                        0, NULL) == QJIT_OK);
  qjit_kernel_release(kernel);

  /* Per-axis: n must cover whole channel groups. */
  CHECK(qjit_kernel_compile(
            runtime, "tensor<2x2x!quant.uniform<i8:f32:1, {2.0:1, 4.0:2}>>",
            QJIT_OP_QCAST, NULL, &kernel) == QJIT_OK);
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 3, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "");
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 4, NULL) == QJIT_OK);
  CHECK(q[0] == 1 && q[1] == 2 && q[2] == 0 && q[3] == 3); /* 2.5 -> 2 */
  qjit_kernel_release(kernel);

  /* Runtime parameters: params are required, and used. */
  qjit_compile_options options;
  qjit_compile_options_init(&options);
  options.runtime_parameters = 1;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, &options, &kernel) ==
        QJIT_OK);
  int takes = 0;
  CHECK(qjit_kernel_takes_params(kernel, &takes) == QJIT_OK && takes == 1);
  qjit_kernel_fn fn = NULL;
  CHECK_ERROR(qjit_kernel_function(kernel, &fn), QJIT_ERROR_INVALID_ARGUMENT,
              "takes params");
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 4, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "");
  float scale = 4.0f;
  int64_t zero_point = 1;
  qjit_kernel_params params = {NULL, &scale, &zero_point, 0, 1, 1};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 4, &params) == QJIT_OK);
  CHECK(q[0] == 1 && q[1] == 2 && q[2] == 0 && q[3] == 2); /* 0.5 -> even */
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* qjit_compile_options.saturate: float storage overflows to NaN only when
 * asked (465 is beyond f8E4M3FN's largest 448 and its tie 464). */
static void test_saturate_option(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  static const char fp8[] = "!quant.uniform<f8E4M3FN:f32, 1.0>";
  const float x[3] = {464.0f, 465.0f, -1.0e9f};
  const qjit_saturate modes[3] = {QJIT_SATURATE_DEFAULT, QJIT_SATURATE_ON,
                                  QJIT_SATURATE_OFF};
  const uint8_t expected[3][3] = {
      {0x7E, 0x7E, 0xFE}, {0x7E, 0x7E, 0xFE}, {0x7E, 0x7F, 0xFF}};
  for (int m = 0; m < 3; ++m) {
    qjit_compile_options options;
    qjit_compile_options_init(&options);
    options.saturate = modes[m];
    qjit_kernel *kernel = NULL;
    CHECK(qjit_kernel_compile(runtime, fp8, QJIT_OP_QCAST, &options, &kernel) ==
          QJIT_OK);
    uint8_t codes[3] = {0};
    CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_BYTES,
                          codes, sizeof codes, 3, NULL) == QJIT_OK);
    CHECK(memcmp(codes, expected[m], sizeof codes) == 0);
    qjit_kernel_release(kernel);
  }
  qjit_kernel *kernel = NULL;
  qjit_compile_options bad;
  qjit_compile_options_init(&bad);
  bad.saturate = (qjit_saturate)3;
  CHECK_ERROR(qjit_kernel_compile(runtime, fp8, QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "saturate");
  bad.saturate = (qjit_saturate)-1;
  CHECK_ERROR(qjit_kernel_compile(runtime, fp8, QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "saturate");
  CHECK(kernel == NULL);
  /* Integer storage always saturates: the option does not change it. */
  qjit_compile_options off;
  qjit_compile_options_init(&off);
  off.saturate = QJIT_SATURATE_OFF;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, &off, &kernel) ==
        QJIT_OK);
  int8_t q[1] = {0};
  const float big[1] = {1.0e9f};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, big, sizeof big, QJIT_DTYPE_I8,
                        q, sizeof q, 1, NULL) == QJIT_OK);
  CHECK(q[0] == 127);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* qjit_compile_options.scale_format: MXFP4 blocks with E8M0 byte scales
 * (OCP MX: 2^(b - 127), 255 NaN), named by param_info's scale_dtype; a
 * caller of the previous version (size without the field) gets EXPRESSED. */
static void test_scale_format(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_AUTO);
  static const char mxfp4[] =
      "tensor<2x32x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>";
  qjit_compile_options options;
  qjit_compile_options_init(&options);
  CHECK(options.scale_format == QJIT_SCALE_FORMAT_EXPRESSED);
  options.runtime_parameters = 1;
  options.scale_format = QJIT_SCALE_FORMAT_E8M0;
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_DCAST, &options, &kernel) ==
        QJIT_OK);
  qjit_param_info info;
  info.size = sizeof info;
  CHECK(qjit_kernel_param_info(kernel, &info) == QJIT_OK);
  CHECK(info.scale_dtype == QJIT_DTYPE_U8 && info.scale_count == 2);
  uint8_t codes[32];
  for (int i = 0; i < 32; ++i)
    codes[i] = 0x72;                    /* 1.0 then 6.0 */
  const uint8_t scales[2] = {126, 255}; /* 0.5, NaN */
  float x[64];
  qjit_kernel_params params = {NULL, scales, NULL, 0, 2, 0};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_BYTES, codes, sizeof codes,
                        QJIT_DTYPE_F32, x, sizeof x, 64, &params) == QJIT_OK);
  CHECK(x[0] == 0.5f && x[1] == 3.0f && x[31] == 3.0f);
  CHECK(isnan(x[32]) && isnan(x[63]));
  qjit_kernel_release(kernel);

  qjit_compile_options bad = options;
  bad.scale_format = (qjit_scale_format)5;
  CHECK_ERROR(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_DCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "scale_format");
  bad.scale_format = QJIT_SCALE_FORMAT_E8M0;
  bad.runtime_parameters = 0;
  CHECK_ERROR(qjit_kernel_compile(runtime, kType, QJIT_OP_DCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "runtime parameters");
  /* The previous version ended after `dynamic`: E8M0 past it is not read. */
  qjit_compile_options previous = options;
  previous.size = offsetof(qjit_compile_options, scale_format);
  CHECK(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_DCAST, &previous,
                            &kernel) == QJIT_OK);
  CHECK(qjit_kernel_param_info(kernel, &info) == QJIT_OK);
  CHECK(info.scale_dtype == QJIT_DTYPE_F32);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* Whatever backend auto picks, the raw function (when there is one) and
 * the checked run agree. */
static void test_native_function(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_AUTO);
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_DCAST, NULL, &kernel) ==
        QJIT_OK);
  int8_t q[3] = {10, 11, 9};
  float y[3] = {0};
  qjit_kernel_fn fn = NULL;
  qjit_status status = qjit_kernel_function(kernel, &fn);
  CHECK(status == QJIT_OK || status == QJIT_ERROR_UNSUPPORTED);
  if (status == QJIT_OK) {
    fn(q, y, 3);
    CHECK(y[0] == 0.0f && y[1] == 2.0f && y[2] == -2.0f);
  }
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                        sizeof y, 3, NULL) == QJIT_OK);
  CHECK(y[0] == 0.0f && y[1] == 2.0f && y[2] == -2.0f);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* QJIT_SEMANTICS_PYTORCH dequantizes per-axis types as PyTorch's
 * per-channel dequantize: in double with the double scale, then to float
 * (-72 * 0.7771 is one f32 ulp apart from the f32 product). */
static void test_pytorch_per_channel_dequantize(void) {
  static const char type[] =
      "tensor<1x2x!quant.uniform<i8:f32:1, {0.7771:-5, 0.1:3}>>";
  const int8_t q[2] = {-77, 100};
  const float inDouble[2] = {(float)((-77.0 + 5.0) * 0.7771),
                             (float)((100.0 - 3.0) * 0.1)};
  const float inFloat = (float)(-77 + 5) * 0.7771f;
  CHECK(inDouble[0] != inFloat);
  const qjit_semantics semantics[2] = {QJIT_SEMANTICS_PYTORCH,
                                       QJIT_SEMANTICS_DEFAULT};
  for (int s = 0; s < 2; ++s) {
    qjit_runtime_options options;
    qjit_runtime_options_init(&options);
    options.semantics = semantics[s];
    qjit_runtime *runtime = NULL;
    CHECK(qjit_runtime_create(&options, &runtime) == QJIT_OK);
    qjit_kernel *kernel = NULL;
    CHECK(qjit_kernel_compile(runtime, type, QJIT_OP_DCAST, NULL, &kernel) ==
          QJIT_OK);
    float y[2] = {0};
    CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                          sizeof y, 2, NULL) == QJIT_OK);
    CHECK(y[0] == (s == 0 ? inDouble[0] : inFloat));
    if (s == 0)
      CHECK(y[1] == inDouble[1]);
    qjit_kernel_release(kernel);
    qjit_runtime_destroy(runtime);
  }
}

/* The options structs carry their size: zero and too small are rejected, a
 * first-version caller gets defaults for later fields, and a caller built
 * against a newer header (a bigger struct) is accepted. */
typedef struct compile_options_v1 {
  size_t size;
  int unpacked;
  int runtime_parameters;
} compile_options_v1;

static void test_options_size(void) {
  qjit_runtime *runtime = NULL;
  qjit_runtime_options runtime_options;
  qjit_runtime_options_init(&runtime_options);
  CHECK(runtime_options.size == sizeof runtime_options);
  runtime_options.size = 0;
  CHECK_ERROR(qjit_runtime_create(&runtime_options, &runtime),
              QJIT_ERROR_INVALID_ARGUMENT, "qjit_runtime_options_init");
  runtime_options.size = sizeof(size_t);
  CHECK_ERROR(qjit_runtime_create(&runtime_options, &runtime),
              QJIT_ERROR_INVALID_ARGUMENT, "first version");
  CHECK(runtime == NULL);
  struct {
    qjit_runtime_options options;
    char future[16]; /* fields of a newer header, unknown here */
  } newer;
  memset(&newer, 0x7F, sizeof newer);
  qjit_runtime_options_init(&newer.options);
  newer.options.backend = QJIT_BACKEND_REFERENCE;
  newer.options.size = sizeof newer;
  CHECK(qjit_runtime_create(&newer.options, &runtime) == QJIT_OK);

  qjit_compile_options options;
  qjit_compile_options_init(NULL); /* ignored */
  qjit_compile_options_init(&options);
  CHECK(options.size == sizeof options && options.unpacked == 0 &&
        options.runtime_parameters == 0 &&
        options.saturate == QJIT_SATURATE_DEFAULT);
  qjit_kernel *kernel = NULL;
  options.size = 0;
  CHECK_ERROR(
      qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, &options, &kernel),
      QJIT_ERROR_INVALID_ARGUMENT, "qjit_compile_options_init");
  options.size = sizeof(compile_options_v1) - 1;
  CHECK_ERROR(
      qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, &options, &kernel),
      QJIT_ERROR_INVALID_ARGUMENT, "first version");
  CHECK(kernel == NULL);

  /* A first-version caller: its fields are read, saturate is not (the
   * bytes after its struct say "off", which would make 465 NaN). */
  struct {
    compile_options_v1 options;
    qjit_saturate after;
  } old;
  old.options.size = sizeof old.options;
  old.options.unpacked = 1;
  old.options.runtime_parameters = 0;
  old.after = QJIT_SATURATE_OFF;
  const qjit_compile_options *as_current =
      (const qjit_compile_options *)(const void *)&old.options;
  CHECK(qjit_kernel_compile(runtime, "!quant.uniform<u4:f32, 0.5:3>",
                            QJIT_OP_DCAST, as_current, &kernel) == QJIT_OK);
  qjit_dtype src, dst;
  CHECK(qjit_kernel_dtypes(kernel, &src, &dst) == QJIT_OK);
  CHECK(src == QJIT_DTYPE_U8); /* unpacked was read */
  qjit_kernel_release(kernel);
  kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, "!quant.uniform<f8E4M3FN:f32, 1.0>",
                            QJIT_OP_QCAST, as_current, &kernel) == QJIT_OK);
  const float x[1] = {465.0f};
  uint8_t code[1] = {0};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_BYTES,
                        code, sizeof code, 1, NULL) == QJIT_OK);
  CHECK(code[0] == 0x7E); /* saturated: the default */
  qjit_kernel_release(kernel);
  kernel = NULL;
  old.options.runtime_parameters = 1;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, as_current,
                            &kernel) == QJIT_OK);
  int takes = 0;
  CHECK(qjit_kernel_takes_params(kernel, &takes) == QJIT_OK && takes == 1);
  qjit_kernel_release(kernel);
  kernel = NULL;

  struct {
    qjit_compile_options options;
    char future[16];
  } newer_compile;
  memset(&newer_compile, 0x7F, sizeof newer_compile);
  qjit_compile_options_init(&newer_compile.options);
  newer_compile.options.size = sizeof newer_compile;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST,
                            &newer_compile.options, &kernel) == QJIT_OK);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* Compiles `type` with runtime parameters (or baked ones) and returns its
 * parameter info. */
static qjit_kernel *compile_with(qjit_runtime *runtime, const char *type,
                                 qjit_op op, int runtime_parameters,
                                 qjit_param_info *info) {
  qjit_compile_options options;
  qjit_compile_options_init(&options);
  options.runtime_parameters = runtime_parameters;
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, type, op, &options, &kernel) == QJIT_OK);
  if (!kernel)
    return NULL;
  memset(info, 0xA5, sizeof *info);
  info->size = sizeof *info;
  CHECK(qjit_kernel_param_info(kernel, info) == QJIT_OK);
  CHECK(info->size == sizeof *info);
  CHECK(info->zero_point_dtype == QJIT_DTYPE_I64);
  return kernel;
}

static void test_param_info(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_param_info info;

  /* Baked per-tensor: nothing is read. */
  qjit_kernel *kernel = compile_with(runtime, kType, QJIT_OP_QCAST, 0, &info);
  CHECK(info.extent_count == 0 && info.scale_count == 0 &&
        info.zero_point_count == 0);
  CHECK(info.scale_dtype == QJIT_DTYPE_F32);
  CHECK(info.rank == 0 && info.dims == NULL);

  info.size = 0;
  CHECK_ERROR(qjit_kernel_param_info(kernel, &info),
              QJIT_ERROR_INVALID_ARGUMENT, "size is 0");
  info.size = sizeof(size_t);
  CHECK_ERROR(qjit_kernel_param_info(kernel, &info),
              QJIT_ERROR_INVALID_ARGUMENT, "first version");
  CHECK(info.size == sizeof(size_t)); /* untouched */
  CHECK_ERROR(qjit_kernel_param_info(kernel, NULL), QJIT_ERROR_INVALID_ARGUMENT,
              "info");
  CHECK_ERROR(qjit_kernel_param_info(NULL, &info), QJIT_ERROR_INVALID_ARGUMENT,
              "kernel");
  /* A newer caller's bigger struct: only what this version knows is
   * written. */
  struct {
    qjit_param_info info;
    unsigned char future[8];
  } newer;
  memset(&newer, 0x5A, sizeof newer);
  newer.info.size = sizeof newer;
  CHECK(qjit_kernel_param_info(kernel, &newer.info) == QJIT_OK);
  CHECK(newer.info.size == sizeof newer && newer.info.rank == 0);
  CHECK(newer.future[0] == 0x5A && newer.future[7] == 0x5A);
  qjit_kernel_release(kernel);

  /* Runtime per-tensor: one of each, shape rank 0. */
  kernel = compile_with(runtime, "!quant.uniform<i8:f16, ?>", QJIT_OP_DCAST, 1,
                        &info);
  CHECK(info.extent_count == 0 && info.scale_count == 1 &&
        info.zero_point_count == 1);
  CHECK(info.scale_dtype == QJIT_DTYPE_F16);
  CHECK(info.rank == 0 && info.dims == NULL);
  qjit_kernel_release(kernel);

  /* Per-axis over the inner dim, written with `?`: 8 channels. */
  kernel = compile_with(runtime, "tensor<4x8x!quant.uniform<i8:f32:1, ?>>",
                        QJIT_OP_QCAST, 1, &info);
  CHECK(info.extent_count == 0 && info.scale_count == 8 &&
        info.zero_point_count == 8);
  CHECK(info.rank == 1 && info.dims != NULL && info.dims[0] == 8);
  qjit_kernel_release(kernel);

  /* Per-axis over the outer dim: 4 channels of 8. */
  kernel = compile_with(runtime, "tensor<4x8x!quant.uniform<i8:bf16:0, ?>>",
                        QJIT_OP_DCAST, 1, &info);
  CHECK(info.scale_count == 4 && info.scale_dtype == QJIT_DTYPE_BF16);
  CHECK(info.rank == 1 && info.dims != NULL && info.dims[0] == 4);
  qjit_kernel_release(kernel);

  /* Blockwise: the grid of blocks; a dim without blocks collapses away. */
  kernel = compile_with(runtime,
                        "tensor<4x3x8x!quant.uniform<i8:f32:{0:1, 2:4}, ?>>",
                        QJIT_OP_QCAST, 1, &info);
  CHECK(info.extent_count == 0 && info.scale_count == 8 &&
        info.zero_point_count == 8);
  CHECK(info.rank == 2 && info.dims != NULL && info.dims[0] == 4 &&
        info.dims[1] == 2);
  qjit_kernel_release(kernel);

  /* Baked scales with a dynamic inner extent: one extent, no scales. */
  kernel = compile_with(
      runtime, "tensor<4x?x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0, 4.0}>>",
      QJIT_OP_QCAST, 0, &info);
  CHECK(info.extent_count == 1 && info.scale_count == 0 &&
        info.zero_point_count == 0);
  CHECK(info.rank == 1 && info.dims != NULL && info.dims[0] == 4);
  qjit_kernel_release(kernel);

  /* `?` has nothing to bake. */
  kernel = NULL;
  CHECK_ERROR(qjit_kernel_compile(runtime,
                                  "tensor<4x8x!quant.uniform<i8:f32:1, ?>>",
                                  QJIT_OP_QCAST, NULL, &kernel),
              QJIT_ERROR_UNSUPPORTED, "runtime parameters");
  CHECK(kernel == NULL);
  qjit_runtime_destroy(runtime);
}

/* The call fails with INVALID_ARGUMENT saying `text`, dst untouched. */
static void check_rejected(const qjit_kernel *kernel, qjit_dtype src_dtype,
                           const void *src, size_t src_bytes,
                           qjit_dtype dst_dtype, void *dst, size_t dst_bytes,
                           size_t n, const qjit_kernel_params *params,
                           const char *text) {
  unsigned char before[256];
  CHECK(dst_bytes <= sizeof before);
  memcpy(before, dst, dst_bytes);
  CHECK_ERROR(qjit_kernel_run(kernel, src_dtype, src, src_bytes, dst_dtype, dst,
                              dst_bytes, n, params),
              QJIT_ERROR_INVALID_ARGUMENT, text);
  CHECK(memcmp(before, dst, dst_bytes) == 0);
}

/* 8 parameters, as the runtime-parameter layouts below read them and as
 * the baked types spell them. */
static const float kScales[8] = {0.5f,   0.25f, 1.0f,  2.0f,
                                 0.125f, 4.0f,  0.75f, 1.5f};
static const int64_t kZeroPoints[8] = {1, -2, 0, 3, -4, 5, -6, 7};

/* Per-axis qcast with 8 runtime channels: short arrays are rejected, exact
 * and longer ones accepted, and the result is bit for bit the reference's
 * for the baked type. */
static void test_per_axis_param_lengths(void) {
  qjit_runtime *jit = create_runtime(QJIT_BACKEND_AUTO);
  qjit_runtime *reference = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_param_info info;
  qjit_kernel *kernel = compile_with(
      jit, "tensor<4x8x!quant.uniform<i8:f32:1, ?>>", QJIT_OP_QCAST, 1, &info);
  CHECK(info.scale_count == 8);
  qjit_kernel *baked = NULL;
  CHECK(qjit_kernel_compile(
            reference,
            "tensor<4x8x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-2, 1.0:0, "
            "2.0:3, 0.125:-4, 4.0:5, 0.75:-6, 1.5:7}>>",
            QJIT_OP_QCAST, NULL, &baked) == QJIT_OK);
  float x[32];
  for (int i = 0; i < 32; ++i)
    x[i] = (float)(i - 16) * 0.37f;
  int8_t q[32], expected[32];
  memset(q, 0x55, sizeof q);

  qjit_kernel_params params = {NULL, kScales, kZeroPoints, 0, 1, 8};
  check_rejected(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                 sizeof q, 32, &params, "reads 8 scales, given 1");
  params.scale_count = 7;
  check_rejected(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                 sizeof q, 32, &params, "reads 8 scales, given 7");
  params.scale_count = 8;
  params.zero_point_count = 0;
  check_rejected(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                 sizeof q, 32, &params, "reads 8 zero points, given 0");
  /* No elements: no parameters read. */
  qjit_kernel_params none = {NULL, NULL, NULL, 0, 0, 0};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, NULL, 0, QJIT_DTYPE_I8, NULL, 0,
                        0, &none) == QJIT_OK);

  params.zero_point_count = 8;
  CHECK(qjit_kernel_run(baked, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8,
                        expected, sizeof expected, 32, NULL) == QJIT_OK);
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 32, &params) == QJIT_OK);
  CHECK(memcmp(q, expected, sizeof q) == 0);

  /* Longer arrays: the first 8 entries are used. */
  float long_scales[12];
  memcpy(long_scales, kScales, sizeof kScales);
  for (int i = 8; i < 12; ++i)
    long_scales[i] = 1000.0f;
  qjit_kernel_params longer = {NULL, long_scales, kZeroPoints, 0, 12, 8};
  memset(q, 0, sizeof q);
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 32, &longer) == QJIT_OK);
  CHECK(memcmp(q, expected, sizeof q) == 0);

  /* Zero points NULL means all zero, whatever the count says. */
  qjit_kernel_params scales_only = {NULL, kScales, NULL, 0, 8, 0};
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 32, &scales_only) == QJIT_OK);
  qjit_kernel_release(baked);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(reference);
  qjit_runtime_destroy(jit);
}

/* Blockwise dcast (a 2x4 grid of 2x4 blocks): as the per-axis case. */
static void test_blockwise_param_lengths(void) {
  qjit_runtime *jit = create_runtime(QJIT_BACKEND_AUTO);
  qjit_runtime *reference = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_param_info info;
  qjit_kernel *kernel =
      compile_with(jit, "tensor<4x16x!quant.uniform<i8:f32:{0:2, 1:4}, ?>>",
                   QJIT_OP_DCAST, 1, &info);
  CHECK(info.scale_count == 8 && info.rank == 2 && info.dims != NULL &&
        info.dims[0] == 2 && info.dims[1] == 4);
  qjit_kernel *baked = NULL;
  CHECK(qjit_kernel_compile(
            reference,
            "tensor<4x16x!quant.uniform<i8:f32:{0:2, 1:4}, {{0.5:1, "
            "0.25:-2, 1.0:0, 2.0:3}, {0.125:-4, 4.0:5, 0.75:-6, 1.5:7}}>>",
            QJIT_OP_DCAST, NULL, &baked) == QJIT_OK);
  int8_t q[64];
  for (int i = 0; i < 64; ++i)
    q[i] = (int8_t)(i * 7 - 100);
  float y[64], expected[64];
  memset(y, 0x55, sizeof y);

  qjit_kernel_params params = {NULL, kScales, kZeroPoints, 0, 7, 8};
  check_rejected(kernel, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                 sizeof y, 64, &params, "reads 8 scales, given 7");
  params.scale_count = 8;
  params.zero_point_count = 2;
  check_rejected(kernel, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                 sizeof y, 64, &params, "reads 8 zero points, given 2");
  params.zero_point_count = 8;
  CHECK(qjit_kernel_run(baked, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32,
                        expected, sizeof expected, 64, NULL) == QJIT_OK);
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                        sizeof y, 64, &params) == QJIT_OK);
  CHECK(memcmp(y, expected, sizeof y) == 0);
  qjit_kernel_release(baked);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(reference);
  qjit_runtime_destroy(jit);
}

/* A dynamic extent must be given: the extents array is counted too. */
static void test_extent_lengths(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_param_info info;
  qjit_kernel *kernel =
      compile_with(runtime, "tensor<2x?x!quant.uniform<i8:f32:0, {2.0, 4.0}>>",
                   QJIT_OP_QCAST, 0, &info);
  CHECK(info.extent_count == 1);
  const float x[4] = {2.0f, 4.0f, 4.0f, 8.0f};
  int8_t q[4] = {0, 0, 0, 0};
  const int64_t inner[1] = {2};
  qjit_kernel_params params = {inner, NULL, NULL, 0, 0, 0};
  check_rejected(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                 sizeof q, 4, &params, "reads 1 extent, given 0");
  params.extent_count = 1;
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, q,
                        sizeof q, 4, &params) == QJIT_OK);
  CHECK(q[0] == 1 && q[1] == 2 && q[2] == 1 && q[3] == 2);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* What the log callback saw. */
typedef struct log_record {
  int calls;
  int debug_calls;
  int bad_calls;
  char text[4096];
} log_record;

static void record_log(qjit_log_level level, const char *message, void *user) {
  log_record *record = (log_record *)user;
  ++record->calls;
  if (level == QJIT_LOG_DEBUG)
    ++record->debug_calls;
  if (level == QJIT_LOG_OFF || message == NULL)
    ++record->bad_calls;
  size_t used = strlen(record->text);
  if (message && used + strlen(message) + 2 < sizeof record->text) {
    strcat(record->text, message);
    strcat(record->text, "\n");
  }
}

/* Compiles a fresh kernel (a new runtime: nothing cached) and releases it;
 * its name goes to `name`. */
static void compile_fresh(char *name, size_t name_size) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_REFERENCE);
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, "!quant.uniform<u8:f32, 0.125:3>",
                            QJIT_OP_DCAST, NULL, &kernel) == QJIT_OK);
  if (kernel && name) {
    strncpy(name, qjit_kernel_name(kernel), name_size - 1);
    name[name_size - 1] = '\0';
  }
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

static void test_logging(void) {
  static log_record record;
  char name[256] = "";
  CHECK_ERROR(qjit_log_set_level((qjit_log_level)6),
              QJIT_ERROR_INVALID_ARGUMENT, "log level");
  CHECK_ERROR(qjit_log_set_level((qjit_log_level)-1),
              QJIT_ERROR_INVALID_ARGUMENT, "log level");

  CHECK(qjit_log_set_callback(record_log, &record) == QJIT_OK);
  CHECK(qjit_log_set_level(QJIT_LOG_DEBUG) == QJIT_OK);
  compile_fresh(name, sizeof name);
  CHECK(record.calls > 0 && record.debug_calls == record.calls);
  CHECK(record.bad_calls == 0);
  CHECK(strstr(record.text, "compiled") != NULL);
  CHECK(strstr(record.text, name) != NULL);
  CHECK(strstr(record.text, "reference") != NULL);
  CHECK(strchr(record.text, '\n') != NULL);

  /* Above the compile's level, and off: nothing arrives. */
  memset(&record, 0, sizeof record);
  CHECK(qjit_log_set_level(QJIT_LOG_INFO) == QJIT_OK);
  compile_fresh(NULL, 0);
  CHECK(qjit_log_set_level(QJIT_LOG_OFF) == QJIT_OK);
  compile_fresh(NULL, 0);
  CHECK(record.calls == 0);

  /* Back to stderr: the callback hears nothing more. */
  CHECK(qjit_log_set_callback(NULL, NULL) == QJIT_OK);
  CHECK(qjit_log_set_level(QJIT_LOG_WARN) == QJIT_OK);
  compile_fresh(NULL, 0);
  CHECK(record.calls == 0);

  /* And a callback again. */
  CHECK(qjit_log_set_callback(record_log, &record) == QJIT_OK);
  CHECK(qjit_log_set_level(QJIT_LOG_TRACE) == QJIT_OK);
  compile_fresh(NULL, 0);
  CHECK(record.debug_calls > 0);
  CHECK(qjit_log_set_callback(NULL, NULL) == QJIT_OK);
  CHECK(qjit_log_set_level(QJIT_LOG_INFO) == QJIT_OK);
}

/* Dynamic qcast: compiled with qjit_compile_options::dynamic, run with
 * qjit_kernel_run_dynamic, its parameters read back by a runtime-parameter
 * dcast (docs/semantics.md 11). */
static void test_dynamic(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_AUTO);
  const char *type = "tensor<2x4x!quant.uniform<i8:f32:0, ?>>";
  qjit_compile_options options;
  qjit_compile_options_init(&options);
  CHECK(options.dynamic == QJIT_DYNAMIC_NONE);
  options.dynamic = (qjit_dynamic)99;
  qjit_kernel *kernel = NULL;
  CHECK_ERROR(
      qjit_kernel_compile(runtime, type, QJIT_OP_QCAST, &options, &kernel),
      QJIT_ERROR_INVALID_ARGUMENT, "dynamic");
  options.dynamic = QJIT_DYNAMIC_ABSMAX;
  CHECK_ERROR(
      qjit_kernel_compile(runtime, type, QJIT_OP_DCAST, &options, &kernel),
      QJIT_ERROR_UNSUPPORTED, "qcast only");
  CHECK(qjit_kernel_compile(runtime, type, QJIT_OP_QCAST, &options, &kernel) ==
        QJIT_OK);
  qjit_param_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  CHECK(qjit_kernel_param_info(kernel, &info) == QJIT_OK);
  CHECK(info.scale_count == 2 && info.zero_point_count == 2 &&
        info.scale_dtype == QJIT_DTYPE_F32 && info.rank == 1 &&
        info.dims[0] == 2);

  const float x[8] = {127.0f, 1.0f, 2.0f, 3.0f, -254.0f, 4.0f, 6.0f, 0.0f};
  int8_t q[8];
  float scales[2] = {0, 0};
  int64_t zero_points[2] = {9, 9};
  memset(q, 0x55, sizeof q);
  qjit_param_outputs outputs = {scales, zero_points, 2, 2};
  CHECK_ERROR(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, q, sizeof q, 8, NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "qjit_kernel_run_dynamic");
  CHECK_ERROR(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                      QJIT_DTYPE_I8, q, sizeof q, 8, NULL,
                                      NULL),
              QJIT_ERROR_INVALID_ARGUMENT, "outputs");
  outputs.scale_count = 1;
  CHECK_ERROR(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                      QJIT_DTYPE_I8, q, sizeof q, 8, NULL,
                                      &outputs),
              QJIT_ERROR_INVALID_ARGUMENT, "scale");
  outputs.scale_count = 2;
  CHECK_ERROR(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                      QJIT_DTYPE_U8, q, sizeof q, 8, NULL,
                                      &outputs),
              QJIT_ERROR_INVALID_ARGUMENT, "dtype");
  CHECK(q[0] == 0x55 && scales[0] == 0 && zero_points[0] == 9);
  CHECK(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                QJIT_DTYPE_I8, q, sizeof q, 8, NULL,
                                &outputs) == QJIT_OK);
  static const int8_t kCodes[8] = {127, 1, 2, 3, -127, 2, 3, 0};
  CHECK(memcmp(q, kCodes, sizeof q) == 0);
  CHECK(scales[0] == 1.0f && scales[1] == 2.0f);
  CHECK(zero_points[0] == 0 && zero_points[1] == 0);

  qjit_kernel *dcast = compile_with(runtime, type, QJIT_OP_DCAST, 1, &info);
  float y[8];
  qjit_kernel_params params = {NULL, scales, zero_points, 0, 2, 2};
  CHECK(qjit_kernel_run(dcast, QJIT_DTYPE_I8, q, sizeof q, QJIT_DTYPE_F32, y,
                        sizeof y, 8, &params) == QJIT_OK);
  CHECK(y[0] == 127.0f && y[4] == -254.0f && y[5] == 4.0f && y[6] == 6.0f);
  CHECK_ERROR(qjit_kernel_run_dynamic(dcast, QJIT_DTYPE_I8, q, sizeof q,
                                      QJIT_DTYPE_F32, y, sizeof y, 8, NULL,
                                      &outputs),
              QJIT_ERROR_INVALID_ARGUMENT, "not a dynamic qcast");
  qjit_kernel_release(dcast);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);

  /* The PyTorch semantics select ATen's ChooseQuantizationParams. */
  qjit_runtime_options runtime_options;
  qjit_runtime_options_init(&runtime_options);
  runtime_options.semantics = QJIT_SEMANTICS_PYTORCH;
  CHECK(qjit_runtime_create(&runtime_options, &runtime) == QJIT_OK);
  options.dynamic = QJIT_DYNAMIC_MINMAX;
  kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, "!quant.uniform<u8:f32, ?>", QJIT_OP_QCAST,
                            &options, &kernel) == QJIT_OK);
  const float unit[2] = {-1.0f, 1.0f};
  uint8_t codes[2] = {0, 0};
  qjit_param_outputs one = {scales, zero_points, 1, 1};
  CHECK(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, unit, sizeof unit,
                                QJIT_DTYPE_U8, codes, sizeof codes, 2, NULL,
                                &one) == QJIT_OK);
  CHECK(scales[0] == (float)(2.0 / 255.0) && zero_points[0] == 128);
  CHECK(codes[0] == 1 && codes[1] == 255);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

/* QJIT_DYNAMIC_MX: f4E2M1FN codes and an E8M0 scale byte per group, the
 * power of two rounded as scale_rounding says (docs/semantics.md 11.8); a
 * caller of the previous version (size without the field) gets FLOOR. */
static void test_dynamic_mx(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_AUTO);
  static const char mxfp4[] = "!quant.uniform<f4E2M1FN:f32, ?>";
  const float x[4] = {7.0f, 5.0f, -2.5f, 0.2f};
  qjit_compile_options options;
  qjit_compile_options_init(&options);
  CHECK(options.scale_rounding == QJIT_SCALE_ROUNDING_FLOOR);
  options.dynamic = QJIT_DYNAMIC_MX;
  options.scale_rounding = QJIT_SCALE_ROUNDING_CEIL;
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_QCAST, &options, &kernel) ==
        QJIT_OK);
  qjit_param_info info;
  info.size = sizeof info;
  CHECK(qjit_kernel_param_info(kernel, &info) == QJIT_OK);
  CHECK(info.scale_dtype == QJIT_DTYPE_U8 && info.scale_count == 1);
  uint8_t codes[2] = {0, 0}, scale = 0;
  qjit_param_outputs outputs = {&scale, NULL, 1, 0};
  CHECK(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                QJIT_DTYPE_BYTES, codes, sizeof codes, 4, NULL,
                                &outputs) == QJIT_OK);
  /* ceil: 7 / 6 goes up to 2^1; 3.5, 2.5, -1.25 tie to 4, 2, -1. */
  CHECK(scale == 128 && codes[0] == 0x46 && codes[1] == 0x0A);
  qjit_kernel_release(kernel);

  qjit_compile_options previous = options;
  previous.size = offsetof(qjit_compile_options, scale_rounding);
  CHECK(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_QCAST, &previous,
                            &kernel) == QJIT_OK);
  CHECK(qjit_kernel_run_dynamic(kernel, QJIT_DTYPE_F32, x, sizeof x,
                                QJIT_DTYPE_BYTES, codes, sizeof codes, 4, NULL,
                                &outputs) == QJIT_OK);
  /* floor: 2^0; 7 saturates to 6, 5 ties to 4, -2.5 to -2. */
  CHECK(scale == 127 && codes[0] == 0x67 && codes[1] == 0x0C);
  qjit_kernel_release(kernel);

  /* The ggml semantics: llama.cpp's q8_0, an f16 d per group. */
  qjit_runtime_options ggml_options;
  qjit_runtime_options_init(&ggml_options);
  ggml_options.semantics = QJIT_SEMANTICS_GGML;
  qjit_runtime *ggml = NULL;
  CHECK(qjit_runtime_create(&ggml_options, &ggml) == QJIT_OK);
  qjit_compile_options absmax;
  qjit_compile_options_init(&absmax);
  absmax.dynamic = QJIT_DYNAMIC_ABSMAX;
  CHECK(qjit_kernel_compile(ggml, "!quant.uniform<i8:f32, ?>", QJIT_OP_QCAST,
                            &absmax, &kernel) == QJIT_OK);
  CHECK(qjit_kernel_param_info(kernel, &info) == QJIT_OK);
  CHECK(info.scale_dtype == QJIT_DTYPE_F16);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(ggml);

  qjit_compile_options bad = options;
  bad.scale_rounding = (qjit_scale_rounding)3;
  CHECK_ERROR(qjit_kernel_compile(runtime, mxfp4, QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "scale_rounding");
  bad = options;
  bad.dynamic = QJIT_DYNAMIC_ABSMAX;
  CHECK_ERROR(qjit_kernel_compile(runtime, "!quant.uniform<i8:f32, ?>",
                                  QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "mx");
  qjit_runtime_destroy(runtime);
}

/* A caller's pool that runs its chunks in reverse order on the calling
 * thread. */
static void run_reversed(void *pool, qjit_task_fn task, void *context,
                         size_t tasks) {
  (void)pool;
  while (tasks-- > 0)
    task(context, tasks);
}

static void test_parallel(void) {
  qjit_runtime *runtime = create_runtime(QJIT_BACKEND_AUTO);
  qjit_kernel *kernel = NULL;
  CHECK(qjit_kernel_compile(runtime, kType, QJIT_OP_QCAST, NULL, &kernel) ==
        QJIT_OK);
  enum { kN = (1 << 18) + 5 };
  static float x[kN];
  static int8_t one[kN], split[kN];
  for (size_t i = 0; i < kN; ++i)
    x[i] = (float)((int)(i % 601) - 300) * 0.37f;
  CHECK(qjit_kernel_run(kernel, QJIT_DTYPE_F32, x, sizeof x, QJIT_DTYPE_I8, one,
                        sizeof one, kN, NULL) == QJIT_OK);

  qjit_thread_pool reversed = {sizeof reversed, run_reversed, NULL, 4};
  memset(split, 0x5a, sizeof split);
  CHECK(qjit_kernel_run_parallel(kernel, &reversed, QJIT_DTYPE_F32, x, sizeof x,
                                 QJIT_DTYPE_I8, split, sizeof split, kN,
                                 NULL) == QJIT_OK);
  CHECK(memcmp(one, split, sizeof one) == 0);

  qjit_default_pool *pool = NULL;
  CHECK(qjit_default_pool_create(2, &pool) == QJIT_OK && pool != NULL);
  qjit_thread_pool threads = {sizeof threads, NULL, NULL, 0};
  CHECK(qjit_default_pool_interface(pool, &threads) == QJIT_OK);
  CHECK(threads.parallel_for != NULL && threads.threads == 2);
  memset(split, 0x5a, sizeof split);
  CHECK(qjit_kernel_run_parallel(kernel, &threads, QJIT_DTYPE_F32, x, sizeof x,
                                 QJIT_DTYPE_I8, split, sizeof split, kN,
                                 NULL) == QJIT_OK);
  CHECK(memcmp(one, split, sizeof one) == 0);
  qjit_default_pool_destroy(pool);
  qjit_default_pool_destroy(NULL);

  /* A caller's own split through ranges, last range first. */
  size_t granularity = 0, row = 0;
  CHECK(qjit_kernel_split_granularity(kernel, NULL, &granularity, &row) ==
        QJIT_OK);
  CHECK(granularity == 1 && row == 1);
  memset(split, 0x5a, sizeof split);
  CHECK(qjit_kernel_run_range(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, split, sizeof split, kN, 1000,
                              kN - 1000, NULL) == QJIT_OK);
  CHECK(qjit_kernel_run_range(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, split, sizeof split, kN, 0, 1000,
                              NULL) == QJIT_OK);
  CHECK(memcmp(one, split, sizeof one) == 0);
  CHECK(qjit_kernel_run_range(kernel, QJIT_DTYPE_F32, x, sizeof x,
                              QJIT_DTYPE_I8, split, sizeof split, kN, kN, 1,
                              NULL) == QJIT_ERROR_INVALID_ARGUMENT);
  CHECK(qjit_kernel_run_parallel(kernel, NULL, QJIT_DTYPE_F32, x, sizeof x,
                                 QJIT_DTYPE_I8, split, sizeof split, kN,
                                 NULL) == QJIT_ERROR_INVALID_ARGUMENT);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
}

int main(void) {
  test_runtime_create();
  test_compile();
  test_queries();
  test_run_errors();
  test_saturate_option();
  test_scale_format();
  test_native_function();
  test_pytorch_per_channel_dequantize();
  test_options_size();
  test_param_info();
  test_per_axis_param_lengths();
  test_blockwise_param_lengths();
  test_extent_lengths();
  test_logging();
  test_dynamic();
  test_dynamic_mx();
  test_parallel();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}
