//===- qjit/Error.h - Errors as values --------------------------*- C++ -*-===//
//
// qjit never throws across its public API. Fallible functions return
// `Status` (success or an error message) or `Expected<T>` (a value or an
// error). Both are [[nodiscard]]: an ignored error is a compile warning,
// which CI turns into an error.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_ERROR_H
#define QJIT_ERROR_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace qjit {

/// What kind of failure an error is; lets callers (and the C API) map errors
/// to codes without parsing messages.
enum class ErrorCode {
  Ok = 0,
  InvalidType,     ///< The type text does not parse or does not verify.
  Unsupported,     ///< Valid, but no kernel can compute it.
  InvalidArgument, ///< A bad buffer, size, dtype, option or flag.
  BackendFailure,  ///< The JIT refused (no executable memory, ISA, ...).
  IOError,         ///< A file could not be read or written.
};

/// Success, or an error code with a human-readable message.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(ErrorCode code, std::string message) {
    assert(code != ErrorCode::Ok && "an error needs a code");
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }

  bool isOk() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return isOk(); }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// A value of type T, or the Status that explains why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Status error) : storage_(std::move(error)) {
    assert(!std::get<Status>(storage_).isOk() &&
           "Expected built from a successful Status");
  }

  bool hasValue() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return hasValue(); }

  T &operator*() & { return std::get<T>(storage_); }
  const T &operator*() const & { return std::get<T>(storage_); }
  T &&operator*() && { return std::get<T>(std::move(storage_)); }
  T *operator->() { return &std::get<T>(storage_); }
  const T *operator->() const { return &std::get<T>(storage_); }

  /// The error; only valid when !hasValue().
  const Status &status() const { return std::get<Status>(storage_); }
  /// The error as a Status, or ok() when there is a value.
  Status takeStatus() const { return hasValue() ? Status::ok() : status(); }

private:
  std::variant<T, Status> storage_;
};

} // namespace qjit

#endif // QJIT_ERROR_H
