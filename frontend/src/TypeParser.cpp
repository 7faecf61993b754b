//===- TypeParser.cpp - parseType: syntax, then verification --------------===//
#include "qjit/TypeParser.h"

#include "Diagnostics.h"
#include "Parser.h"
#include "Verifier.h"

namespace qjit {

ParseResult parseType(std::string_view text, const ParseOptions &options) {
  ParseResult result;
  auto fail = [&](const detail::LocatedError &problem) {
    result.diagnostic = detail::locateDiagnostic(
        text, problem.where.offset, problem.message, options.inputName);
    return result;
  };
  auto parsed = detail::parseTypeText(text);
  if (auto *problem = std::get_if<detail::LocatedError>(&parsed))
    return fail(*problem);
  auto &type = std::get<detail::ParsedType>(parsed);
  if (auto problem =
          detail::verifyQuantType(type.type.element, type.element, text))
    return fail(*problem);
  if (type.type.tensor)
    if (auto problem =
            detail::verifyTensorContext(type.type.element, *type.type.tensor,
                                        type.element, type.tensor, text))
      return fail(*problem);
  detail::roundSubChannelScales(type.type.element);
  result.type = std::move(type.type);
  return result;
}

Expected<TypeDescriptor> parseTypeOrError(std::string_view text,
                                          const ParseOptions &options) {
  ParseResult result = parseType(text, options);
  if (!result)
    return Status::error(ErrorCode::InvalidType, result.diagnostic->render());
  return std::move(*result.type);
}

Status verifyElementOfTensor(const QuantType &element,
                             const TensorShape &shape) {
  // The tensor rules index by axis and divide by block size: check the
  // type itself first.
  if (auto problem = detail::verifyQuantType(element, {}, {}))
    return Status::error(ErrorCode::InvalidType, problem->message);
  if (auto problem = detail::verifyTensorContext(element, shape, {}, {}, {}))
    return Status::error(ErrorCode::InvalidType, problem->message);
  return Status::ok();
}

} // namespace qjit
