//===- TypeArgument.h - Where a command's TYPE comes from -------*- C++ -*-===//
//
// Every subcommand takes TYPE in the same ways:
//
//   TYPE                    the text itself
//   @FILE, --type-file=FILE the file's contents (as LLVM's response files
//                           name a file with '@'; the contents are the type,
//                           not split into arguments)
//   -, --type-file=-        standard input
//   --mlir=FILE [--pick=P]  a quant type used in an .mlir file (- for
//                           stdin); P is N (the N-th, 1-based, as `qjit
//                           parse --mlir` lists them) or LINE:COL (the one
//                           that starts there); optional when the file
//                           uses one type
//
// A type read from a file or stdin may span lines. Reading happens after
// the command line is checked, so that usage errors (exit 2) come first and
// an unreadable file is a failure (exit 1).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_TYPEARGUMENT_H
#define QJIT_TOOLS_TYPEARGUMENT_H

#include "CommandLine.h"
#include "TypeText.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qjit::tool {

/// Declares --type-file, --mlir and --pick.
void addTypeFlags(CommandLine &flags);

/// A TYPE checked but not read yet.
struct TypeArgument {
  enum class Kind : uint8_t { Text, File, Stdin, Mlir };
  Kind kind = Kind::Text;
  std::string value; ///< The text (Text) or the path (File, Mlir).
  std::string pick;  ///< Mlir: --pick's value, empty if absent.
};

/// The one TYPE of a kernel command: exactly one of the positional
/// argument, --type-file and --mlir. Usage errors as InvalidArgument.
Expected<TypeArgument> readTypeArgument(const CommandLine &flags);

/// A positional argument of `qjit parse`: '-', '@FILE' or text.
TypeArgument typeArgumentOf(const std::string &positional);

/// The source the argument names (stdin, a file, or the text itself).
/// IOError when a file cannot be read.
Expected<std::shared_ptr<const TypeSource>>
readTypeSource(const TypeArgument &argument);

/// Reads the argument's one type: the whole source, or the picked type of
/// an .mlir file. IOError, or InvalidArgument for a pick that matches no
/// type.
Expected<TypeText> loadType(const TypeArgument &argument);

} // namespace qjit::tool

#endif
