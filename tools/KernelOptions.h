//===- KernelOptions.h - The flags that select a kernel ---------*- C++ -*-===//
//
// One place declares and reads the flags that pick a kernel, so that
// `qjit spec`, `run`, `ir` and `asm` spell and check them identically:
//
//   CommandLine flags;
//   addKernelFlags(flags);   // TYPE, --op, --shape, --unpacked, knobs
//   addBackendFlags(flags);  // --backend, --isa (commands that compile)
//   if (Status s = flags.parse(argc, argv, 2); !s) -> usage error
//   Expected<KernelRequest> request = readKernelRequest(flags); // usage
//   Expected<RuntimeOptions> runtime = readBackendFlags(flags); // usage
//   Expected<KernelSpec> spec = lowerKernelRequest(*request);   // failure
//
// read* errors are usage errors (exit 2); lowerKernelRequest's are the
// command's failures (exit 1), an invalid type as a caret diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_TOOLS_KERNELOPTIONS_H
#define QJIT_TOOLS_KERNELOPTIONS_H

#include "CommandLine.h"
#include "TypeArgument.h"
#include "qjit/Isa.h"
#include "qjit/KernelSpec.h"
#include "qjit/QuantType.h"
#include "qjit/Runtime.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qjit::tool {

/// A type, an op and how to lower them.
struct KernelRequest {
  TypeArgument type; ///< Read by readRequestType.
  KernelOp op = KernelOp::QCast;
  LoweringOptions lowering; ///< Knobs: the preset, then the knob flags.
  /// The knob flags given ("rounding", "no-saturate", ...), so that one the
  /// spec does not depend on can be warned about.
  std::vector<std::string> knobFlags;
};

/// Declares the TYPE flags (TypeArgument.h), --op, --shape, --unpacked,
/// --semantics, --rounding, --scale-op and --zero-point.
void addKernelFlags(CommandLine &flags);
/// Reads them and where TYPE comes from (not the type itself). --op is
/// required; knob flags override the --semantics preset (default:
/// docs/semantics.md defaults).
Expected<KernelRequest> readKernelRequest(const CommandLine &flags);

/// Reads and parses the request's type (a failure, not a usage error: an
/// unreadable file, an invalid type, a --pick that matches nothing).
Expected<TypeDescriptor> readRequestType(const KernelRequest &request);

/// Declares --backend and --isa.
void addBackendFlags(CommandLine &flags);
/// Reads them (default: auto, no cap beyond host and QJIT_MAX_ISA).
Expected<RuntimeOptions> readBackendFlags(const CommandLine &flags);

/// The --isa level of a command that targets one ISA (`ir`, `asm`; declared
/// by the command): the flag's, else the host's capped by QJIT_MAX_ISA.
Expected<IsaLevel> readIsaLevel(const CommandLine &flags);

/// readRequestType, then lowers the type to the requested spec. Warns on
/// stderr about each knob flag the spec does not depend on (--rounding on a
/// dcast, --no-saturate on integer storage).
Expected<KernelSpec> lowerKernelRequest(const KernelRequest &request);
/// As above for an already parsed type.
Expected<KernelSpec> lowerKernelRequest(const KernelRequest &request,
                                        const TypeDescriptor &type);

/// The help text lines of addKernelFlags / addBackendFlags, for usage
/// messages.
extern const char kKernelFlagsHelp[];
extern const char kBackendFlagsHelp[];

/// "2x3" → {2, 3}: positive or zero static dims joined by 'x'.
Expected<std::vector<int64_t>> parseShape(std::string_view text);
/// {2, 3} → "2x3"; dynamic dims print as '?'.
std::string formatShape(std::span<const int64_t> shape);

} // namespace qjit::tool

#endif
