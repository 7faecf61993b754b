//===- TargetObject.h - Cross-target kernels as flat code bytes -*- C++ -*-===//
//
// The LLVM backend's "emit for a target" path: the optimized module is
// compiled to an ELF relocatable object in memory by the target's
// TargetMachine, then flattened into one position-independent image (code
// sections first, then the constant sections LLVM put the constant pools
// and baked parameter tables in) with the object's relocations applied. We
// link instead of forbidding constant pools because codegen chooses them
// freely (vector constants, parameter tables): linking handles whatever it
// chooses, and an unknown relocation kind fails loudly instead of silently
// producing wrong code. The listing disassembles the flattened bytes, so
// `qjit asm` shows exactly what runs.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_LLVM_TARGETOBJECT_H
#define QJIT_JIT_LLVM_TARGETOBJECT_H

#include "qjit/Error.h"

#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qjit::llvmjit {

/// One loaded section of a flattened image.
struct ImageSection {
  std::string name;
  size_t offset = 0;
  size_t size = 0;
  bool code = false;
};

/// An object linked to run at any 4 KiB-aligned address.
struct FlatImage {
  std::vector<uint8_t> bytes;
  size_t entryOffset = 0;
  std::vector<ImageSection> sections;
};

/// `module` compiled by `machine` into an object file (a pipeline built
/// for this one module).
Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObject(llvm::Module &module, llvm::TargetMachine &machine);

/// Compiles `module` with `machine` to an object and flattens it; `entry`
/// names the kernel function. Only AArch64 ELF objects are supported.
Expected<FlatImage> emitFlatImage(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  const std::string &entry);

/// The disassembly of `image` (data sections as .word lines), decoded with
/// `machine`'s own MC layer.
Expected<std::string> disassembleImage(const FlatImage &image,
                                       const llvm::TargetMachine &machine);

} // namespace qjit::llvmjit

#endif
