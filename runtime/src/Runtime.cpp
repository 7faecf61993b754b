//===- Runtime.cpp - Backend choice, fallback and caching -----------------===//
#include "qjit/Runtime.h"

#include "BestFitBackend.h"
#include "DiskCache.h"
#include "KernelCache.h"
#include "Kernels.h"
#include "Log.h"
#include "SharedBackend.h"
#include "SpecKey.h"
#include "TypeTextMemo.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/LibraryVersions.h"

#include <array>
#include <cstdlib>
#include <vector>

namespace qjit {

namespace {

constexpr std::array<std::string_view, 4> kBackendKindNames = {
    "auto", "llvm", "asmjit", "reference"};

/// The JIT backends `Auto` tries, in this order among equal fits.
constexpr std::array<BackendKind, 2> kAutoBackends = {BackendKind::Asmjit,
                                                      BackendKind::Llvm};

/// The persistent cache the options ask for, or null.
std::shared_ptr<DiskCache> openDiskCache(const DiskCacheOptions &options,
                                         IsaLevel isa) {
  std::string directory = options.directory;
  if (directory.empty())
    if (const char *env = std::getenv("QJIT_CACHE_DIR"))
      directory = env;
  if (directory.empty() || options.maxBytes == 0)
    return nullptr;
  // What the in-memory cache holds fixed per runtime; each backend adds
  // its target and the spec.
  std::string prefix = libraryVersions() +
                       " entry=" + std::to_string(DiskCache::kFormatVersion) +
                       " isa=" + std::string(isaLevelName(isa)) +
                       " host=" + std::string(isaLevelName(hostIsaLevel()));
  return DiskCache::open(directory, options.maxBytes, std::move(prefix));
}

} // namespace

std::string_view backendKindName(BackendKind kind) {
  return kBackendKindNames[static_cast<size_t>(kind)];
}

Expected<BackendKind> parseBackendKind(std::string_view name) {
  for (size_t i = 0; i < kBackendKindNames.size(); ++i)
    if (kBackendKindNames[i] == name)
      return static_cast<BackendKind>(i);
  return Status::error(ErrorCode::InvalidArgument,
                       "unknown backend '" + std::string(name) +
                           "' (expected auto, llvm, asmjit or reference)");
}

class Runtime::Impl {
public:
  Impl(const RuntimeOptions &options, IsaLevel isa)
      : options(options), isa(isa), cache(options.cache),
        typeTextMemo(options.cache.maxKernels) {}

  /// Compiles with the requested backend, or for `auto` with the
  /// best-fitting one that can (see BackendKind).
  Expected<std::shared_ptr<const Kernel>> build(KernelSpec spec) {
    // Kernels of every shape share this one (SpecKey.h): it has none.
    spec.shape.clear();
    // Backends trust their input; a hand-built spec is checked here once.
    if (Status valid = verifyKernelSpec(spec); !valid)
      return valid;
    if (options.backend == BackendKind::Auto) {
      std::optional<BackendCode> chosen = compileWithBestFit(jitBackends, spec);
      if (!chosen)
        return makeReferenceKernel(spec);
      return makeNativeKernel(spec, std::move(chosen->code),
                              std::move(chosen->backend));
    }
    if (jitBackends.empty()) // BackendKind::Reference.
      return makeReferenceKernel(spec);
    const std::shared_ptr<SharedBackend> &backend = jitBackends.front();
    Expected<CompiledCode> code = backend->compile(spec);
    if (code && code->entry)
      return makeNativeKernel(spec, std::move(*code), backend);
    Status failure =
        code ? Status::error(ErrorCode::BackendFailure, "no code returned")
             : code.status();
    return Status::error(
        failure.code(), "the " + std::string(backendKindName(backend->kind())) +
                            " backend cannot compile " + spec.kernelName() +
                            ": " + failure.message());
  }

  /// The cache is keyed by the spec (knobs included) alone: everything
  /// else that decides the code (the backend choice, the ISA level
  /// generated for and the host's, within which backends tune, and the
  /// generators' versions) is fixed for the runtime's life.
  Expected<std::shared_ptr<const Kernel>>
  compile(const SpecKey &key,
          const std::shared_ptr<const KernelSpec> &shared = nullptr) {
    return cache.getOrCompile(
        key, [&] { return build(*key.spec); }, shared);
  }

  const RuntimeOptions options;
  const IsaLevel isa;
  /// The JIT backends to try (`auto`: best fit first, ties in this order).
  /// Empty for BackendKind::Reference;
  /// exactly the requested one for an explicit JIT backend.
  std::vector<std::shared_ptr<SharedBackend>> jitBackends;
  KernelCache cache;
  /// The persistent cache, shared with the backends; null when off.
  std::shared_ptr<DiskCache> disk;
  /// What compile(typeText, ...) calls lowered to.
  TypeTextMemo typeTextMemo;
};

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Expected<std::unique_ptr<Runtime>>
Runtime::create(const RuntimeOptions &options) {
  Expected<IsaLevel> isa = effectiveIsaLevel(options.maxIsa);
  if (!isa)
    return isa.status();
  auto impl = std::make_unique<Impl>(options, *isa);
  impl->disk = openDiskCache(options.diskCache, *isa);
  std::vector<BackendKind> wanted;
  if (options.backend == BackendKind::Auto)
    wanted.assign(kAutoBackends.begin(), kAutoBackends.end());
  else if (options.backend != BackendKind::Reference)
    wanted.push_back(options.backend);
  for (BackendKind kind : wanted) {
    std::string_view name = backendKindName(kind);
    Expected<std::unique_ptr<Backend>> backend = createBackend(name, *isa);
    if (backend) {
      (*backend)->setCodeStore(impl->disk);
      impl->jitBackends.push_back(
          std::make_shared<SharedBackend>(kind, std::move(*backend)));
      continue;
    }
    if (options.backend != BackendKind::Auto)
      return Status::error(
          backend.status().code(),
          "the " + std::string(name) +
              " backend is not available: " + backend.status().message());
    runtimeLogger().debug("{} backend not available at {}: {}", name,
                          isaLevelName(*isa), backend.status().message());
  }
  runtimeLogger().debug(
      "runtime created: backend {}, isa {} (host {}), {} JIT backend(s), {}",
      backendKindName(options.backend), isaLevelName(*isa),
      isaLevelName(hostIsaLevel()), impl->jitBackends.size(),
      libraryVersions());
  return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

Expected<std::shared_ptr<const Kernel>>
Runtime::compile(std::string_view typeText, KernelOp op) {
  return compile(typeText, op, defaultLowering());
}

Expected<std::shared_ptr<const Kernel>>
Runtime::compile(std::string_view typeText, KernelOp op,
                 const LoweringOptions &lowering) {
  std::shared_ptr<const LoweredSpec> lowered =
      impl_->typeTextMemo.find(typeText, op, lowering);
  if (!lowered) {
    // Errors are not remembered: they are cheap to find again.
    Expected<TypeDescriptor> type = parseTypeOrError(typeText);
    if (!type)
      return type.status();
    Expected<KernelSpec> spec = lowerToKernelSpec(*type, op, lowering);
    if (!spec)
      return spec.status();
    auto shared = std::make_shared<const KernelSpec>(std::move(*spec));
    size_t hash = structuralHash(*shared);
    lowered = std::make_shared<const LoweredSpec>(
        LoweredSpec{std::move(shared), hash});
    lowered =
        impl_->typeTextMemo.insert(typeText, op, lowering, std::move(lowered));
  }
  return impl_->compile(SpecKey(*lowered->spec, lowered->hash), lowered->spec);
}

Expected<std::shared_ptr<const Kernel>>
Runtime::compile(const KernelSpec &spec) {
  return impl_->compile(SpecKey(spec));
}

LoweringOptions Runtime::defaultLowering() const {
  LoweringOptions lowering;
  lowering.knobs = impl_->options.knobs;
  lowering.perAxisDequantizeInF64 = impl_->options.perAxisDequantizeInF64;
  lowering.dynamicRule = impl_->options.dynamicRule;
  return lowering;
}

const RuntimeOptions &Runtime::options() const { return impl_->options; }

IsaLevel Runtime::isa() const { return impl_->isa; }

CacheStats Runtime::stats() const {
  CacheStats stats = impl_->cache.stats();
  stats.typeTextHits = impl_->typeTextMemo.hits();
  if (impl_->disk)
    impl_->disk->addTo(stats);
  return stats;
}

void Runtime::clearCache() {
  impl_->typeTextMemo.clear();
  impl_->cache.clear();
}

CacheStats processCacheStats() {
  CacheStats stats = KernelCache::processStats();
  stats.typeTextHits = TypeTextMemo::processHits();
  DiskCache::addProcessTotals(stats);
  return stats;
}

} // namespace qjit
