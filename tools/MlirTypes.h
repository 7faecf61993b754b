//===- MlirTypes.h - The quant types an .mlir file uses ---------*- C++ -*-===//
//
// Finds quant types in MLIR text without an MLIR parser: the text is
// scanned for `!quant` types and `tensor<...>` types of them, wherever they
// are (function signatures, op operands and results, attributes), after
// comments and string literals are set aside. Type aliases (`!name = TYPE`
// at the start of a line) are expanded where they are used, and the
// expansion keeps the location of each character: a diagnostic in an
// alias's body points at its definition. Everything else in the file is
// ignored.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_MLIRTYPES_H
#define QJIT_TOOLS_MLIRTYPES_H

#include "TypeText.h"

#include "qjit/Error.h"

#include <memory>
#include <vector>

namespace qjit::tool {

/// Every quant type the text uses, in source order: each `tensor<...>` of a
/// quant type (or of an alias of one) as a whole, each other `!quant` type
/// on its own, and each use of an alias of either. InvalidArgument when
/// copying aliases at their uses would take more than max(65536, the
/// text's size) copies or max(256 MiB, 8 x the text).
Expected<std::vector<TypeText>>
findMlirTypes(std::shared_ptr<const TypeSource> source);

} // namespace qjit::tool

#endif
