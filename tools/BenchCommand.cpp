#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int benchCommand(int, char **) {
  std::fprintf(stderr, "qjit bench: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
