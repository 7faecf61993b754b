//===- FuzzCheck.h - Invariant checks inside fuzz targets -------*- C++ -*-===//
//
// A broken invariant must stop libFuzzer with the input saved: print what
// broke and abort (libFuzzer reports the deadly signal and writes the crash
// file). Only the fuzz targets do this; the library never aborts.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_FUZZ_FUZZCHECK_H
#define QJIT_TESTS_FUZZ_FUZZCHECK_H

#include <cstdio>
#include <cstdlib>
#include <string>

namespace qjit::fuzz {

inline void check(bool holds, const std::string &what) {
  if (holds)
    return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

} // namespace qjit::fuzz

#endif // QJIT_TESTS_FUZZ_FUZZCHECK_H
