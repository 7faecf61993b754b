//===- ShortestDecimal.h - Exact, short text for doubles --------*- C++ -*-===//
#ifndef QJIT_FRONTEND_SHORTESTDECIMAL_H
#define QJIT_FRONTEND_SHORTESTDECIMAL_H

#include <charconv>
#include <string>

namespace qjit {

/// The shortest decimal that reads back as exactly `value` ("2", "0.1",
/// "-0", "inf", "nan").
inline std::string shortestDecimal(double value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, error == std::errc() ? end : buffer);
}

} // namespace qjit

#endif // QJIT_FRONTEND_SHORTESTDECIMAL_H
