//===- A64Generators.cpp - KernelSpec → AArch64 NEON code -----------------===//
//
// Same arithmetic as the x86 kernels (see X86IntegerQuantizeBody.h), with
// NEON's own strengths: fdiv is IEEE division, fcvtns / fcvtas / fcvtzs
// convert with the knob's rounding and saturate, sqxtn / sqxtun / uqxtn
// narrow saturating, and fcvtl / fcvtn widen f16 exactly and round to it
// (RNE, per the untouched default FPCR). 16 elements per main iteration
// (four q registers), then one element at a time.
//
// Layouts other than per-tensor run as "runs" (A64RunPlan.h): a table (in
// the code section) lists each run's parameter index, and the parameters
// are loaded into the broadcast registers before each run, so no element
// needs a division or modulo. Registers follow AAPCS64: only
// caller-saved x0-x17, v0-v7 and v16-v31 are used (the kernel is a leaf).
//
//===----------------------------------------------------------------------===//
#include "A64Generators.h"

#include "A64RunPlan.h"

#include "plan/PlanLimits.h"

#include "qjit/internal/HostFloat.h"

#include <asmjit/arm/a64assembler.h>

#include <bit>
#include <cstdint>
#include <optional>

namespace qjit::asmjit_backend {

namespace {

namespace a64 = asmjit::a64;
using asmjit::Label;

// Arguments, then the registers of the run loop.
const a64::GpX src = a64::x0, dst = a64::x1, remaining = a64::x2,
               kernelParams = a64::x3, count = a64::x4, runTable = a64::x5,
               runIndex = a64::x6, runLength = a64::x7, paramIndex = a64::x8,
               scratch = a64::x9, scratch2 = a64::x10, repeatCount = a64::x11,
               repeatsLeft = a64::x12, groupRunsLeft = a64::x13,
               paramTable = a64::x16, zeroPoints = a64::x17;
const a64::GpW scratchW = a64::w9;

// Broadcast parameters: scale (or its reciprocal), the zero point in f32,
// the zero point as an i32 sum term, then bounds and limits.
constexpr unsigned kScale = 16, kZeroCompute = 17, kZeroSum = 18, kLow = 19,
                   kHigh = 20, kLimitLow = 21, kLimitHigh = 22, kZeroLow = 23;
// Temporaries beyond v0-v7.
constexpr unsigned kNarrow = 24, kWide = 26, kParamEntry = 28, kSum = 29;

/// Baked zero points within ±2^20: round(u) + z is summed in i32
/// (PlanLimits.h). Runtime zero points may be any int64: see
/// emitWideZeroSum.
constexpr float kRoundedLimit = static_cast<float>(plan::kNarrowRoundedLimit);
constexpr int64_t kBakedZeroLimit = plan::kNarrowZeroLimit;

Status unsupported(const std::string &what) {
  return Status::error(ErrorCode::Unsupported,
                       "asmjit backend: AArch64 " + what +
                           " is not generated (the llvm backend covers it)");
}

a64::Vec v(unsigned id) { return a64::Vec(a64::VecV(id)); }

uint32_t floatBits(float value) { return std::bit_cast<uint32_t>(value); }

/// Bounds narrower than the container need clamps; the container's own
/// range comes from the saturating converts and narrows.
bool hasContainerRange(const StorageSpec &s) {
  int64_t span = int64_t(1) << s.bits;
  return s.isSigned ? (s.min == -span / 2 && s.max == span / 2 - 1)
                    : (s.min == 0 && s.max == span - 1);
}

Status checkA64Support(const KernelSpec &spec) {
  if (spec.op == KernelOp::SCast)
    return unsupported("scast");
  if (spec.params.dynamic != DynamicScheme::None)
    return unsupported("dynamic qcast");
  if (spec.params.scaleFormat != ScaleFormat::Expressed)
    return unsupported("runtime scales in a format other than the expressed "
                       "type's");
  if (spec.expressed != ValueType::F32 && spec.expressed != ValueType::F16)
    return unsupported("bf16 and f64 expressed values");
  if (spec.compute != ValueType::F32)
    return unsupported("f64 arithmetic on f32 values");
  const StorageSpec &s = spec.storage;
  if (s.kind != StorageType::Kind::Integer || s.packed ||
      (s.bits != 8 && s.bits != 16))
    return unsupported("storage other than 8- or 16-bit integers");
  if (spec.params.scales.size() > kMaxRunTableEntries)
    return unsupported("more than 32768 baked parameters");
  for (int64_t zero : spec.params.zeroPoints)
    if (zero < -kBakedZeroLimit || zero > kBakedZeroLimit)
      return unsupported("baked zero points beyond ±2^20 (lowering keeps "
                         "them within the storage bounds)");
  return Status::ok();
}

class A64Generator {
public:
  A64Generator(a64::Assembler &a, const KernelSpec &spec)
      : a_(a), spec_(spec) {}

  Status generate() {
    std::optional<RunPlan> runs;
    if (spec_.layout.kind != LayoutSpec::Kind::PerTensor) {
      Expected<RunPlan> planned = planRuns(spec_.layout);
      if (!planned)
        return planned.status();
      runs = std::move(*planned);
    }
    Label done = a_.newLabel(), paramData = a_.newLabel(),
          runData = a_.newLabel();
    // n == 0 reads nothing, not even the parameters (they may be null).
    a_.cbz(remaining, done);
    emitBroadcastConstants();
    emitParameterBase(paramData);
    if (!runs) {
      a_.mov(paramIndex, 0);
      emitLoadParameters();
      a_.mov(count, remaining);
      emitElementLoop();
    } else {
      emitRunLoop(*runs, runData);
    }
    a_.bind(done);
    a_.ret(a64::x30);
    emitTables(runs, paramData, runData);
    return Status::ok();
  }

private:
  bool isQuantize() const { return spec_.op == KernelOp::QCast; }
  bool isHalf() const { return spec_.expressed == ValueType::F16; }
  bool isReciprocal() const {
    return isQuantize() && spec_.knobs.scaleOp == ScaleOp::Reciprocal;
  }
  bool beforeRounding() const {
    return spec_.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
  }
  bool afterRoundingQuantize() const {
    return isQuantize() && !beforeRounding();
  }
  /// round(u) + z for any int64 z (runtime parameters): in f64 lanes.
  bool wideZeroSum() const {
    return afterRoundingQuantize() && spec_.params.runtime;
  }
  bool clampsBounds() const {
    return isQuantize() && !hasContainerRange(spec_.storage);
  }
  unsigned containerBits() const { return spec_.storage.bits; }

  void dupImmediate(unsigned reg, uint32_t bits) {
    a_.movz(scratchW, bits & 0xffff);
    a_.movk(scratchW, bits >> 16, asmjit::arm::lsl(16));
    a_.dup(v(reg).s4(), scratchW);
  }
  void dupImmediate64(unsigned reg, uint64_t bits) {
    a_.mov(scratch, bits);
    a_.dup(v(reg).d2(), scratch);
  }

  /// Registers that hold the same value for every element.
  void emitBroadcastConstants() {
    if (!isQuantize())
      return;
    if (wideZeroSum()) { // Always clamped, in f64 (bounds are exact).
      dupImmediate64(kLow, std::bit_cast<uint64_t>(
                               static_cast<double>(spec_.storage.min)));
      dupImmediate64(kHigh, std::bit_cast<uint64_t>(
                                static_cast<double>(spec_.storage.max)));
      return;
    }
    if (afterRoundingQuantize()) {
      dupImmediate(kLimitLow, floatBits(-kRoundedLimit));
      dupImmediate(kLimitHigh, floatBits(kRoundedLimit));
    }
    if (!clampsBounds())
      return;
    auto bound = [&](int64_t value) {
      // Integer bounds for the i32 sum, exact f32 bounds (|bound| < 2^17).
      return afterRoundingQuantize()
                 ? static_cast<uint32_t>(static_cast<int32_t>(value))
                 : floatBits(static_cast<float>(value));
    };
    dupImmediate(kLow, bound(spec_.storage.min));
    dupImmediate(kHigh, bound(spec_.storage.max));
  }

  /// paramTable: the baked parameter table, or KernelParams::scales (and
  /// zeroPoints: KernelParams::zeroPoints) for runtime parameters.
  void emitParameterBase(const Label &paramData) {
    if (!spec_.params.runtime) {
      a_.adr(paramTable, paramData);
      return;
    }
    a_.ldr(paramTable, a64::ptr(kernelParams, 8));
    a_.ldr(zeroPoints, a64::ptr(kernelParams, 16));
  }

  /// Broadcasts parameter number `paramIndex` into the parameter registers.
  void emitLoadParameters() {
    if (!spec_.params.runtime) {
      // Entries: {scale or reciprocal, zero point in f32, zero point sum
      // term, 0}, 16 bytes each.
      a_.ldr(v(kParamEntry).q(),
             a64::ptr(paramTable, paramIndex, asmjit::arm::lsl(4)));
      a_.dup(v(kScale).s4(), v(kParamEntry).s(0));
      a_.dup(v(kZeroCompute).s4(), v(kParamEntry).s(1));
      if (afterRoundingQuantize())
        a_.dup(v(kZeroSum).s4(), v(kParamEntry).s(2));
      return;
    }
    if (isHalf()) {
      a_.ldr(v(kScale).h(),
             a64::ptr(paramTable, paramIndex, asmjit::arm::lsl(1)));
      a_.fcvt(v(kScale).s(), v(kScale).h()); // Exact.
    } else {
      a_.ldr(v(kScale).s(),
             a64::ptr(paramTable, paramIndex, asmjit::arm::lsl(2)));
    }
    if (isReciprocal()) {
      a_.fmov(v(kParamEntry).s(), 1.0);
      a_.fdiv(v(kScale).s(), v(kParamEntry).s(), v(kScale).s());
    }
    a_.dup(v(kScale).s4(), v(kScale).s(0));
    // Null zero points mean all zero.
    Label zeroLoaded = a_.newLabel();
    a_.mov(scratch, 0);
    a_.cbz(zeroPoints, zeroLoaded);
    a_.ldr(scratch, a64::ptr(zeroPoints, paramIndex, asmjit::arm::lsl(3)));
    a_.bind(zeroLoaded);
    if (!afterRoundingQuantize()) {
      a_.scvtf(v(kZeroCompute).s(), scratch); // fl_f32(z), RNE.
      a_.dup(v(kZeroCompute).s4(), v(kZeroCompute).s(0));
      return;
    }
    // z = high + low, high = z with its low 32 bits cleared, low = those
    // bits (0 ≤ low < 2^32): both exact in f64, and no overflow.
    a_.and_(scratch2, scratch, uint64_t(0xffffffff00000000));
    a_.scvtf(v(kZeroSum).d(), scratch2);
    a_.dup(v(kZeroSum).d2(), v(kZeroSum).d(0));
    a_.mov(scratch2.w(), scratchW); // Zero-extends.
    a_.ucvtf(v(kZeroLow).d(), scratch2);
    a_.dup(v(kZeroLow).d2(), v(kZeroLow).d(0));
  }

  /// x (4 f32 lanes of integral values or ±inf) + z, saturated to the
  /// bounds, as i32 lanes. (r + high) + low in f64 is exact whenever the
  /// result lies within the bounds (then |r + high| < 2^33), and rounds
  /// monotonically beyond them, so saturation sees the exact sum's side.
  void emitWideZeroSum(const a64::Vec &x) {
    a64::Vec low = v(kSum).d2(), high = v(kSum + 1).d2();
    a_.fcvtl(low, x.s2());
    a_.fcvtl2(high, x.s4());
    for (const a64::Vec &t : {low, high}) {
      a_.fadd(t, t, v(kZeroSum).d2());
      a_.fadd(t, t, v(kZeroLow).d2());
      a_.fmax(t, t, v(kLow).d2());
      a_.fmin(t, t, v(kHigh).d2());
      a_.fcvtzs(t, t);
    }
    a_.xtn(x.s2(), low);
    a_.xtn2(x.s4(), high);
  }

  void emitRunLoop(const RunPlan &runs, const Label &runData) {
    Label next = a_.newLabel(), sameRound = a_.newLabel(), done = a_.newLabel();
    a_.adr(runTable, runData);
    a_.mov(runIndex, 0);
    if (runs.repeatExtent) {
      a_.ldr(repeatCount, a64::ptr(kernelParams, 0)); // extents
      a_.ldr(repeatCount,
             a64::ptr(repeatCount, int32_t(*runs.repeatExtent * 8)));
      a_.mov(repeatsLeft, repeatCount);
      a_.mov(groupRunsLeft, runs.repeatedRuns);
    }
    if (runs.lengthExtent) {
      a_.ldr(runLength, a64::ptr(kernelParams, 0)); // extents
      a_.ldr(runLength, a64::ptr(runLength, int32_t(*runs.lengthExtent * 8)));
    } else {
      a_.mov(runLength, static_cast<uint64_t>(runs.length));
    }
    a_.bind(next);
    a_.cbz(remaining, done);
    a_.mov(scratch, runs.parameters.size());
    a_.cmp(runIndex, scratch);
    a_.b_ne(sameRound);
    a_.mov(runIndex, 0); // The next period.
    a_.bind(sameRound);
    a_.ldr(a64::w8, a64::ptr(runTable, runIndex, asmjit::arm::lsl(2)));
    a_.add(runIndex, runIndex, 1);
    if (runs.repeatExtent)
      emitRepeat(runs);
    emitLoadParameters();
    a_.mov(count, runLength);
    a_.sub(remaining, remaining, runLength);
    emitElementLoop();
    a_.b(next);
    a_.bind(done);
  }

  /// After the last run of a group: run the group again until it ran
  /// extents[repeatExtent] times, then go on to the next group.
  void emitRepeat(const RunPlan &runs) {
    Label inGroup = a_.newLabel(), groupDone = a_.newLabel();
    a_.sub(groupRunsLeft, groupRunsLeft, 1);
    a_.cbnz(groupRunsLeft, inGroup);
    a_.mov(groupRunsLeft, runs.repeatedRuns);
    a_.sub(repeatsLeft, repeatsLeft, 1);
    a_.cbz(repeatsLeft, groupDone);
    a_.sub(runIndex, runIndex, runs.repeatedRuns);
    a_.b(inGroup);
    a_.bind(groupDone);
    a_.mov(repeatsLeft, repeatCount);
    a_.bind(inGroup);
  }

  /// `count` elements from src to dst with the loaded parameters.
  void emitElementLoop() {
    Label loop = a_.newLabel(), tail = a_.newLabel(), done = a_.newLabel();
    a_.bind(loop);
    a_.cmp(count, 16);
    a_.b_lo(tail);
    isQuantize() ? emitQuantizeBlock() : emitDequantizeBlock();
    a_.sub(count, count, 16);
    a_.b(loop);
    a_.bind(tail);
    a_.cbz(count, done);
    isQuantize() ? emitQuantizeOne() : emitDequantizeOne();
    a_.sub(count, count, 1);
    a_.b(tail);
    a_.bind(done);
  }

  void emitTables(const std::optional<RunPlan> &runs, const Label &paramData,
                  const Label &runData) {
    a_.align(asmjit::AlignMode::kData, 16);
    a_.bind(paramData);
    if (!spec_.params.runtime) {
      for (size_t k = 0; k < spec_.params.scales.size(); ++k) {
        float scale = static_cast<float>(bakedScale(spec_, k));
        if (isReciprocal())
          scale = 1.0f / scale;
        int64_t zero = spec_.params.zeroPoints[k];
        a_.embedUInt32(floatBits(scale));
        a_.embedUInt32(floatBits(static_cast<float>(zero)));
        a_.embedInt32(static_cast<int32_t>(zero));
        a_.embedUInt32(0);
      }
    }
    a_.bind(runData);
    if (runs)
      a_.embedDataArray(asmjit::TypeId::kUInt32, runs->parameters.data(),
                        runs->parameters.size());
  }

  /// f32 lanes of register i → rounded, saturated i32 lanes.
  void emitQuantizeLanes(unsigned i) {
    a64::Vec x = v(i).s4();
    isReciprocal() ? a_.fmul(x, x, v(kScale).s4())
                   : a_.fdiv(x, x, v(kScale).s4());
    // NaN lanes → 0, which yields the (clamped) zero point.
    a_.fcmeq(v(i + 4).s4(), x, x);
    a_.and_(v(i).b16(), v(i).b16(), v(i + 4).b16());
    if (beforeRounding()) {
      a_.fadd(x, x, v(kZeroCompute).s4());
      if (clampsBounds()) { // Integral bounds commute with rounding.
        a_.fmax(x, x, v(kLow).s4());
        a_.fmin(x, x, v(kHigh).s4());
      }
      switch (spec_.knobs.rounding) {
      case RoundingMode::NearestEven:
        a_.fcvtns(x, x);
        break;
      case RoundingMode::NearestAway:
        a_.fcvtas(x, x);
        break;
      case RoundingMode::TowardZero:
        a_.fcvtzs(x, x);
        break;
      }
      return;
    }
    // Toward zero needs no frint in i32: fcvtzs truncates, and truncation
    // commutes with the integral limits.
    if (spec_.knobs.rounding == RoundingMode::NearestEven)
      a_.frintn(x, x);
    else if (spec_.knobs.rounding == RoundingMode::NearestAway)
      a_.frinta(x, x);
    else if (wideZeroSum())
      a_.frintz(x, x);
    if (wideZeroSum()) {
      emitWideZeroSum(x);
      return;
    }
    a_.fmax(x, x, v(kLimitLow).s4());
    a_.fmin(x, x, v(kLimitHigh).s4());
    a_.fcvtzs(x, x);
    a_.add(x, x, v(kZeroSum).s4());
    if (clampsBounds()) {
      a_.smax(x, x, v(kLow).s4());
      a_.smin(x, x, v(kHigh).s4());
    }
  }

  /// i32 lanes of `from` → saturated 16-bit lanes (low or high half of
  /// `to`); then, for 8-bit storage, 16-bit → 8-bit.
  void narrowToHalf(const a64::Vec &to, unsigned from, bool high) {
    bool isSigned = spec_.storage.isSigned;
    if (high)
      isSigned ? a_.sqxtn2(to.h8(), v(from).s4())
               : a_.sqxtun2(to.h8(), v(from).s4());
    else
      isSigned ? a_.sqxtn(to.h4(), v(from).s4())
               : a_.sqxtun(to.h4(), v(from).s4());
  }
  void narrowToByte(const a64::Vec &to, unsigned from, bool high) {
    bool isSigned = spec_.storage.isSigned;
    if (high)
      isSigned ? a_.sqxtn2(to.b16(), v(from).h8())
               : a_.uqxtn2(to.b16(), v(from).h8());
    else
      isSigned ? a_.sqxtn(to.b8(), v(from).h8())
               : a_.uqxtn(to.b8(), v(from).h8());
  }

  /// 16 expressed values from src into f32 lanes of v0..v3.
  void loadExpressedBlock() {
    if (!isHalf()) {
      a_.ld1(v(0).s4(), v(1).s4(), v(2).s4(), v(3).s4(),
             a64::ptr_post(src, 64));
      return;
    }
    a_.ld1(v(kWide).h8(), v(kWide + 1).h8(), a64::ptr_post(src, 32));
    a_.fcvtl(v(0).s4(), v(kWide).h4());
    a_.fcvtl2(v(1).s4(), v(kWide).h8());
    a_.fcvtl(v(2).s4(), v(kWide + 1).h4());
    a_.fcvtl2(v(3).s4(), v(kWide + 1).h8());
  }

  void emitQuantizeBlock() {
    loadExpressedBlock();
    for (unsigned i = 0; i < 4; ++i)
      emitQuantizeLanes(i);
    narrowToHalf(v(kNarrow), 0, false);
    narrowToHalf(v(kNarrow), 1, true);
    narrowToHalf(v(kNarrow + 1), 2, false);
    narrowToHalf(v(kNarrow + 1), 3, true);
    if (containerBits() == 16) {
      a_.st1(v(kNarrow).h8(), v(kNarrow + 1).h8(), a64::ptr_post(dst, 32));
      return;
    }
    narrowToByte(v(kNarrow + 2), kNarrow, false);
    narrowToByte(v(kNarrow + 2), kNarrow + 1, true);
    a_.st1(v(kNarrow + 2).b16(), a64::ptr_post(dst, 16));
  }

  void emitQuantizeOne() {
    if (isHalf()) {
      a_.ldr(v(0).h(), a64::ptr_post(src, 2));
      a_.fcvt(v(0).s(), v(0).h());
    } else {
      a_.ldr(v(0).s(), a64::ptr_post(src, 4));
    }
    emitQuantizeLanes(0);
    narrowToHalf(v(kNarrow), 0, false);
    if (containerBits() == 16) {
      a_.umov(scratchW, v(kNarrow).h(0));
      a_.strh(scratchW, a64::ptr_post(dst, 2));
      return;
    }
    narrowToByte(v(kNarrow + 2), kNarrow, false);
    a_.umov(scratchW, v(kNarrow + 2).b(0));
    a_.strb(scratchW, a64::ptr_post(dst, 1));
  }

  /// i32 lanes of register i → f32 (q − z) · s.
  void emitDequantizeLanes(unsigned i) {
    a64::Vec x = v(i).s4();
    a_.scvtf(x, x);
    a_.fsub(x, x, v(kZeroCompute).s4());
    a_.fmul(x, x, v(kScale).s4());
  }

  void widen(unsigned to, unsigned from, bool high, bool toWords) {
    bool isSigned = spec_.storage.isSigned;
    a64::Vec out = toWords ? v(to).s4() : v(to).h8();
    a64::Vec in = toWords ? (high ? a64::Vec(v(from).h8()) : v(from).h4())
                          : (high ? a64::Vec(v(from).b16()) : v(from).b8());
    if (high)
      isSigned ? a_.sxtl2(out, in) : a_.uxtl2(out, in);
    else
      isSigned ? a_.sxtl(out, in) : a_.uxtl(out, in);
  }

  void emitDequantizeBlock() {
    if (containerBits() == 8) {
      a_.ld1(v(kNarrow).b16(), a64::ptr_post(src, 16));
      widen(kWide, kNarrow, false, false);
      widen(kWide + 1, kNarrow, true, false);
    } else {
      a_.ld1(v(kWide).h8(), v(kWide + 1).h8(), a64::ptr_post(src, 32));
    }
    widen(0, kWide, false, true);
    widen(1, kWide, true, true);
    widen(2, kWide + 1, false, true);
    widen(3, kWide + 1, true, true);
    for (unsigned i = 0; i < 4; ++i)
      emitDequantizeLanes(i);
    if (!isHalf()) {
      a_.st1(v(0).s4(), v(1).s4(), v(2).s4(), v(3).s4(),
             a64::ptr_post(dst, 64));
      return;
    }
    // f32 → f16 rounds once more (RNE), as docs/semantics.md 5.1 requires.
    a_.fcvtn(v(kNarrow).h4(), v(0).s4());
    a_.fcvtn2(v(kNarrow).h8(), v(1).s4());
    a_.fcvtn(v(kNarrow + 1).h4(), v(2).s4());
    a_.fcvtn2(v(kNarrow + 1).h8(), v(3).s4());
    a_.st1(v(kNarrow).h8(), v(kNarrow + 1).h8(), a64::ptr_post(dst, 32));
  }

  void emitDequantizeOne() {
    bool isSigned = spec_.storage.isSigned;
    if (containerBits() == 8)
      isSigned ? a_.ldrsb(scratchW, a64::ptr_post(src, 1))
               : a_.ldrb(scratchW, a64::ptr_post(src, 1));
    else
      isSigned ? a_.ldrsh(scratchW, a64::ptr_post(src, 2))
               : a_.ldrh(scratchW, a64::ptr_post(src, 2));
    a_.dup(v(0).s4(), scratchW);
    emitDequantizeLanes(0);
    if (!isHalf()) {
      a_.str(v(0).s(), a64::ptr_post(dst, 4));
      return;
    }
    a_.fcvt(v(0).h(), v(0).s());
    a_.str(v(0).h(), a64::ptr_post(dst, 2));
  }

  a64::Assembler &a_;
  const KernelSpec &spec_;
};

} // namespace

Status assembleA64Kernel(asmjit::CodeHolder &code, const KernelSpec &spec) {
  if (Status status = checkA64Support(spec); !status)
    return status;
  a64::Assembler assembler(&code);
  return A64Generator(assembler, spec).generate();
}

} // namespace qjit::asmjit_backend
