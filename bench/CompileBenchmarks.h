//===- CompileBenchmarks.h - Compile and cache-hit latency ------*- C++ -*-===//
#ifndef QJIT_BENCH_COMPILEBENCHMARKS_H
#define QJIT_BENCH_COMPILEBENCHMARKS_H

namespace qjit::bench {

/// Registers, for every case at its smallest size and both ops:
/// "compile/OP/CASE/BACKEND": a cold compile by each backend (a distinct
/// scale per iteration, so no cache anywhere can answer), and
/// "cache_hit/OP/CASE/spec" and ".../text": Runtime::compile of a spec or
/// of the type text that is already cached.
void registerCompileBenchmarks();

} // namespace qjit::bench

#endif
