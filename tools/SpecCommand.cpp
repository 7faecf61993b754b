#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int specCommand(int, char **) {
  std::fprintf(stderr, "qjit spec: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
