//===- X86PeriodicRuns.cpp - Per-element tables over whole vectors --------===//
#include "X86PeriodicRuns.h"

#include "X86Isa.h"

#include <numeric>

namespace qjit::asmjit_backend {

namespace {
/// Widened tables stay this small (three of them: scale, zero point,
/// reciprocal), so they stay in L1 next to the streamed data.
constexpr int64_t kMaxWidenedElements = 1024;
/// Runs at least this long amortize the per-run loop setup.
constexpr int64_t kMinRunElements = 256;
/// Runtime per-axis runs from this length on measured at least as fast as
/// llvm on AVX2 even with a tail each (shorter ones: 0.1-0.4x llvm).
constexpr int64_t kMinRuntimeRun = 64;
} // namespace

int64_t periodicTableElements(int64_t period, int64_t lanes, bool packed) {
  int64_t base = packed ? std::lcm(period, int64_t(8)) : period;
  int64_t block = std::lcm(base, lanes * int64_t(reg::kUnroll));
  if (base >= kMinRunElements || block > kMaxWidenedElements)
    return base;
  return block * ((kMinRunElements + block - 1) / block);
}

namespace {
/// Runtime per-axis runs shorter than kMinRuntimeRun and no whole number
/// of vectors: one parameter load and a tail per run.
bool shortRuntimeRuns(const KernelSpec &spec) {
  const LayoutSpec &layout = spec.layout;
  if (!spec.params.runtime || layout.kind != LayoutSpec::Kind::PerAxis ||
      layout.inner == LayoutSpec::kDynamic || layout.channels == 1)
    return false;
  return layout.inner < kMinRuntimeRun && layout.inner % 8 != 0;
}

/// Two pages at most (emitFill touches them top down, as the stack grows).
constexpr int64_t kMaxRuntimeTableBytes = 8192;
constexpr int32_t kPageBytes = 4096;

int64_t runtimeTableElements(const KernelSpec &spec, unsigned lanes) {
  return periodicTableElements(spec.layout.channels * spec.layout.inner, lanes,
                               false) +
         lanes; // Padded by a vector: a tail's full-width read stays inside.
}

int32_t runtimeTables(const KernelSpec &spec) {
  return spec.op == KernelOp::QCast ? 3 : 2;
}
} // namespace

bool hasShortRuntimeRuns(const KernelSpec &spec, unsigned lanes) {
  return shortRuntimeRuns(spec) && !X86RuntimeTables::applies(spec, lanes);
}

bool X86RuntimeTables::applies(const KernelSpec &spec, unsigned lanes) {
  // Runtime qcast after rounding takes the wide kernels.
  return spec.op != KernelOp::SCast && shortRuntimeRuns(spec) &&
         spec.storage.kind == StorageType::Kind::Integer &&
         !spec.storage.packed && spec.expressed != ValueType::F64 &&
         (spec.op == KernelOp::DCast ||
          spec.knobs.zeroPoint == ZeroPointOrder::BeforeRounding) &&
         spec.layout.channels <= kMaxWidenedElements &&
         runtimeTables(spec) * 4 * runtimeTableElements(spec, lanes) <=
             kMaxRuntimeTableBytes;
}

X86RuntimeTables::X86RuntimeTables(const KernelSpec &spec, unsigned lanes)
    : channels_(spec.layout.channels), inner_(spec.layout.inner),
      covered_(periodicTableElements(channels_ * inner_, lanes, false)),
      vectorBytes_(static_cast<int32_t>(4 * lanes)),
      tables_(runtimeTables(spec)),
      tableBytes_(static_cast<int32_t>(4 * runtimeTableElements(spec, lanes))) {
}

x86::Mem X86RuntimeTables::table(int32_t index, unsigned slot) const {
  return x86::ptr(reg::paramIndex,
                  index * tableBytes_ +
                      static_cast<int32_t>(slot) * vectorBytes_);
}

void X86RuntimeTables::emitFill(x86::Assembler &a, X86Parameters &params,
                                const x86::Vec &threshold) const {
  // For each channel p: its parameters (broadcast by the per-run load),
  // then stored at elements k·period + p·inner + j of every period k.
  const x86::Gp entry = reg::scratch2, periods = reg::runCount;
  const int32_t periodBytes = static_cast<int32_t>(4 * channels_ * inner_);
  const x86::Xmm s = x86::xmm(reg::kScale), z = x86::xmm(reg::kZeroPoint),
                 divisor = x86::xmm(reg::kScalar);
  x86::Ymm least = x86::ymm(reg::kWork);
  if (threshold.isValid()) { // INT32_MAX: above every threshold.
    a.vpcmpeqd(least, least, least);
    a.vpsrld(least, least, 1);
  }
  // The frame moved rsp down by stackBytes(): touch each page from the
  // top down first (a write further than a page below the last touched
  // one could skip a stack guard page).
  for (int32_t offset = stackBytes() - kPageBytes; offset > 0;
       offset -= kPageBytes)
    a.mov(x86::dword_ptr(x86::rsp, offset), 0);
  a.mov(x86::dword_ptr(x86::rsp), 0);
  asmjit::Label channel = a.newLabel(), period = a.newLabel();
  a.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
  a.bind(channel);
  params.emitLoad(a);
  if (threshold.isValid())
    a.vpminsd(least, least, threshold.ymm());
  if (tables_ > 2)
    emitLoadRuntimeScale(a, params.scaleType(), divisor);
  a.imul(entry, reg::paramIndex, static_cast<int32_t>(4 * inner_));
  a.add(entry, x86::rsp);
  a.mov(periods, covered_ / (channels_ * inner_));
  a.bind(period);
  for (int32_t j = 0; j < inner_; ++j) {
    a.vmovss(x86::dword_ptr(entry, 4 * j), s);
    a.vmovss(x86::dword_ptr(entry, tableBytes_ + 4 * j), z);
    if (tables_ > 2)
      a.vmovss(x86::dword_ptr(entry, 2 * tableBytes_ + 4 * j), divisor);
  }
  a.add(entry, periodBytes);
  a.dec(periods);
  a.jnz(period);
  a.inc(reg::paramIndex);
  a.cmp(reg::paramIndex, channels_);
  a.jb(channel);
  if (threshold.isValid())
    a.vmovdqa(threshold.ymm(), least);
}

} // namespace qjit::asmjit_backend
