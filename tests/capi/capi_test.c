/*===- capi_test.c - The C API, from C ------------------------------------===*
 *
 * Pure C11: every entry point's success and every error path. Uses the
 * reference backend where exact results matter, so it runs anywhere.
 *
 *===----------------------------------------------------------------------===*/
#include "qjit/qjit.h"

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
  qjit_compile_options options = {0, 1, QJIT_SATURATE_DEFAULT};
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
  qjit_kernel_params params = {NULL, &scale, &zero_point};
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
    qjit_compile_options options = {0, 0, modes[m]};
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
  qjit_compile_options bad = {0, 0, (qjit_saturate)3};
  CHECK_ERROR(qjit_kernel_compile(runtime, fp8, QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "saturate");
  bad.saturate = (qjit_saturate)-1;
  CHECK_ERROR(qjit_kernel_compile(runtime, fp8, QJIT_OP_QCAST, &bad, &kernel),
              QJIT_ERROR_INVALID_ARGUMENT, "saturate");
  CHECK(kernel == NULL);
  /* Integer storage always saturates: the option does not change it. */
  qjit_compile_options off = {0, 0, QJIT_SATURATE_OFF};
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

int main(void) {
  test_runtime_create();
  test_compile();
  test_queries();
  test_run_errors();
  test_saturate_option();
  test_native_function();
  test_pytorch_per_channel_dequantize();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}
