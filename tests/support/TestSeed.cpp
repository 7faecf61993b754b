#include "TestSeed.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace qjit::testing {

uint64_t testSeed() {
  uint64_t seed;
  if (const char *env = std::getenv("QJIT_TEST_SEED"); env && *env) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  }
  std::printf("[ seed     ] QJIT_TEST_SEED=%llu\n",
              static_cast<unsigned long long>(seed));
  ::testing::Test::RecordProperty("QJIT_TEST_SEED", std::to_string(seed));
  return seed;
}

} // namespace qjit::testing
