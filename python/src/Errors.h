//===- Errors.h - qjit errors as Python exceptions --------------*- C++ -*-===//
//
// qjit.Error and its subclasses, one per ErrorCode. C++ code throws
// QjitError (never across the C++ API, only inside the module); the
// translator registered by registerErrors turns it into the Python class.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_ERRORS_H
#define QJIT_PYTHON_ERRORS_H

#include "qjit/Error.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace qjit::python {

class QjitError : public std::runtime_error {
public:
  QjitError(ErrorCode code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

private:
  ErrorCode code_;
};

/// Adds qjit.Error, InvalidTypeError, UnsupportedError, InvalidArgumentError,
/// BackendError and IOError to the module and registers the translator.
void registerErrors(pybind11::module_ &module);

[[noreturn]] inline void raise(const Status &status) {
  throw QjitError(status.code(), status.message());
}
[[noreturn]] inline void invalidArgument(const std::string &message) {
  throw QjitError(ErrorCode::InvalidArgument, message);
}

template <typename T> T unwrap(Expected<T> &&value) {
  if (!value)
    raise(value.status());
  return std::move(*value);
}

} // namespace qjit::python

#endif
