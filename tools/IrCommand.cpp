#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int irCommand(int, char **) {
  std::fprintf(stderr, "qjit ir: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
