//===- TargetObject.cpp - Cross-target kernels as flat code bytes ---------===//
#include "TargetObject.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <map>

namespace qjit::llvmjit {

namespace {

Status failure(const std::string &message) {
  return Status::error(ErrorCode::BackendFailure, "llvm: " + message);
}

uint32_t readWord(const std::vector<uint8_t> &bytes, size_t at) {
  return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 |
         uint32_t(bytes[at + 2]) << 16 | uint32_t(bytes[at + 3]) << 24;
}

void writeWord(std::vector<uint8_t> &bytes, size_t at, uint32_t word) {
  for (unsigned b = 0; b < 4; ++b)
    bytes[at + b] = static_cast<uint8_t>(word >> (8 * b));
}

/// Applies one AArch64 ELF relocation at image offset `place` whose target
/// (S + A) is image offset `target`. The image is loaded page aligned, so
/// page arithmetic on offsets equals page arithmetic on addresses. The
/// kinds are those of the small code model's `adrp` + `add` / `ldr :lo12:`
/// pairs, which is how AArch64 codegen addresses constant pools and tables
/// (the test sweeps see ADR_PREL_PG_HI21 and ADD_ABS_LO12_NC).
Status applyAArch64Relocation(std::vector<uint8_t> &bytes, uint64_t type,
                              size_t place, int64_t target) {
  using namespace llvm::ELF;
  uint32_t insn = readWord(bytes, place);
  auto lo12 = [&](unsigned shift) {
    uint64_t offset = static_cast<uint64_t>(target) & 0xfff;
    if (offset & ((uint64_t(1) << shift) - 1))
      return false;
    insn = (insn & ~(0xfffu << 10)) | uint32_t(offset >> shift) << 10;
    return true;
  };
  switch (type) {
  case R_AARCH64_ADR_PREL_PG_HI21: {
    int64_t pages = (target >> 12) - (static_cast<int64_t>(place) >> 12);
    if (pages < -(int64_t(1) << 20) || pages >= (int64_t(1) << 20))
      return failure("ADR_PREL_PG_HI21 out of range");
    uint32_t imm = static_cast<uint32_t>(pages) & 0x1fffff;
    insn = (insn & 0x9f00001fu) | (imm & 3) << 29 | (imm >> 2) << 5;
    break;
  }
  case R_AARCH64_ADD_ABS_LO12_NC:
  case R_AARCH64_LDST8_ABS_LO12_NC:
    lo12(0);
    break;
  case R_AARCH64_LDST16_ABS_LO12_NC:
  case R_AARCH64_LDST32_ABS_LO12_NC:
  case R_AARCH64_LDST64_ABS_LO12_NC:
  case R_AARCH64_LDST128_ABS_LO12_NC: {
    unsigned shift = type == R_AARCH64_LDST16_ABS_LO12_NC   ? 1
                     : type == R_AARCH64_LDST32_ABS_LO12_NC ? 2
                     : type == R_AARCH64_LDST64_ABS_LO12_NC ? 3
                                                            : 4;
    if (!lo12(shift))
      return failure("a LDST_ABS_LO12_NC target is misaligned");
    break;
  }
  default:
    return Status::error(
        ErrorCode::Unsupported,
        "llvm: the AArch64 object has a relocation of type " +
            llvm::object::getELFRelocationTypeName(llvm::ELF::EM_AARCH64, type)
                .str() +
            ", which flattening does not support");
  }
  writeWord(bytes, place, insn);
  return Status::ok();
}

/// Whether the loaded image needs `section`: code and data, not unwind
/// tables or metadata (nothing in the kernel reads those).
bool isLoaded(const llvm::object::ELFSectionRef &section) {
  if (!(section.getFlags() & llvm::ELF::SHF_ALLOC) || section.getSize() == 0)
    return false;
  llvm::Expected<llvm::StringRef> name = section.getName();
  if (!name) {
    llvm::consumeError(name.takeError());
    return false;
  }
  return !name->starts_with(".eh_frame") &&
         (section.isText() || section.isData() || section.isBSS());
}

Expected<FlatImage> flatten(const llvm::object::ELFObjectFileBase &object,
                            const std::string &entry) {
  if (object.getEMachine() != llvm::ELF::EM_AARCH64)
    return Status::error(ErrorCode::Unsupported,
                         "llvm: flattening supports AArch64 objects only");
  FlatImage image;
  std::map<uint64_t, size_t> offsets; // Section index → image offset.
  // Code first, so the image starts with instructions.
  for (bool code : {true, false})
    for (const llvm::object::ELFSectionRef section : object.sections()) {
      if (!isLoaded(section) || section.isText() != code)
        continue;
      uint64_t align = std::max<uint64_t>(section.getAlignment().value(), 4);
      size_t at = (image.bytes.size() + align - 1) / align * align;
      image.bytes.resize(at, 0);
      if (!section.isBSS()) {
        llvm::Expected<llvm::StringRef> contents = section.getContents();
        if (!contents)
          return failure(llvm::toString(contents.takeError()));
        image.bytes.insert(image.bytes.end(), contents->begin(),
                           contents->end());
      } else {
        image.bytes.resize(at + section.getSize(), 0);
      }
      offsets[section.getIndex()] = at;
      llvm::Expected<llvm::StringRef> name = section.getName();
      image.sections.push_back({name ? name->str() : std::string("?"), at,
                                static_cast<size_t>(section.getSize()), code});
      if (!name)
        llvm::consumeError(name.takeError());
    }

  auto symbolOffset =
      [&](const llvm::object::symbol_iterator &symbol) -> Expected<int64_t> {
    llvm::Expected<llvm::object::section_iterator> section =
        symbol->getSection();
    if (!section)
      return failure(llvm::toString(section.takeError()));
    auto placed = *section == object.section_end()
                      ? offsets.end()
                      : offsets.find((*section)->getIndex());
    if (placed == offsets.end()) {
      llvm::Expected<llvm::StringRef> name = symbol->getName();
      std::string text = name ? name->str() : "?";
      if (!name)
        llvm::consumeError(name.takeError());
      return Status::error(ErrorCode::Unsupported,
                           "llvm: the kernel refers to '" + text +
                               "', which is not in the object (an external "
                               "call cannot run from flat code)");
    }
    llvm::Expected<uint64_t> value = symbol->getValue();
    if (!value)
      return failure(llvm::toString(value.takeError()));
    return static_cast<int64_t>(placed->second + *value);
  };

  for (const llvm::object::ELFSectionRef relocations : object.sections()) {
    llvm::Expected<llvm::object::section_iterator> target =
        relocations.getRelocatedSection();
    if (!target)
      return failure(llvm::toString(target.takeError()));
    if (*target == object.section_end())
      continue;
    auto placed = offsets.find((*target)->getIndex());
    if (placed == offsets.end())
      continue; // Relocations of sections not loaded (.eh_frame).
    for (const llvm::object::ELFRelocationRef relocation :
         relocations.relocations()) {
      llvm::object::symbol_iterator symbol = relocation.getSymbol();
      if (symbol == object.symbol_end())
        return failure("a relocation without a symbol");
      Expected<int64_t> base = symbolOffset(symbol);
      if (!base)
        return base.status();
      llvm::Expected<int64_t> addend = relocation.getAddend();
      if (!addend)
        return failure(llvm::toString(addend.takeError()));
      size_t place = placed->second + relocation.getOffset();
      if (Status status = applyAArch64Relocation(
              image.bytes, relocation.getType(), place, *base + *addend);
          !status)
        return status;
    }
  }

  for (const llvm::object::SymbolRef symbol : object.symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    if (!type)
      return failure(llvm::toString(type.takeError()));
    if (*name != entry || *type != llvm::object::SymbolRef::ST_Function)
      continue;
    Expected<int64_t> at = symbolOffset(symbol);
    if (!at)
      return at.status();
    image.entryOffset = static_cast<size_t>(*at);
    return image;
  }
  return failure("the object has no symbol '" + entry + "'");
}

} // namespace

Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObject(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::SmallVector<char, 0> buffer;
  {
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager passes;
    if (machine.addPassesToEmitFile(passes, os, nullptr,
                                    llvm::CodeGenFileType::ObjectFile))
      return Status::error(ErrorCode::Unsupported,
                           "llvm: the target cannot emit object files");
    passes.run(module);
  }
  return std::unique_ptr<llvm::MemoryBuffer>(
      std::make_unique<llvm::SmallVectorMemoryBuffer>(
          std::move(buffer), module.getModuleIdentifier() + ".o",
          /*RequiresNullTerminator=*/false));
}

Expected<FlatImage> emitFlatImage(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  const std::string &entry) {
  Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      emitObject(module, machine);
  if (!buffer)
    return buffer.status();
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!object)
    return failure("cannot read the emitted object: " +
                   llvm::toString(object.takeError()));
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  if (!elf)
    return Status::error(ErrorCode::Unsupported,
                         "llvm: flattening supports ELF objects only");
  return flatten(*elf, entry);
}

Expected<std::string> disassembleImage(const FlatImage &image,
                                       const llvm::TargetMachine &machine) {
  const llvm::Target &target = machine.getTarget();
  const llvm::Triple &triple = machine.getTargetTriple();
  const llvm::MCSubtargetInfo &subtarget = *machine.getMCSubtargetInfo();
  llvm::MCContext context(triple, machine.getMCAsmInfo(),
                          machine.getMCRegisterInfo(), &subtarget);
  std::unique_ptr<llvm::MCDisassembler> disassembler(
      target.createMCDisassembler(subtarget, context));
  std::unique_ptr<llvm::MCInstPrinter> printer(target.createMCInstPrinter(
      triple, machine.getMCAsmInfo()->getAssemblerDialect(),
      *machine.getMCAsmInfo(), *machine.getMCInstrInfo(),
      *machine.getMCRegisterInfo()));
  if (!disassembler || !printer)
    return failure("no disassembler for " + triple.str());
  printer->setPrintImmHex(true);
  // PC-relative immediates (`b.ne #0x40`), which llvm-mc assembles back to
  // the same encoding; the offset and word of each line are a comment.
  printer->setPrintBranchImmAsAddress(false);

  std::string text;
  llvm::raw_string_ostream os(text);
  for (const ImageSection &section : image.sections) {
    os << "\n# section " << section.name << " at offset "
       << llvm::format_hex(section.offset, 6) << "\n";
    for (size_t at = section.offset; at < section.offset + section.size;) {
      if (at == image.entryOffset)
        os << "entry:\n";
      uint32_t word = at + 4 <= image.bytes.size() ? readWord(image.bytes, at)
                                                   : image.bytes[at];
      std::string statement;
      llvm::raw_string_ostream line(statement);
      llvm::MCInst inst;
      uint64_t size = 4;
      if (section.code &&
          disassembler->getInstruction(
              inst, size, llvm::ArrayRef<uint8_t>(image.bytes).slice(at), at,
              llvm::nulls()) == llvm::MCDisassembler::Success) {
        printer->printInst(&inst, at, "", subtarget, line);
      } else {
        size = 4;
        line << "\t.word\t" << llvm::format_hex(word, 10);
      }
      os << llvm::left_justify(statement, 40) << " // "
         << llvm::format_hex_no_prefix(at, 6) << ": "
         << llvm::format_hex_no_prefix(word, 8) << "\n";
      at += size;
    }
  }
  return text;
}

} // namespace qjit::llvmjit
