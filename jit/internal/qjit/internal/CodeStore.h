//===- CodeStore.h - Compiled code kept across runs -------------*- C++ -*-===//
//
// A persistent store of compiled code, keyed by a string that names
// everything the code depends on. Backends that can reload code (llvm, as
// a relocatable object) ask it before compiling and hand it what they
// compiled. A store never fails its caller: a missing, unreadable or
// invalid entry is a miss, a failed write is logged and forgotten.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_CODESTORE_H
#define QJIT_CODESTORE_H

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qjit {

class CodeStore {
public:
  virtual ~CodeStore() = default;
  /// The payload stored under exactly `key`, or nullopt.
  virtual std::optional<std::vector<char>> load(std::string_view key) = 0;
  /// Stores `payload` under `key` (best effort).
  virtual void store(std::string_view key, std::span<const char> payload) = 0;
  /// What every key of this store starts with: the versions of the code
  /// generators and the ISA levels, fixed for the store's owner.
  virtual const std::string &keyPrefix() const = 0;
};

} // namespace qjit

#endif // QJIT_CODESTORE_H
