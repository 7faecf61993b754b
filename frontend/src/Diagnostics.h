//===- Diagnostics.h - Locating problems in the text ------------*- C++ -*-===//
#ifndef QJIT_FRONTEND_DIAGNOSTICS_H
#define QJIT_FRONTEND_DIAGNOSTICS_H

#include "qjit/TypeParser.h"

#include <string_view>

namespace qjit::detail {

/// The diagnostic for a problem at byte `offset` of `text`: 1-based line
/// and column (in bytes) and the line itself.
Diagnostic locateDiagnostic(std::string_view text, size_t offset,
                            std::string message, std::string inputName);

} // namespace qjit::detail

#endif
