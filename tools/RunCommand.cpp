#include "Commands.h"

#include <cstdio>

namespace qjit::tool {

int runCommand(int, char **) {
  std::fprintf(stderr, "qjit run: not implemented yet\n");
  return 2;
}

} // namespace qjit::tool
