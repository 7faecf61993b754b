#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int parseCommand(int, char **) {
  std::fprintf(stderr, "qjit parse: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
