//===- X86Parameters.cpp - Scales and zero points into registers ----------===//
#include "X86Parameters.h"

#include "X86Conversions.h"
#include "X86PeriodicRuns.h"

#include "plan/ExactReciprocal.h"
#include "plan/LayoutPeriod.h"

#include "qjit/internal/HostFloat.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <optional>
#include <utility>

namespace qjit::asmjit_backend {

uint32_t floatBits(float value) { return std::bit_cast<uint32_t>(value); }

namespace {

/// The scales as the reference gathers them: rounded to the expressed
/// type, then to C = f32 (exact).
std::vector<float> bakedScales(const KernelSpec &spec) {
  std::vector<float> scales;
  for (double scale : spec.params.scales)
    scales.push_back(
        static_cast<float>(roundToValueType(scale, spec.expressed)));
  return scales;
}

} // namespace

X86Parameters::X86Parameters(const KernelSpec &spec, const X86Isa &isa,
                             ScaleUse use)
    : isa_(isa), expressed_(spec.expressed), scaleType_(x86ScaleType(spec)),
      reciprocal_(use == ScaleUse::MultiplyByReciprocal),
      scaleInstruction_(use == ScaleUse::Divide ? x86::Inst::kIdVdivps
                                                : x86::Inst::kIdVmulps),
      runtime_(spec.params.runtime),
      perTensor_(spec.layout.kind == LayoutSpec::Kind::PerTensor),
      zeroIsNegativeZero_(spec.op == KernelOp::QCast &&
                          spec.storage.kind == StorageType::Kind::Float) {
  if (use == ScaleUse::Divide && plan::divisionIsMultiplication(spec)) {
    reciprocal_ = true; // Runtime ones: fl(1/s) of each run.
    scaleInstruction_ = x86::Inst::kIdVmulps;
  }
  if (runtime_) {
    zeroPointsAreZero_ = false;
    return;
  }
  std::vector<float> scales = bakedScales(spec);
  divisors_ = scales;
  for (size_t k = 0; k < scales.size(); ++k) {
    scales_.push_back(reciprocal_ ? 1.0f / scales[k] : scales[k]);
    int64_t zero = spec.params.zeroPoints[k];
    zeroPoints_.push_back(
        zero == 0 && zeroIsNegativeZero_ ? -0.0f : static_cast<float>(zero));
    zeroPointsAreZero_ &= spec.params.zeroPoints[k] == 0;
  }
  expandPerElement(spec);
}

namespace {

constexpr int64_t kMaxTablePeriod = 16384;
/// |z| up to 2^22 keeps z and laneBias + z (laneBias < 2^23 + 16)
/// integers below 2^24 in magnitude: exact in f32.
constexpr int64_t kBiasedZeroPointLimit = int64_t(1) << 22;
constexpr int64_t kMaxVectorRunTablePeriod = 1024;

} // namespace

void X86Parameters::expandPerElement(const KernelSpec &spec) {
  std::vector<plan::PeriodDim> dims = plan::periodDims(spec.layout);
  if (dims.empty() || !plan::staticPeriod(dims))
    return;
  int64_t period = 1;
  for (const plan::PeriodDim &dim : dims)
    period *= dim.extent;
  // Runs of at least an unrolled block amortize their parameter
  // broadcasts; shorter ones would never reach the main loop. Runs of
  // whole vectors take tables only while those stay small (embedding
  // them is most of the compile time).
  int64_t lanes = isa_.vectorBytes() / 4, run = dims.back().block;
  if (run >= lanes * reg::kUnroll ||
      period > (run >= lanes ? kMaxVectorRunTablePeriod : kMaxTablePeriod))
    return;
  perElement_ = true;
  // The kernel frame runs the tables alike (X86PeriodicRuns.h).
  int64_t covered = periodicTableElements(period, lanes, spec.storage.packed);
  // Padded by a vector so a tail's full-width table read stays inside.
  size_t padded = static_cast<size_t>(covered + lanes);
  perElementTables_.assign(2 * padded, 0.0f);
  std::vector<int64_t> indices = plan::periodParameterIndices(dims);
  for (int64_t i = 0; i < covered; ++i) {
    int64_t index = indices[static_cast<size_t>(i % period)];
    perElementTables_[i] = scales_[index];
    perElementTables_[padded + i] = zeroPoints_[index];
  }
  zeroPointTableOffset_ = static_cast<int32_t>(padded * sizeof(float));
  reciprocalTableOffset_ = 2 * zeroPointTableOffset_;
}

bool X86Parameters::canBiasZeroPoints() const {
  if (perElement_ || keepReciprocals_)
    return false;
  if (runtime_)
    return true;
  return std::all_of(zeroPoints_.begin(), zeroPoints_.end(), [](float z) {
    return std::abs(z) <= static_cast<float>(kBiasedZeroPointLimit);
  });
}

void X86Parameters::biasZeroPoints(const std::array<float, 8> &laneBiases) {
  biased_ = true;
  laneBiases_ = laneBiases;
}

x86::Mem X86Parameters::laneBiasTable(x86::Assembler &a) {
  if (!laneBiasTable_.isValid())
    laneBiasTable_ = a.newLabel();
  return x86::ptr(laneBiasTable_);
}

void X86Parameters::emitAddLaneBiases(x86::Assembler &a) {
  x86::Vec zero = isa_.vec(reg::kZeroPoint);
  a.vaddps(zero, zero, laneBiasTable(a));
}

void X86Parameters::keepReciprocals(const x86::Vec &threshold,
                                    uint32_t passBits, int64_t zeroPointLimit) {
  keepReciprocals_ = true;
  if (runtime_) {
    reciprocal_ = true; // emitRuntimeLoad divides once per run.
    threshold_ = threshold;
    passBits_ = passBits;
    zeroPointLimit_ = zeroPointLimit;
    return;
  }
  if (perElement_) {
    // A third table after the zero points: fl(1/s) per element.
    size_t padded = perElementTables_.size() / 2;
    perElementTables_.resize(3 * padded, 0.0f);
    for (size_t i = 0; i < padded; ++i)
      if (perElementTables_[i] != 0.0f)
        perElementTables_[2 * padded + i] = 1.0f / perElementTables_[i];
    return;
  }
  for (float &scale : scales_)
    scale = 1.0f / scale;
}

asmjit::Operand X86Parameters::reciprocal(unsigned slot) const {
  if (perElement_)
    return x86::ptr(reg::paramIndex,
                    reciprocalTableOffset_ +
                        static_cast<int32_t>(slot * isa_.vectorBytes()));
  return isa_.vec(reg::kScale);
}

void X86Parameters::emitLoadScale(x86::Assembler &a, const x86::Vec &v) {
  if (runtime_) {
    emitLoadRuntimeScale(a, scaleType_, v.xmm());
    a.vbroadcastss(v, v.xmm());
    return;
  }
  if (perTensor_) {
    emitBroadcastImmediate(a, isa_, v, floatBits(divisors_[0]));
    return;
  }
  if (!divisorTable_.isValid())
    divisorTable_ = a.newLabel();
  a.lea(reg::scratch, x86::ptr(divisorTable_));
  a.vbroadcastss(v, x86::dword_ptr(reg::scratch, reg::paramIndex, 2));
}

asmjit::Operand X86Parameters::scale(unsigned slot) const {
  if (perElement_)
    return x86::ptr(reg::paramIndex,
                    static_cast<int32_t>(slot * isa_.vectorBytes()));
  return isa_.vec(reg::kScale);
}

asmjit::Operand X86Parameters::zeroPoint(unsigned slot) const {
  if (perElement_)
    return x86::ptr(reg::paramIndex,
                    zeroPointTableOffset_ +
                        static_cast<int32_t>(slot * isa_.vectorBytes()));
  return isa_.vec(reg::kZeroPoint);
}

void X86Parameters::emitLoad(x86::Assembler &a) {
  x86::Vec scale = isa_.vec(reg::kScale), zero = isa_.vec(reg::kZeroPoint);
  if (runtime_) {
    emitRuntimeLoad(a);
    return;
  }
  if (perElement_) {
    if (!perElementTable_.isValid())
      perElementTable_ = a.newLabel();
    a.lea(reg::paramIndex, x86::ptr(perElementTable_));
    return;
  }
  if (perTensor_) {
    emitBroadcastImmediate(a, isa_, scale, floatBits(scales_[0]));
    if (!zeroPointsAreZero_)
      emitBroadcastImmediate(a, isa_, zero, floatBits(zeroPoints_[0]));
    else if (biased_)
      a.vxorps(zero, zero, zero);
    if (biased_)
      emitAddLaneBiases(a);
    return;
  }
  if (!scaleTable_.isValid()) {
    scaleTable_ = a.newLabel();
    zeroPointTable_ = a.newLabel();
  }
  a.lea(reg::scratch, x86::ptr(scaleTable_));
  a.vbroadcastss(scale, x86::dword_ptr(reg::scratch, reg::paramIndex, 2));
  if (!zeroPointsAreZero_) {
    a.lea(reg::scratch, x86::ptr(zeroPointTable_));
    a.vbroadcastss(zero, x86::dword_ptr(reg::scratch, reg::paramIndex, 2));
    if (biased_)
      emitAddLaneBiases(a);
  } else if (biased_) {
    a.vmovups(zero, laneBiasTable(a));
  }
}

X86ScaleType x86ScaleType(const KernelSpec &spec) {
  // The format is the frontend's decision (scaleValueType); E8M0 bytes
  // are its only format without a value type.
  std::optional<ValueType> type = scaleValueType(spec);
  if (!type)
    return X86ScaleType::E8M0;
  switch (*type) {
  case ValueType::F64:
    return X86ScaleType::F64;
  case ValueType::F16:
    return X86ScaleType::F16;
  case ValueType::BF16:
    return X86ScaleType::BF16;
  case ValueType::F32:
    break;
  }
  return X86ScaleType::F32;
}

namespace {
/// E8M0: b << 23 is 2^(b - 127) for b in 1..254; b = 0 and b = 255 (0 and
/// the bits of +inf) take bit 22 too: 2^-127 and the quiet NaN.
constexpr uint32_t kE8m0Inf = 0x7f800000u;
constexpr uint32_t kE8m0Bit22 = 0x00400000u;
} // namespace

void emitLoadRuntimeScale(x86::Assembler &a, X86ScaleType type,
                          const x86::Xmm &s) {
  x86::Gp p = reg::scratch;
  a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, scales)));
  switch (type) {
  case X86ScaleType::F64:
    a.vmovsd(s, x86::qword_ptr(p, reg::paramIndex, 3));
    break;
  case X86ScaleType::F32:
    a.vmovss(s, x86::dword_ptr(p, reg::paramIndex, 2));
    break;
  case X86ScaleType::F16:
    a.movzx(p.r32(), x86::word_ptr(p, reg::paramIndex, 1));
    a.vmovd(s, p.r32());
    a.vcvtph2ps(s, s);
    break;
  case X86ScaleType::BF16:
    a.movzx(p.r32(), x86::word_ptr(p, reg::paramIndex, 1));
    a.shl(p.r32(), 16);
    a.vmovd(s, p.r32());
    break;
  case X86ScaleType::E8M0: {
    asmjit::Label special = a.newLabel(), done = a.newLabel();
    a.movzx(p.r32(), x86::byte_ptr(p, reg::paramIndex, 0));
    a.shl(p.r32(), 23);
    a.jz(special);
    a.cmp(p.r32(), kE8m0Inf);
    a.jne(done);
    a.bind(special);
    a.or_(p.r32(), kE8m0Bit22);
    a.bind(done);
    a.vmovd(s, p.r32());
    break;
  }
  }
}

void emitLoadRuntimeScales(x86::Assembler &a, X86ScaleType type,
                           const x86::Vec &s, const x86::Vec &temp,
                           const x86::Vec &temp2) {
  x86::Gp p = reg::scratch;
  bool zmm = s.isZmm();
  a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, scales)));
  auto halfWidth = [&](int scale) {
    return zmm ? x86::Mem(x86::ymmword_ptr(p, reg::paramIndex, scale))
               : x86::Mem(x86::xmmword_ptr(p, reg::paramIndex, scale));
  };
  switch (type) {
  case X86ScaleType::F64: // Not loaded as vectors.
  case X86ScaleType::F32:
    zmm ? a.vmovups(s, x86::zmmword_ptr(p, reg::paramIndex, 2))
        : a.vmovups(s, x86::ymmword_ptr(p, reg::paramIndex, 2));
    return;
  case X86ScaleType::F16:
    a.vcvtph2ps(s, halfWidth(1));
    return;
  case X86ScaleType::BF16:
    a.vpmovzxwd(s, halfWidth(1));
    a.vpslld(s, s, 16);
    return;
  case X86ScaleType::E8M0:
    break;
  }
  a.vpmovzxbd(s, zmm ? x86::Mem(x86::xmmword_ptr(p, reg::paramIndex, 0))
                     : x86::Mem(x86::qword_ptr(p, reg::paramIndex, 0)));
  a.vpslld(s, s, 23);
  a.mov(p.r32(), kE8m0Inf);
  a.vmovd(temp.xmm(), p.r32());
  a.vpbroadcastd(temp, temp.xmm());
  a.mov(p.r32(), kE8m0Bit22);
  a.vmovd(temp2.xmm(), p.r32());
  a.vpbroadcastd(temp2, temp2.xmm());
  if (zmm) {
    a.vpcmpeqd(x86::k2, s, temp);
    a.vptestnmd(x86::k3, s, s);
    a.korw(x86::k2, x86::k2, x86::k3);
    a.k(x86::k2).vpord(s, s, temp2);
    return;
  }
  a.vpcmpeqd(temp, s, temp);
  a.vpand(temp, temp, temp2);
  a.vpor(s, s, temp); // b = 255: the NaN.
  // min(s, bit 22) is 0 only where b = 0 (the others are 2^-126 or more).
  a.vpminud(temp, s, temp2);
  a.vpxor(temp, temp, temp2);
  a.vpor(s, s, temp);
}
void X86Parameters::emitRuntimeLoad(x86::Assembler &a) {
  x86::Xmm s = x86::xmm(reg::kScalar), t = x86::xmm(reg::kScalar2);
  x86::Gp p = reg::scratch;
  emitLoadRuntimeScale(a, scaleType_, s);
  bool checked = keepReciprocals_;
  if (checked) {
    // scratch3 holds the run's threshold bits: passBits_ unless s or z
    // is outside the range the check is proven for.
    x86::Gp bits = reg::scratch2.r32();
    a.mov(reg::scratch3.r32(), passBits_);
    a.vmovd(bits, s);
    a.and_(bits, 0x7fffffff);
    asmjit::Label outOfRange = a.newLabel(), inRange = a.newLabel();
    a.cmp(bits, floatBits(0x1p-60f));
    a.jb(outOfRange);
    a.cmp(bits, floatBits(0x1p60f)); // NaN and inf are above.
    a.jbe(inRange);
    a.bind(outOfRange);
    a.mov(reg::scratch3.r32(), -1);
    a.bind(inRange);
  }
  if (reciprocal_) {
    a.mov(p.r32(), floatBits(1.0f));
    a.vmovd(t, p.r32());
    a.vdivss(s, t, s);
  }
  a.vbroadcastss(isa_.vec(reg::kScale), s);

  asmjit::Label noZeroPoints = a.newLabel();
  a.vxorps(s, s, s);
  a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, zeroPoints)));
  a.test(p, p);
  a.jz(noZeroPoints);
  if (checked) {
    asmjit::Label zeroPointChecked = a.newLabel();
    a.mov(reg::scratch2, x86::qword_ptr(p, reg::paramIndex, 3));
    a.add(reg::scratch2, zeroPointLimit_);
    a.cmp(reg::scratch2, 2 * zeroPointLimit_);
    a.jbe(zeroPointChecked); // -limit <= z <= limit.
    a.mov(reg::scratch3.r32(), -1);
    a.bind(zeroPointChecked);
  }
  if (biased_) {
    // Flags after the jz above: not above, so in range.
    x86::Gp z = reg::scratch2;
    a.mov(z, x86::qword_ptr(p, reg::paramIndex, 3));
    a.vcvtsi2ss(s, s, z);
    a.add(z, kBiasedZeroPointLimit);
    a.cmp(z, 2 * kBiasedZeroPointLimit);
  } else {
    a.vcvtsi2ss(s, s, x86::qword_ptr(p, reg::paramIndex, 3));
  }
  a.bind(noZeroPoints);
  if (zeroIsNegativeZero_)
    emitNegativeZeros(a, s, t);
  a.vbroadcastss(isa_.vec(reg::kZeroPoint), s);
  if (biased_) {
    asmjit::Label outOfRange = a.newLabel();
    a.seta(stack::zeroPointOutOfRange());
    a.ja(outOfRange);
    emitAddLaneBiases(a);
    a.bind(outOfRange);
  }
  if (checked) {
    a.vmovd(threshold_.xmm(), reg::scratch3.r32());
    a.vpbroadcastd(threshold_, threshold_.xmm());
  }
}

void X86Parameters::emitNegativeZeros(x86::Assembler &a, const x86::Vec &z,
                                      const x86::Vec &scratch) {
  // The +0 lanes, as all ones, shifted to the sign bit.
  a.vpxor(scratch, scratch, scratch);
  a.vpcmpeqd(scratch, scratch, z);
  a.vpslld(scratch, scratch, 31);
  a.vpor(z, z, scratch);
}

bool X86Parameters::groupsRuntimeLoads() const {
  return runtime_ && !perElement_ && scaleType_ != X86ScaleType::F64;
}

namespace {

/// `area` at `offset` bytes, indexed by a run number.
x86::Mem groupEntry(const x86::Mem &area, int32_t offset,
                    const x86::Gp &member) {
  x86::Mem entry = area.cloneAdjusted(offset);
  entry.setIndex(member, 2);
  entry.setSize(4);
  return entry;
}

/// The dword at `offset` bytes into `area`.
x86::Mem groupDword(const x86::Mem &area, int32_t offset) {
  x86::Mem dword = area.cloneAdjusted(offset);
  dword.setSize(4);
  return dword;
}

using stack::kGroupOutOfRange;
using stack::kGroupScales;
using stack::kGroupShiftedScales;
using stack::kGroupShiftInexact;
using stack::kGroupZeroPoints;
/// Offsets of emitGroupLoad's vector constants (emitData).
constexpr int32_t kGroupAbove = 0, kGroupBelow = 32, kGroupPassBits = 64,
                  kGroupOne = 96, kGroupLimit = 128, kGroupNegLimit = 160,
                  kGroupShiftDown = 192, kGroupShiftUp = 224;
/// Zero points of at most 2^24 in magnitude convert to f32 exactly from
/// their low 32 bits (the scalar path converts all 64).
constexpr int64_t kExactZeroPointLimit = int64_t(1) << 24;

} // namespace

void X86Parameters::emitGroupLoad(x86::Assembler &a, const x86::Mem &area,
                                  const x86::Gp &counter) {
  x86::Ymm s = x86::ymm0, t = x86::ymm1, z = x86::ymm2, z2 = x86::ymm3,
           bound = x86::ymm4, out = x86::ymm5, out2 = x86::ymm6;
  x86::Gp p = reg::scratch;
  if (!groupConstants_.isValid())
    groupConstants_ = a.newLabel();
  auto constant = [&](int32_t offset) {
    return x86::ymmword_ptr(groupConstants_, offset);
  };
  emitLoadRuntimeScales(a, scaleType_, s, t, z);
  if (keepReciprocals_) {
    // Lanes with |s| outside [2^-60, 2^60] (NaN and inf above) get a NaN
    // reciprocal instead of emitRuntimeLoad's failing threshold: every
    // lane of their runs then fails the check and divides, and the
    // threshold stays passBits_ for the whole group.
    a.vpslld(t, s, 1);
    a.vpsrld(t, t, 1);
    a.vpcmpgtd(out, t, constant(kGroupAbove));
    a.vmovdqu(bound, constant(kGroupBelow));
    a.vpcmpgtd(out2, bound, t);
    a.vpor(out, out, out2);
    a.vmovdqu(threshold_, constant(kGroupPassBits));
  }
  if (reciprocal_) {
    a.vmovups(t, constant(kGroupOne));
    a.vdivps(s, t, s);
  }
  if (keepReciprocals_)
    a.vpor(s, s, out);
  a.vmovups(area.cloneAdjusted(kGroupScales), s);
  if (shiftedScales_) {
    // s · 2^-28 is exact when scaling it back gives s's bits again (NaN
    // payloads too: x86 multiplications pass a quiet NaN operand on).
    a.vmulps(t, s, constant(kGroupShiftDown));
    a.vmovups(area.cloneAdjusted(kGroupShiftedScales), t);
    a.vmulps(t, t, constant(kGroupShiftUp));
    a.vpcmpeqd(t, t, s);
    a.vmovmskps(p.r32(), t);
    a.xor_(p.r32(), 0xff);
    a.mov(groupDword(area, kGroupShiftInexact), p.r32());
  }

  asmjit::Label zeros = a.newLabel(), byRun = a.newLabel(), done = a.newLabel();
  a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, zeroPoints)));
  a.test(p, p);
  a.jz(zeros);
  a.vmovdqu(z, x86::ymmword_ptr(p, reg::paramIndex, 3));
  a.vmovdqu(z2, x86::ymmword_ptr(p, reg::paramIndex, 3, 32));
  // Zero points beyond the checked limit (or beyond exact conversion from
  // 32 bits) are rare: those groups take the run-by-run loads.
  a.vpcmpgtq(out, z, constant(kGroupLimit));
  a.vpcmpgtq(out2, z2, constant(kGroupLimit));
  a.vpor(out, out, out2);
  a.vmovdqu(bound, constant(kGroupNegLimit));
  a.vpcmpgtq(out2, bound, z);
  a.vpor(out, out, out2);
  a.vpcmpgtq(out2, bound, z2);
  a.vpor(out, out, out2);
  a.vptest(out, out);
  a.jnz(byRun);
  // The low halves of the eight i64 in order: z0 z1 z4 z5 | z2 z3 z6 z7,
  // then the middle quarters swapped.
  a.vshufps(z, z, z2, 0x88);
  a.vpermpd(z, z, 0xd8);
  a.vcvtdq2ps(z, z);
  if (zeroIsNegativeZero_)
    emitNegativeZeros(a, z, out);
  a.vmovups(area.cloneAdjusted(kGroupZeroPoints), z);
  if (biased_) { // In range: the limit is kBiasedZeroPointLimit.
    a.vxorps(z, z, z);
    a.vmovups(area.cloneAdjusted(kGroupOutOfRange), z);
  }
  a.jmp(done);

  a.bind(zeros);
  a.vxorps(z, z, z);
  if (zeroIsNegativeZero_)
    emitNegativeZeros(a, z, out);
  a.vmovups(area.cloneAdjusted(kGroupZeroPoints), z);
  if (biased_)
    a.vmovups(area.cloneAdjusted(kGroupOutOfRange), z);
  a.jmp(done);

  a.bind(byRun);
  asmjit::Label run = a.newLabel();
  a.xor_(counter.r32(), counter.r32());
  a.bind(run);
  emitRuntimeLoad(a);
  x86::Xmm reciprocal = isa_.vec(reg::kScale).xmm();
  if (keepReciprocals_) {
    // A failing threshold (all ones) makes the reciprocal NaN, as above.
    a.vpcmpeqd(t.xmm(), t.xmm(), t.xmm());
    a.vpcmpeqd(t.xmm(), t.xmm(), threshold_.xmm());
    a.vpor(reciprocal, reciprocal, t.xmm());
  }
  a.vmovss(groupEntry(area, kGroupScales, counter), reciprocal);
  if (biased_) {
    // f32(z) itself (emitRuntimeLoad leaves it in kScalar): members add
    // the lane biases unless the run is out of range.
    a.vmovss(groupEntry(area, kGroupZeroPoints, counter),
             x86::xmm(reg::kScalar));
    a.movzx(reg::scratch.r32(), stack::zeroPointOutOfRange());
    a.mov(groupEntry(area, kGroupOutOfRange, counter), reg::scratch.r32());
  } else {
    a.vmovss(groupEntry(area, kGroupZeroPoints, counter),
             isa_.vec(reg::kZeroPoint).xmm());
  }
  a.inc(reg::paramIndex);
  a.inc(counter);
  a.cmp(counter, kGroupRuns);
  a.jb(run);
  a.sub(reg::paramIndex, kGroupRuns);
  if (keepReciprocals_)
    a.vmovdqu(threshold_, constant(kGroupPassBits));
  a.bind(done);
}

void X86Parameters::emitGroupMember(x86::Assembler &a, const x86::Mem &member) {
  x86::Mem entry = member;
  entry.setSize(4);
  if (groupZeroPointsZero_ && shiftedScales_) {
    a.vbroadcastss(isa_.vec(reg::kScale),
                   entry.cloneAdjusted(kGroupShiftedScales));
    return;
  }
  a.vbroadcastss(isa_.vec(reg::kScale), entry);
  if (groupZeroPointsZero_)
    return;
  a.vbroadcastss(isa_.vec(reg::kZeroPoint),
                 entry.cloneAdjusted(kGroupZeroPoints));
  if (biased_) {
    asmjit::Label outOfRange = a.newLabel();
    x86::Gp flag = reg::scratch.r8();
    a.mov(flag, entry.cloneAdjusted(kGroupOutOfRange).cloneResized(1));
    a.mov(stack::zeroPointOutOfRange(), flag);
    a.test(flag, flag);
    a.jnz(outOfRange);
    emitAddLaneBiases(a);
    a.bind(outOfRange);
  }
}

void X86Parameters::emitJumpUnlessGroupZeroPointsZero(
    x86::Assembler &a, const x86::Mem &area,
    const asmjit::Label &withZeroPoints) {
  // The f32 zero points are converted integers: all bits 0 only for 0.
  // The runs without zero points keep the register at 0 all the same:
  // code emitted later (a body's out-of-line divisions) may still add it.
  x86::Ymm z = x86::ymm0;
  if (biased_) {
    // z = 0 is in range: the operands hold the lane biases alone.
    a.vmovups(isa_.vec(reg::kZeroPoint), laneBiasTable(a));
    a.mov(stack::zeroPointOutOfRange(), 0);
  } else {
    a.vxorps(isa_.vec(reg::kZeroPoint), isa_.vec(reg::kZeroPoint),
             isa_.vec(reg::kZeroPoint));
  }
  a.vmovdqu(z, area.cloneAdjusted(kGroupZeroPoints));
  a.vptest(z, z);
  a.jnz(withZeroPoints);
  if (shiftedScales_) {
    a.cmp(groupDword(area, kGroupShiftInexact), 0);
    a.jne(withZeroPoints);
  }
}

void X86Parameters::emitData(x86::Assembler &a) {
  if (groupConstants_.isValid()) {
    a.align(asmjit::AlignMode::kData, 32);
    a.bind(groupConstants_);
    int64_t limit = keepReciprocals_ ? zeroPointLimit_
                    : biased_        ? kBiasedZeroPointLimit
                                     : kExactZeroPointLimit;
    for (uint32_t value :
         {floatBits(0x1p60f), floatBits(0x1p-60f), passBits_, floatBits(1.0f)})
      for (int lane = 0; lane < 8; ++lane)
        a.embedUInt32(value);
    for (int64_t value : {limit, -limit})
      for (int lane = 0; lane < 4; ++lane)
        a.embedInt64(value);
    for (float value : {kGroupScaleShift, 1.0f / kGroupScaleShift})
      for (int lane = 0; shiftedScales_ && lane < 8; ++lane)
        a.embedUInt32(floatBits(value));
  }
  if (laneBiasTable_.isValid()) {
    a.align(asmjit::AlignMode::kData, 32);
    a.bind(laneBiasTable_);
    a.embed(laneBiases_.data(), sizeof(laneBiases_));
  }
  if (perElementTable_.isValid()) {
    a.align(asmjit::AlignMode::kData, 64);
    a.bind(perElementTable_);
    a.embed(perElementTables_.data(), perElementTables_.size() * sizeof(float));
  }
  if (divisorTable_.isValid()) {
    // emitLoadScale's divisors (the broadcast table holds reciprocals).
    a.align(asmjit::AlignMode::kData, 64);
    a.bind(divisorTable_);
    a.embed(divisors_.data(), divisors_.size() * sizeof(float));
  }
  if (!scaleTable_.isValid())
    return;
  a.align(asmjit::AlignMode::kData, 64);
  a.bind(scaleTable_);
  a.embed(scales_.data(), scales_.size() * sizeof(float));
  a.bind(zeroPointTable_);
  a.embed(zeroPoints_.data(), zeroPoints_.size() * sizeof(float));
}

} // namespace qjit::asmjit_backend
