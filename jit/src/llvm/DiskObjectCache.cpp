//===- DiskObjectCache.cpp - ORC's object cache over a CodeStore ----------===//
#include "DiskObjectCache.h"

#include <llvm/IR/Module.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <span>

namespace qjit::llvmjit {

void DiskObjectCache::notifyObjectCompiled(const llvm::Module *module,
                                           llvm::MemoryBufferRef object) {
  store_->store(
      module->getModuleIdentifier(),
      std::span<const char>(object.getBufferStart(), object.getBufferSize()));
}

std::unique_ptr<llvm::MemoryBuffer>
DiskObjectCache::getObject(const llvm::Module *module) {
  return getObject(module->getModuleIdentifier());
}

std::unique_ptr<llvm::MemoryBuffer>
DiskObjectCache::getObject(const std::string &key) {
  std::optional<std::vector<char>> payload = store_->load(key);
  if (!payload)
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(payload->data(), payload->size()),
      "qjit-disk-cache-object");
}

std::optional<std::string> definedFunction(const llvm::MemoryBuffer &object,
                                           const std::string &prefix) {
  auto file =
      llvm::object::ObjectFile::createObjectFile(object.getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::nullopt;
  }
  std::optional<std::string> found;
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    auto type = symbol.getType();
    auto name = symbol.getName();
    if (!flags || !type || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*type != llvm::object::SymbolRef::ST_Function ||
        (*flags & llvm::object::SymbolRef::SF_Undefined) ||
        !(*flags & llvm::object::SymbolRef::SF_Global) ||
        !name->starts_with(prefix))
      continue;
    if (found)
      return std::nullopt; // Not one of ours: two candidates.
    found = name->str();
  }
  return found;
}

} // namespace qjit::llvmjit
