// Quantizes with the C++ API of an installed qjit.
#include <qjit/Runtime.h>
#include <qjit/Version.h>

#include <cstdint>
#include <cstdio>

int main() {
  auto runtime = qjit::Runtime::create({});
  if (!runtime) {
    std::fprintf(stderr, "%s\n", runtime.status().message().c_str());
    return 1;
  }
  auto kernel = (*runtime)->compile("!quant.uniform<i8:f32, 2.0:10>",
                                    qjit::KernelOp::QCast);
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.status().message().c_str());
    return 1;
  }
  const float x[] = {0.0f, 2.0f, -2.0f};
  int8_t q[3] = {};
  if (qjit::Status s = (*kernel)->run(x, sizeof x, q, sizeof q, 3); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("qjit %s: %d %d %d (%s)\n", QJIT_VERSION_STRING, q[0], q[1], q[2],
              (*kernel)->name().c_str());
  return q[0] == 10 && q[1] == 11 && q[2] == 9 ? 0 : 1;
}
