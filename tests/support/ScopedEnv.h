//===- ScopedEnv.h - An environment variable set for one scope --*- C++ -*-===//
#ifndef QJIT_TESTS_SUPPORT_SCOPEDENV_H
#define QJIT_TESTS_SUPPORT_SCOPEDENV_H

#include <cstdlib>
#include <optional>
#include <string>

namespace qjit::testing {

/// Sets an environment variable for one scope, then restores it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace qjit::testing

#endif // QJIT_TESTS_SUPPORT_SCOPEDENV_H
