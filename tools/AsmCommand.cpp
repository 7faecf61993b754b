#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int asmCommand(int, char **) {
  std::fprintf(stderr, "qjit asm: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
