//===- TypeTestUtil.h - Helpers for frontend unit tests ---------*- C++ -*-===//
#ifndef QJIT_TESTS_FRONTEND_TYPETESTUTIL_H
#define QJIT_TESTS_FRONTEND_TYPETESTUTIL_H

#include "qjit/TypeParser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace qjit::testing {

/// Parses `text`, failing the test (with the diagnostic) if it is invalid.
inline TypeDescriptor parseOk(std::string_view text) {
  ParseResult result = parseType(text);
  if (!result) {
    ADD_FAILURE() << "rejected: " << text << "\n"
                  << result.diagnostic->render();
    return {};
  }
  return *result.type;
}

/// The canonical print of `text` ("<invalid>" if rejected).
inline std::string canonical(std::string_view text) {
  ParseResult result = parseType(text);
  return result ? printType(*result.type) : "<invalid>";
}

/// The diagnostic for `text`, failing the test if it is accepted.
inline Diagnostic parseError(std::string_view text) {
  ParseResult result = parseType(text);
  if (result) {
    ADD_FAILURE() << "accepted: " << text << " as " << printType(*result.type);
    return {};
  }
  return *result.diagnostic;
}

} // namespace qjit::testing

#endif
