//===- LlvmTarget.cpp - TargetMachine configurations ----------------------===//
#include "LlvmTarget.h"
#include "qjit/internal/LlvmBackend.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/TargetParser/X86TargetParser.h>

#include <map>
#include <mutex>

namespace qjit::llvmjit {

namespace {

/// The lowest level whose kernels may use x86 feature `name`. Features that
/// add no vector registers or instructions (bmi, popcnt, ...) are Scalar.
IsaLevel featureLevel(llvm::StringRef name) {
  if (name.starts_with("avx512") || name.starts_with("avx10") ||
      name == "evex512" || name.starts_with("amx"))
    return IsaLevel::Avx512;
  if (name.starts_with("avx") || name == "fma" || name == "f16c" ||
      name == "fma4" || name == "xop" || name == "vaes" ||
      name == "vpclmulqdq" || name == "gfni")
    return IsaLevel::Avx2;
  if (name == "sse3" || name == "ssse3" || name == "sse4.1" ||
      name == "sse4.2" || name == "sse4a" || name == "aes" ||
      name == "pclmul" || name == "sha" || name == "sha512" || name == "sm3" ||
      name == "sm4")
    return IsaLevel::Sse4;
  return IsaLevel::Scalar;
}

/// What each level guarantees (qjit::hostIsaLevel checks the same set), so
/// assembly for a level above the host still uses that level.
const char *const kLevelBaseline[][6] = {
    {},
    {"sse3", "ssse3", "sse4.1", "sse4.2"},
    {"avx", "avx2", "fma", "f16c"},
    {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "evex512"},
};

/// Final on/off state of each feature in a "+a,-b" string (last wins).
std::map<std::string, bool> featureStates(llvm::StringRef features) {
  std::map<std::string, bool> states;
  llvm::SmallVector<llvm::StringRef, 64> parts;
  features.split(parts, ',', -1, false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.size() > 1 && (part[0] == '+' || part[0] == '-'))
      states[part.drop_front().str()] = part[0] == '+';
  }
  return states;
}

VectorTarget x86VectorTarget(llvm::StringRef features) {
  std::map<std::string, bool> on = featureStates(features);
  auto has = [&](const char *name) {
    auto it = on.find(name);
    return it != on.end() && it->second;
  };
  VectorTarget target;
  target.isX86 = true;
  if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq") &&
      has("evex512")) {
    target.vectorBits = 512;
    target.maskedMemory = true;
    target.fmaDivision = true;
    target.fma = true;
  } else if (has("avx2") && has("fma")) {
    target.vectorBits = 256;
    target.fma = true;
  } else if (has("sse4.1")) {
    target.vectorBits = 128;
  } else {
    target.vectorBits = 0; // Scalar kernels.
  }
  return target;
}

/// The host's features, each on or off.
std::map<std::string, bool> hostFeatures() {
  std::map<std::string, bool> enabled;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    enabled[entry.getKey().str()] = entry.getValue();
  return enabled;
}

/// `enabled` within level `isa`, as a "+a,-b" string.
std::string featuresWithin(std::map<std::string, bool> enabled, IsaLevel isa) {
  std::string features;
  for (const auto &[name, on] : enabled) {
    bool allowed = on && featureLevel(name) <= isa;
    features += (features.empty() ? "" : ",");
    features += (allowed ? "+" : "-") + name;
  }
  return features;
}

/// The host's features, with every level up to `isa` guaranteed (so that
/// assembly for a level above the host still uses that level).
std::string x86Features(IsaLevel isa) {
  std::map<std::string, bool> enabled = hostFeatures();
  for (unsigned level = 0; level <= static_cast<unsigned>(isa); ++level)
    for (const char *name : kLevelBaseline[level])
      if (name)
        enabled[name] = true;
  return featuresWithin(std::move(enabled), isa);
}

/// The features of x86 CPU `cpu` (as -mcpu names it), within `isa`.
Expected<std::string> x86CpuFeatures(const std::string &cpu, IsaLevel isa) {
  if (llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) == llvm::X86::CK_None)
    return Status::error(ErrorCode::InvalidArgument,
                         "unknown x86-64 CPU '" + cpu + "' (-mcpu)");
  // The CPU's own features, those above `isa` turned off; the rest are
  // the CPU's defaults (-mcpu).
  std::map<std::string, bool> enabled;
  llvm::SmallVector<llvm::StringRef, 64> names;
  llvm::X86::getFeaturesForCPU(cpu, names);
  for (llvm::StringRef name : names)
    enabled[name.str()] = true;
  // 512-bit registers, implied by AVX-512 but not in the CPU tables (the
  // host's features list it).
  if (enabled.count("avx512f"))
    enabled["evex512"] = true;
  return featuresWithin(std::move(enabled), isa);
}

} // namespace

std::string TargetConfig::describe() const {
  return triple + " cpu=" + cpu + " features=" + features;
}

void initializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64Disassembler(); // Listings of emitForTarget code.
    // Every PassBuilder holds the real file system, a function-local
    // static in libLLVM. Made here, under call_once, it happens before
    // any thread's first compile; made lazily, a thread that reads it
    // through the static's inline guard has no happens-before edge
    // ThreadSanitizer can see (libLLVM is not instrumented), which it
    // reported as a race on the file system's reference count.
    llvm::vfs::getRealFileSystem();
  });
}

TargetConfig hostTargetConfig(IsaLevel isa) {
  TargetConfig config;
  config.triple = llvm::sys::getProcessTriple();
  config.cpu = llvm::sys::getHostCPUName().str();
  config.features = x86Features(isa);
  config.vector = x86VectorTarget(config.features);
  return config;
}

Expected<TargetConfig> asmTargetConfig(IsaLevel isa,
                                       const AsmOptions &options) {
  initializeLlvmTargets();
  TargetConfig config = hostTargetConfig(isa);
  if (!options.triple.empty()) {
    llvm::Triple triple(llvm::Triple::normalize(options.triple));
    std::string error;
    if (!llvm::TargetRegistry::lookupTarget(triple, error))
      return Status::error(ErrorCode::InvalidArgument,
                           "unsupported target triple '" + options.triple +
                               "': " + error);
    if (!triple.isX86()) {
      config.triple = triple.str();
      config.cpu = options.cpu.empty() ? "generic" : options.cpu;
      config.features = options.features;
      config.vector = VectorTarget{};
      config.vector.isX86 = false;
      config.vector.vectorBits = 128;
      config.vector.fmaDivision = true;
      config.vector.fma = true;
      return config;
    }
    config.triple = triple.str();
  }
  if (!options.cpu.empty() && options.cpu != config.cpu) {
    // That CPU's features, not the host's (as llc does).
    Expected<std::string> features = x86CpuFeatures(options.cpu, isa);
    if (!features)
      return features.status();
    config.cpu = options.cpu;
    config.features = std::move(*features);
  }
  if (!options.features.empty())
    config.features += "," + options.features;
  config.vector = x86VectorTarget(config.features);
  return config;
}

llvm::orc::JITTargetMachineBuilder machineBuilder(const TargetConfig &config) {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(config.triple)};
  builder.setCPU(config.cpu);
  llvm::SubtargetFeatures features(config.features);
  builder.addFeatures(features.getFeatures());
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder.setRelocationModel(llvm::Reloc::PIC_);
  builder.setCodeModel(llvm::CodeModel::Small);
  return builder;
}

Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetConfig &config) {
  initializeLlvmTargets();
  auto machine = machineBuilder(config).createTargetMachine();
  if (!machine)
    return Status::error(ErrorCode::BackendFailure,
                         "cannot create a TargetMachine for " +
                             config.describe() + ": " +
                             llvm::toString(machine.takeError()));
  return std::move(*machine);
}

} // namespace qjit::llvmjit

namespace qjit {

Expected<IsaLevel> x86ListingIsaLevel(IsaLevel isa, const AsmOptions &options) {
  Expected<llvmjit::TargetConfig> config =
      llvmjit::asmTargetConfig(isa, options);
  if (!config)
    return config.status();
  std::map<std::string, bool> on = llvmjit::featureStates(config->features);
  IsaLevel level = IsaLevel::Scalar;
  for (unsigned next = 1; next <= static_cast<unsigned>(isa); ++next) {
    for (const char *name : llvmjit::kLevelBaseline[next])
      if (name && !on[name])
        return level;
    level = static_cast<IsaLevel>(next);
  }
  return level;
}

LlvmHost llvmHost() {
  return {llvm::sys::getProcessTriple(), llvm::sys::getHostCPUName().str()};
}

} // namespace qjit
