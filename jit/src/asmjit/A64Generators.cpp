//===- A64Generators.cpp - KernelSpec → AArch64 NEON listings -------------===//
//
// Same arithmetic as the x86 kernels (see X86QuantizeGenerator.cpp), with
// NEON's own strengths: fcvtns / fcvtzs / fcvtas convert with the knob's
// rounding and saturate, and sqxtn / sqxtun / uqxtn narrow saturating, so
// f32 clamps are only needed for explicit bounds. 16 elements per main
// iteration (four q registers), then one element at a time.
//
//===----------------------------------------------------------------------===//
#include "A64Generators.h"

#include "AsmjitAssembly.h"

#include "qjit/HostFloat.h"

#include <asmjit/arm/a64assembler.h>

#include <bit>
#include <cstdint>

namespace qjit::asmjit_backend {

namespace {

namespace a64 = asmjit::a64;
using asmjit::Label;

const a64::GpX src = a64::x0, dst = a64::x1, count = a64::x2;
const a64::GpW scratch = a64::w9;
constexpr unsigned kScale = 16, kZero = 17, kLow = 18, kHigh = 19;

Status unsupported(const std::string &what) {
  return Status::error(ErrorCode::Unsupported, "asmjit backend: AArch64 " +
                                                   what +
                                                   " is not generated yet");
}

Status checkA64Support(const KernelSpec &spec) {
  if (spec.op == KernelOp::SCast)
    return unsupported("scast");
  if (spec.layout.kind != LayoutSpec::Kind::PerTensor || spec.params.runtime)
    return unsupported("per-axis, blockwise or runtime parameters");
  if (spec.expressed != ValueType::F32)
    return unsupported("non-f32 expressed values");
  const StorageSpec &s = spec.storage;
  if (s.kind != StorageType::Kind::Integer || s.packed ||
      (s.bits != 8 && s.bits != 16))
    return unsupported("storage other than 8- or 16-bit integers");
  return Status::ok();
}

a64::Vec v(unsigned id) { return a64::Vec(a64::VecV(id)); }

/// Bounds narrower than the container need f32 clamps; the container's
/// own range comes from the saturating converts and narrows.
bool hasContainerRange(const StorageSpec &s) {
  int64_t span = int64_t(1) << s.bits;
  return s.isSigned ? (s.min == -span / 2 && s.max == span / 2 - 1)
                    : (s.min == 0 && s.max == span - 1);
}

class A64Generator {
public:
  A64Generator(a64::Assembler &a, const KernelSpec &spec)
      : a_(a), spec_(spec) {}

  void generate() {
    emitConstants();
    Label loop = a_.newLabel(), tail = a_.newLabel(), done = a_.newLabel();
    a_.bind(loop);
    a_.cmp(count, 16);
    a_.b_lo(tail);
    spec_.op == KernelOp::QCast ? emitQuantizeBlock() : emitDequantizeBlock();
    a_.sub(count, count, 16);
    a_.b(loop);
    a_.bind(tail);
    a_.cbz(count, done);
    spec_.op == KernelOp::QCast ? emitQuantizeOne() : emitDequantizeOne();
    a_.sub(count, count, 1);
    a_.b(tail);
    a_.bind(done);
    a_.ret(a64::x30);
  }

private:
  bool isQuantize() const { return spec_.op == KernelOp::QCast; }
  unsigned containerBits() const { return spec_.storage.bits; }

  void dupImmediate(unsigned reg, uint32_t bits) {
    a_.movz(scratch, bits & 0xffff);
    a_.movk(scratch, bits >> 16, asmjit::arm::lsl(16));
    a_.dup(v(reg).s4(), scratch);
  }

  void emitConstants() {
    float scale = static_cast<float>(
        roundToValueType(spec_.params.scales[0], spec_.expressed));
    if (isQuantize() && spec_.knobs.scaleOp == ScaleOp::Reciprocal)
      scale = 1.0f / scale;
    dupImmediate(kScale, std::bit_cast<uint32_t>(scale));
    dupImmediate(kZero, std::bit_cast<uint32_t>(
                            static_cast<float>(spec_.params.zeroPoints[0])));
    if (isQuantize() && !hasContainerRange(spec_.storage)) {
      dupImmediate(
          kLow, std::bit_cast<uint32_t>(static_cast<float>(spec_.storage.min)));
      dupImmediate(kHigh, std::bit_cast<uint32_t>(
                              static_cast<float>(spec_.storage.max)));
    }
  }

  /// f32 lanes of register i → rounded, saturated i32 lanes.
  void emitQuantizeLanes(unsigned i) {
    a64::Vec x = v(i).s4(), t = v(i + 4).s4();
    spec_.knobs.scaleOp == ScaleOp::Divide ? a_.fdiv(x, x, v(kScale).s4())
                                           : a_.fmul(x, x, v(kScale).s4());
    // NaN lanes → 0, which yields the zero point.
    a_.fcmeq(t, x, x);
    a_.and_(v(i).b16(), v(i).b16(), v(i + 4).b16());
    bool before = spec_.knobs.zeroPoint == ZeroPointOrder::BeforeRounding;
    if (!before)
      emitRoundToIntegral(x);
    a_.fadd(x, x, v(kZero).s4());
    if (!hasContainerRange(spec_.storage)) {
      a_.fmax(x, x, v(kLow).s4());
      a_.fmin(x, x, v(kHigh).s4());
    }
    if (!before) {
      a_.fcvtzs(x, x);
      return;
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
  }

  void emitRoundToIntegral(const a64::Vec &x) {
    switch (spec_.knobs.rounding) {
    case RoundingMode::NearestEven:
      a_.frintn(x, x);
      break;
    case RoundingMode::NearestAway:
      a_.frinta(x, x);
      break;
    case RoundingMode::TowardZero:
      a_.frintz(x, x);
      break;
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

  void emitQuantizeBlock() {
    a_.ld1(v(0).s4(), v(1).s4(), v(2).s4(), v(3).s4(), a64::ptr_post(src, 64));
    for (unsigned i = 0; i < 4; ++i)
      emitQuantizeLanes(i);
    narrowToHalf(v(8), 0, false);
    narrowToHalf(v(8), 1, true);
    narrowToHalf(v(9), 2, false);
    narrowToHalf(v(9), 3, true);
    if (containerBits() == 16) {
      a_.st1(v(8).h8(), v(9).h8(), a64::ptr_post(dst, 32));
      return;
    }
    narrowToByte(v(10), 8, false);
    narrowToByte(v(10), 9, true);
    a_.st1(v(10).b16(), a64::ptr_post(dst, 16));
  }

  void emitQuantizeOne() {
    a_.ldr(v(0).s(), a64::ptr_post(src, 4));
    emitQuantizeLanes(0);
    narrowToHalf(v(8), 0, false);
    if (containerBits() == 16) {
      a_.umov(scratch, v(8).h(0));
      a_.strh(scratch, a64::ptr_post(dst, 2));
      return;
    }
    narrowToByte(v(10), 8, false);
    a_.umov(scratch, v(10).b(0));
    a_.strb(scratch, a64::ptr_post(dst, 1));
  }

  /// i32 lanes of register i → f32 (q − z) · s.
  void emitDequantizeLanes(unsigned i) {
    a64::Vec x = v(i).s4();
    a_.scvtf(x, x);
    a_.fsub(x, x, v(kZero).s4());
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
      a_.ld1(v(8).b16(), a64::ptr_post(src, 16));
      widen(9, 8, false, false);
      widen(10, 8, true, false);
    } else {
      a_.ld1(v(9).h8(), v(10).h8(), a64::ptr_post(src, 32));
    }
    widen(0, 9, false, true);
    widen(1, 9, true, true);
    widen(2, 10, false, true);
    widen(3, 10, true, true);
    for (unsigned i = 0; i < 4; ++i)
      emitDequantizeLanes(i);
    a_.st1(v(0).s4(), v(1).s4(), v(2).s4(), v(3).s4(), a64::ptr_post(dst, 64));
  }

  void emitDequantizeOne() {
    bool isSigned = spec_.storage.isSigned;
    if (containerBits() == 8)
      isSigned ? a_.ldrsb(scratch, a64::ptr_post(src, 1))
               : a_.ldrb(scratch, a64::ptr_post(src, 1));
    else
      isSigned ? a_.ldrsh(scratch, a64::ptr_post(src, 2))
               : a_.ldrh(scratch, a64::ptr_post(src, 2));
    a_.dup(v(0).s4(), scratch);
    emitDequantizeLanes(0);
    a_.str(v(0).s(), a64::ptr_post(dst, 4));
  }

  a64::Assembler &a_;
  const KernelSpec &spec_;
};

} // namespace

Expected<std::string> a64Assembly(const KernelSpec &spec,
                                  std::string_view triple) {
  if (Status status = checkA64Support(spec); !status)
    return status;
  asmjit::CodeHolder code;
  code.init(asmjit::Environment(asmjit::Arch::kAArch64));
  asmjit::StringLogger logger;
  configureListingLogger(logger);
  code.setLogger(&logger);
  AssemblyErrors errors;
  code.setErrorHandler(&errors);
  a64::Assembler assembler(&code);
  A64Generator(assembler, spec).generate();
  if (!errors.ok())
    return errors.status(spec);
  return listingHeader(spec, "asmjit", triple, "+neon") + logger.data();
}

} // namespace qjit::asmjit_backend
