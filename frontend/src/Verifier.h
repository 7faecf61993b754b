//===- Verifier.h - MLIR's rules and qjit's stricter ones -------*- C++ -*-===//
//
// Type-level rules (those of MLIR's QuantTypes verifiers, plus: scales are
// finite and positive, no negative axis, no duplicate block axis) and the
// op-level rules a quant type must satisfy inside a tensor. Each failure
// has its own message naming the offending value and points at its token.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_FRONTEND_VERIFIER_H
#define QJIT_FRONTEND_VERIFIER_H

#include "Parser.h"

#include <optional>
#include <string_view>

namespace qjit::detail {

/// Checks `type` alone. `text` supplies the spelling of values in messages
/// (empty ranges fall back to printing the value).
std::optional<LocatedError> verifyQuantType(const QuantType &type,
                                            const QuantTypeLocations &where,
                                            std::string_view text);

/// Checks `type` as the element type of `shape`.
std::optional<LocatedError>
verifyTensorContext(const QuantType &type, const TensorShape &shape,
                    const QuantTypeLocations &where,
                    const TensorLocations &tensorWhere, std::string_view text);

/// Rounds sub-channel scales to the expressed type, where MLIR holds them
/// (a dense attribute of that type). Call after verifyQuantType.
void roundSubChannelScales(QuantType &type);

} // namespace qjit::detail

#endif
