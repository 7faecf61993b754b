//===- CompileBenchmarks.cpp - Compile and cache-hit latency --------------===//
#include "CompileBenchmarks.h"

#include "BenchCases.h"

#include "qjit/Isa.h"
#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"
#include "qjit/internal/Backend.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

namespace qjit::bench {

namespace {

struct CompileCase {
  const BenchCase *benchCase;
  KernelOp op;
};

Expected<KernelSpec> specFor(const CompileCase &c) {
  auto text = caseTypeText(*c.benchCase, kBenchSizes[0]);
  if (!text)
    return text.status();
  auto type = parseTypeOrError(*text);
  if (!type)
    return type.status();
  return lowerToKernelSpec(*type, c.op, caseLowering(*c.benchCase));
}

void coldCompile(benchmark::State &state, CompileCase c,
                 std::string backendName) {
  auto spec = specFor(c);
  auto isa = effectiveIsaLevel();
  if (!spec || !isa) {
    state.SkipWithError(
        (spec ? isa.status() : spec.status()).message().c_str());
    return;
  }
  auto backend = createBackend(backendName, *isa);
  if (!backend) {
    state.SkipWithError(("skipped: " + backend.status().message()).c_str());
    return;
  }
  if (auto first = (*backend)->compile(*spec); !first) {
    state.SkipWithError(("skipped: " + first.status().message()).c_str());
    return;
  }
  // Kernels stay alive until the loop ends so that freeing code is not
  // timed; the next float above the last scale keeps every spec distinct
  // (runtime-parameter specs carry no scale and are distinct anyway to a
  // backend, which does not cache).
  std::vector<CompiledCode> kept;
  std::vector<double> &scales = spec->params.scales;
  for (auto _ : state) {
    if (!scales.empty())
      scales[0] = std::nextafter(static_cast<float>(scales[0]), 1e30f);
    auto code = (*backend)->compile(*spec);
    if (!code) {
      state.SkipWithError(code.status().message().c_str());
      break;
    }
    kept.push_back(std::move(*code));
  }
  state.SetLabel(std::string(isaLevelName(*isa)));
}

void cacheHit(benchmark::State &state, CompileCase c, bool fromText) {
  auto spec = specFor(c);
  auto text = caseTypeText(*c.benchCase, kBenchSizes[0]);
  auto runtime = Runtime::create();
  if (!spec || !text || !runtime) {
    state.SkipWithError("skipped: cannot build the spec or the runtime");
    return;
  }
  Runtime &rt = **runtime;
  LoweringOptions lowering = caseLowering(*c.benchCase);
  auto compile = [&]() {
    return fromText ? rt.compile(*text, c.op, lowering) : rt.compile(*spec);
  };
  if (auto first = compile(); !first) {
    state.SkipWithError(("skipped: " + first.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto kernel = compile();
    benchmark::DoNotOptimize(kernel);
  }
}

} // namespace

void registerCompileBenchmarks() {
  for (const BenchCase &benchCase : benchCases())
    for (KernelOp op : {KernelOp::QCast, KernelOp::DCast}) {
      if (!caseRunsAs(benchCase, op))
        continue;
      CompileCase c{&benchCase, op};
      std::string stem = std::string(kernelOpName(op)) + "/" +
                         std::string(benchCase.name) + "/";
      for (std::string backend : {"llvm", "asmjit"})
        benchmark::RegisterBenchmark(
            ("compile/" + stem + backend).c_str(),
            [c, backend](benchmark::State &s) { coldCompile(s, c, backend); })
            ->Unit(benchmark::kMicrosecond);
      for (bool fromText : {false, true})
        benchmark::RegisterBenchmark(
            ("cache_hit/" + stem + (fromText ? "text" : "spec")).c_str(),
            [c, fromText](benchmark::State &s) { cacheHit(s, c, fromText); })
            ->Unit(benchmark::kNanosecond);
    }
}

} // namespace qjit::bench
