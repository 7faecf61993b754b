/* Dequantizes with the C API of an installed qjit. */
#include <qjit/qjit.h>

#include <stdint.h>
#include <stdio.h>

int main(void) {
  qjit_runtime *runtime = NULL;
  qjit_kernel *kernel = NULL;
  if (qjit_runtime_create(NULL, &runtime) != QJIT_OK ||
      qjit_kernel_compile(runtime, "!quant.uniform<i8:f32, 2.0:10>",
                          QJIT_OP_DCAST, NULL, &kernel) != QJIT_OK) {
    fprintf(stderr, "%s\n", qjit_last_error());
    return 1;
  }
  const int8_t q[3] = {10, 11, 9};
  float y[3] = {0};
  qjit_status status = qjit_kernel_run(kernel, QJIT_DTYPE_I8, q, sizeof q,
                                       QJIT_DTYPE_F32, y, sizeof y, 3, NULL);
  qjit_kernel_release(kernel);
  qjit_runtime_destroy(runtime);
  if (status != QJIT_OK) {
    fprintf(stderr, "%s\n", qjit_last_error());
    return 1;
  }
  printf("qjit %s (C): %g %g %g\n", qjit_version(), y[0], y[1], y[2]);
  return y[0] == 0.0f && y[1] == 2.0f && y[2] == -2.0f ? 0 : 1;
}
