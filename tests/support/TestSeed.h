//===- TestSeed.h - Reproducible randomness for tests -----------*- C++ -*-===//
//
// Every randomized test draws its seed from testSeed(): QJIT_TEST_SEED from
// the environment when set, otherwise a fresh one. The seed is printed and
// recorded as a test property, so any failure can be replayed with
// `QJIT_TEST_SEED=<seed> ctest -R <test>`.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TESTS_TESTSEED_H
#define QJIT_TESTS_TESTSEED_H

#include <cstdint>

namespace qjit::testing {

uint64_t testSeed();

} // namespace qjit::testing

#endif
