//===- X86RangeGenerator.cpp - Each run's range of finite values ----------===//
//
// A run is reduced in four pairs of accumulators with vminps/vmaxps taking
// the value as the first operand: for a NaN, or two zeros, they return the
// second (the accumulator), so NaN never enters and -0 never replaces +0,
// exactly GroupRange::add's strict comparisons. Only ±inf would enter: a
// bound that comes out infinite sends the run's whole vectors through a
// slower loop that masks the non-finite lanes out (x - x == 0). The last
// elements of a run, fewer than a vector, take that test one by one. The
// order of the reductions does not matter: no operand is NaN or -0.
//
// f32 values (and f64 ones with AVX-512's 64-bit maxima) take a faster
// loop, hi on their bits as integers: as signed integers the non-negative
// values order as they do as floats and every negative one is below +0's
// 0, so the signed maximum from 0 is hi's bits; +inf and positive NaN lie
// beyond the finite values and send the run to the careful loop, negative
// ones fall among the values that do not count. At AVX2 lo is an unsigned
// maximum (every negative value is above every non-negative one and the
// negative ones order by magnitude, so the unsigned maximum from 0 is lo's
// bits once it is above -0's; -inf and negative NaN send the run to the
// careful loop). At AVX-512 lo stays vminps: Intel runs vpmaxsd/vpmaxud zmm
// on one port and vminps zmm on two, AMD's Zen 4 the other way round, and
// one maximum and one minimum per vector suit both (four zmm from L1,
// measured on a Sapphire Rapids-class Xeon: 1.4 ns against 2.8 ns for two
// maxima and 1.6 ns for vminps and vmaxps; llvm-mca znver4: 4 cycles, as
// two maxima, against 8 for the float pair).
//
// An absmax scheme reads max(hi, -lo) only (11.2): at AVX-512 its runs take
// one vrangeps (the larger magnitude of two loaded vectors) and one
// unsigned maximum per pair of vectors, half the two instructions per
// vector of both bounds (eight zmm, llvm-mca -mcpu=znver4: 4 cycles
// against 8; i8 per tensor of 4K measured 0.34 -> 0.29 us here).
//===----------------------------------------------------------------------===//
#include "X86RangeGenerator.h"

#include <algorithm>

namespace qjit::asmjit_backend {

namespace {

using asmjit::InstId;
using asmjit::Label;
namespace Inst = x86::Inst;

namespace range {
inline const x86::Gp runStart = x86::rdi; ///< Argument: src.
inline const x86::Gp runLength = x86::rsi;
inline const x86::Gp runsLeft = x86::rdx;
inline const x86::Gp low = x86::rcx; ///< Cursor of lo[].
inline const x86::Gp high = x86::r8; ///< Cursor of hi[].
inline const x86::Gp cursor = x86::r10;
inline const x86::Gp left = x86::rax;      ///< Elements of the run left.
inline const x86::Gp boundBits = x86::r11; ///< A bound's bits.
inline const x86::Gp limit = x86::r9;
constexpr unsigned kUnroll = 4;
constexpr unsigned kLow = 0;   ///< vec(kLow + j): accumulator j of lo.
constexpr unsigned kHigh = 4;  ///< vec(kHigh + j): accumulator j of hi.
constexpr unsigned kValue = 8; ///< vec(kValue + j): loaded values.
constexpr unsigned kScratch = 12;
constexpr unsigned kZero = 15;
constexpr uint8_t kEqualOrdered = 0x00; ///< vcmpps EQ_OQ: false for NaN.
/// vrangeps: the larger magnitude, sign cleared.
constexpr uint8_t kLargerMagnitude = 0x0b;
inline const x86::KReg finiteLanes = x86::k2;
} // namespace range

class RangeRunsGenerator {
public:
  RangeRunsGenerator(x86::Assembler &a, const X86Isa &isa, ValueType compute,
                     bool magnitudes)
      : a_(a), isa_(isa), f64_(compute == ValueType::F64) {
    elementBytes_ = f64_ ? 8 : 4;
    lanes_ = isa.vectorBytes() / elementBytes_;
    // AVX2 has no 64-bit maxima.
    asIntegers_ = !f64_ || isa.avx512();
    // AVX2 has no vrangeps.
    magnitudes_ = magnitudes && isa.avx512();
  }

  void generate() {
    using namespace range;
    Label runLoop = a_.newLabel(), done = a_.newLabel();
    Label careful = a_.newLabel(), tail = a_.newLabel();
    a_.test(runsLeft, runsLeft);
    a_.jz(done);
    zero(kZero);
    a_.bind(runLoop);
    a_.mov(cursor, runStart);
    a_.mov(left, runLength);
    zeroAccumulators();
    if (magnitudes_) {
      emitMagnitudeLoop(2 * kUnroll);
      emitMagnitudeLoop(2);
      emitMagnitudeLoop(1);
      reduceMagnitudes(careful);
    } else if (asIntegers_) {
      emitIntegerLoop(kUnroll);
      emitIntegerLoop(1);
      reduceIntegers(careful);
    } else {
      emitVectorLoop(kUnroll, /*masked=*/false);
      emitVectorLoop(1, /*masked=*/false);
      reduce();
      // An infinite bound (the only non-finite one possible): x - x is NaN.
      for (unsigned bound : {kLow, kHigh}) {
        a_.emit(scalarOp(Inst::kIdVsubss, Inst::kIdVsubsd), x86::xmm(kScratch),
                x86::xmm(bound), x86::xmm(bound));
        a_.emit(scalarOp(Inst::kIdVucomiss, Inst::kIdVucomisd),
                x86::xmm(kScratch), x86::xmm(kZero));
        a_.jp(careful);
      }
    }
    a_.bind(tail);
    emitTail();
    merge();
    a_.lea(runStart, x86::ptr(runStart, runLength, f64_ ? 3 : 2));
    a_.add(low, elementBytes_);
    a_.add(high, elementBytes_);
    a_.dec(runsLeft);
    a_.jnz(runLoop);
    a_.bind(done);
    a_.vzeroupper();
    a_.ret();

    // The run's whole vectors again, without their non-finite lanes; the
    // cursor ends where the fast loops left it.
    a_.bind(careful);
    a_.mov(cursor, runStart);
    a_.mov(left, runLength);
    zeroAccumulators();
    emitVectorLoop(1, /*masked=*/true);
    reduce();
    a_.jmp(tail);
  }

private:
  InstId vectorOp(InstId ps, InstId pd) const { return f64_ ? pd : ps; }
  InstId scalarOp(InstId ss, InstId sd) const { return f64_ ? sd : ss; }
  InstId minOp() const { return vectorOp(Inst::kIdVminps, Inst::kIdVminpd); }
  InstId maxOp() const { return vectorOp(Inst::kIdVmaxps, Inst::kIdVmaxpd); }
  x86::Mem element(const x86::Gp &base) const {
    return f64_ ? x86::qword_ptr(base) : x86::dword_ptr(base);
  }
  void zero(unsigned id) {
    a_.vxorps(x86::xmm(id), x86::xmm(id), x86::xmm(id));
  }

  void zeroAccumulators() {
    for (unsigned j = 0; j < range::kUnroll; ++j) {
      zero(range::kLow + j);
      zero(range::kHigh + j);
    }
  }

  /// While `vectors` whole vectors are left: loads vector j of the step
  /// into vec(kValue + j) and hands it to `body` with accumulator pair j.
  template <typename Body> void emitWholeVectors(unsigned vectors, Body body) {
    using namespace range;
    Label loop = a_.newLabel(), exit = a_.newLabel();
    int64_t step = static_cast<int64_t>(vectors * lanes_);
    a_.bind(loop);
    a_.cmp(left, step);
    a_.jb(exit);
    for (unsigned j = 0; j < vectors; ++j) {
      x86::Vec x = isa_.vec(kValue + j);
      a_.emit(vectorOp(Inst::kIdVmovups, Inst::kIdVmovupd), x,
              x86::ptr(cursor, static_cast<int32_t>(j * isa_.vectorBytes())));
      body(x, isa_.vec(kLow + j), isa_.vec(kHigh + j));
    }
    a_.add(cursor, static_cast<int64_t>(vectors * isa_.vectorBytes()));
    a_.sub(left, step);
    a_.jmp(loop);
    a_.bind(exit);
  }

  /// Min and max into the accumulator pairs (masked: only into lanes whose
  /// value is finite).
  void emitVectorLoop(unsigned vectors, bool masked) {
    using namespace range;
    emitWholeVectors(vectors, [&](x86::Vec x, x86::Vec lo, x86::Vec hi) {
      if (!masked) {
        a_.emit(minOp(), lo, x, lo);
        a_.emit(maxOp(), hi, x, hi);
        return;
      }
      x86::Vec difference = isa_.vec(kScratch);
      a_.emit(vectorOp(Inst::kIdVsubps, Inst::kIdVsubpd), difference, x, x);
      if (isa_.avx512()) {
        a_.emit(vectorOp(Inst::kIdVcmpps, Inst::kIdVcmppd), finiteLanes,
                difference, isa_.vec(kZero), kEqualOrdered);
        a_.k(finiteLanes).emit(minOp(), lo, x, lo);
        a_.k(finiteLanes).emit(maxOp(), hi, x, hi);
      } else {
        // Non-finite lanes become +0, which changes no range.
        a_.emit(vectorOp(Inst::kIdVcmpps, Inst::kIdVcmppd), difference,
                difference, isa_.vec(kZero), kEqualOrdered);
        a_.emit(vectorOp(Inst::kIdVandps, Inst::kIdVandpd), x, x, difference);
        a_.emit(minOp(), lo, x, lo);
        a_.emit(maxOp(), hi, x, hi);
      }
    });
  }

  /// While `vectors` whole vectors are left (one, or pairs of them): the
  /// larger magnitude of each pair, sign cleared, into the bits of
  /// accumulator kHigh + j as an unsigned maximum. vrangeps meets loaded
  /// values only: for a quiet NaN it returns the other operand (the range
  /// leaves NaN out), for a signalling one a quiet NaN, whose bits lie
  /// beyond +inf's and send the run to the careful loop; given that quiet
  /// NaN again it would return the other operand, dropping the NaN and
  /// the magnitude it had replaced. A vector alone meets +0.
  void emitMagnitudeLoop(unsigned vectors) {
    using namespace range;
    Label loop = a_.newLabel(), exit = a_.newLabel();
    int64_t step = static_cast<int64_t>(vectors * lanes_);
    auto at = [&](unsigned v) {
      return x86::ptr(cursor, static_cast<int32_t>(v * isa_.vectorBytes()));
    };
    a_.bind(loop);
    a_.cmp(left, step);
    a_.jb(exit);
    for (unsigned j = 0; j < std::max(1u, vectors / 2); ++j) {
      x86::Vec x = isa_.vec(kValue + j);
      if (vectors == 1) {
        a_.emit(rangeOp(), x, isa_.vec(kZero), at(0), kLargerMagnitude);
      } else {
        a_.emit(vectorOp(Inst::kIdVmovups, Inst::kIdVmovupd), x, at(2 * j));
        a_.emit(rangeOp(), x, x, at(2 * j + 1), kLargerMagnitude);
      }
      a_.emit(unsignedMax(), isa_.vec(kHigh + j), isa_.vec(kHigh + j), x);
    }
    a_.add(cursor, static_cast<int64_t>(vectors * isa_.vectorBytes()));
    a_.sub(left, step);
    a_.jmp(loop);
    a_.bind(exit);
  }

  InstId rangeOp() const {
    return vectorOp(Inst::kIdVrangeps, Inst::kIdVrangepd);
  }

  /// The magnitude accumulators → lane 0 of xmm(kHigh), lo +0; to
  /// `careful` when the largest is +inf or NaN.
  void reduceMagnitudes(const Label &careful) {
    using namespace range;
    reduceIntegerAccumulators(kHigh, unsignedMax());
    if (f64_) {
      a_.vmovq(boundBits, x86::xmm(kHigh));
      a_.mov(limit, 0x7ff0000000000000);
      a_.cmp(boundBits, limit);
    } else {
      a_.vmovd(boundBits.r32(), x86::xmm(kHigh));
      a_.cmp(boundBits.r32(), 0x7f800000);
    }
    a_.jae(careful);
    zero(kLow);
  }

  InstId signedMax() const {
    return f64_ ? Inst::kIdVpmaxsq : Inst::kIdVpmaxsd;
  }
  InstId unsignedMax() const {
    return f64_ ? Inst::kIdVpmaxuq : Inst::kIdVpmaxud;
  }

  /// lo as a float minimum (AVX-512) or as unsigned integers (AVX2).
  bool lowAsFloats() const { return isa_.avx512(); }

  /// hi's bits into the accumulators kHigh + j (signed maxima), lo into
  /// kLow + j (minima, or its bits as unsigned maxima).
  void emitIntegerLoop(unsigned vectors) {
    emitWholeVectors(vectors, [&](x86::Vec x, x86::Vec lo, x86::Vec hi) {
      a_.emit(signedMax(), hi, hi, x);
      if (lowAsFloats())
        a_.emit(minOp(), lo, x, lo);
      else
        a_.emit(unsignedMax(), lo, lo, x);
    });
  }

  /// Accumulators → lane 0 of xmm(kHigh) and xmm(kLow) as values; to
  /// `careful` when a bound is not finite.
  void reduceIntegers(const Label &careful) {
    using namespace range;
    reduceIntegerAccumulators(kHigh, signedMax());
    if (lowAsFloats())
      reduceAccumulators(kLow, minOp());
    else
      reduceIntegerAccumulators(kLow, unsignedMax());
    // hi: +inf or a positive NaN; lo: -inf or a negative NaN (as floats
    // only -inf).
    Label negative = a_.newLabel();
    if (f64_) {
      a_.vmovq(boundBits, x86::xmm(kHigh));
      a_.mov(limit, 0x7ff0000000000000);
      a_.cmp(boundBits, limit);
      a_.jge(careful);
      a_.vmovq(boundBits, x86::xmm(kLow));
      a_.mov(limit, 0xfff0000000000000);
      a_.cmp(boundBits, limit);
      a_.jae(careful);
      a_.mov(limit, 0x8000000000000000); // -0
      a_.cmp(boundBits, limit);
    } else {
      a_.vmovd(boundBits.r32(), x86::xmm(kHigh));
      a_.cmp(boundBits.r32(), 0x7f800000);
      a_.jge(careful);
      a_.vmovd(boundBits.r32(), x86::xmm(kLow));
      a_.cmp(boundBits.r32(), 0xff800000);
      a_.jae(careful);
      a_.cmp(boundBits.r32(), 0x80000000); // -0
    }
    // No value below -0: lo stays +0.
    a_.ja(negative);
    zero(kLow);
    a_.bind(negative);
  }

  /// The integer accumulators first + j → lane 0 of xmm(first), by `max`.
  void reduceIntegerAccumulators(unsigned first, InstId max) {
    x86::Xmm scratch = x86::xmm(range::kScratch);
    x86::Vec acc = isa_.vec(first);
    a_.emit(max, acc, acc, isa_.vec(first + 1));
    a_.emit(max, isa_.vec(first + 2), isa_.vec(first + 2), isa_.vec(first + 3));
    a_.emit(max, acc, acc, isa_.vec(first + 2));
    x86::Xmm m = x86::xmm(first);
    if (isa_.avx512()) {
      a_.vextracti64x4(x86::ymm(range::kScratch), x86::zmm(first), 1);
      a_.emit(max, x86::ymm(first), x86::ymm(first), x86::ymm(range::kScratch));
    }
    a_.vextracti128(scratch, x86::ymm(first), 1);
    a_.emit(max, m, m, scratch);
    a_.vpshufd(scratch, m, 0x4e); // the upper 64 bits
    a_.emit(max, m, m, scratch);
    if (!f64_) {
      a_.vpshufd(scratch, m, 0xb1); // the odd 32 bits
      a_.emit(max, m, m, scratch);
    }
  }

  /// Accumulators → lane 0 of xmm(kLow) and xmm(kHigh).
  void reduce() {
    reduceAccumulators(range::kLow, minOp());
    reduceAccumulators(range::kHigh, maxOp());
  }

  /// The float accumulators first + j → lane 0 of xmm(first), by `op`
  /// (vminps or vmaxps and their f64 forms).
  void reduceAccumulators(unsigned first, InstId op) {
    using namespace range;
    x86::Vec acc = isa_.vec(first);
    a_.emit(op, acc, isa_.vec(first + 1), acc);
    a_.emit(op, isa_.vec(first + 2), isa_.vec(first + 3), isa_.vec(first + 2));
    a_.emit(op, acc, isa_.vec(first + 2), acc);
    x86::Xmm scratch = x86::xmm(kScratch);
    if (isa_.avx512()) {
      a_.vextractf64x4(x86::ymm(kScratch), x86::zmm(first), 1);
      a_.emit(op, x86::ymm(first), x86::ymm(kScratch), x86::ymm(first));
    }
    a_.vextractf128(scratch, x86::ymm(first), 1);
    a_.emit(op, x86::xmm(first), scratch, x86::xmm(first));
    InstId scalar = first == kLow ? scalarOp(Inst::kIdVminss, Inst::kIdVminsd)
                                  : scalarOp(Inst::kIdVmaxss, Inst::kIdVmaxsd);
    if (!f64_) {
      a_.vmovhlps(scratch, x86::xmm(first), x86::xmm(first));
      a_.emit(op, x86::xmm(first), scratch, x86::xmm(first));
      a_.vmovshdup(scratch, x86::xmm(first));
    } else {
      a_.vunpckhpd(scratch, x86::xmm(first), x86::xmm(first));
    }
    a_.emit(scalar, x86::xmm(first), scratch, x86::xmm(first));
  }

  /// The run's last elements (fewer than a vector), finite ones only.
  void emitTail() {
    using namespace range;
    Label loop = a_.newLabel(), skip = a_.newLabel(), exit = a_.newLabel();
    x86::Vec x = x86::xmm(kValue), difference = x86::xmm(kScratch);
    a_.test(left, left);
    a_.jz(exit);
    a_.bind(loop);
    a_.emit(scalarOp(Inst::kIdVmovss, Inst::kIdVmovsd), x, element(cursor));
    a_.emit(scalarOp(Inst::kIdVsubss, Inst::kIdVsubsd), difference, x, x);
    a_.emit(scalarOp(Inst::kIdVucomiss, Inst::kIdVucomisd), difference,
            x86::xmm(kZero));
    a_.jp(skip);
    a_.emit(scalarOp(Inst::kIdVminss, Inst::kIdVminsd), x86::xmm(kLow), x,
            x86::xmm(kLow));
    a_.emit(scalarOp(Inst::kIdVmaxss, Inst::kIdVmaxsd), x86::xmm(kHigh), x,
            x86::xmm(kHigh));
    a_.bind(skip);
    a_.add(cursor, elementBytes_);
    a_.dec(left);
    a_.jnz(loop);
    a_.bind(exit);
  }

  /// lo[r] and hi[r] take the run's bounds (neither side NaN or -0).
  void merge() {
    using namespace range;
    InstId load = scalarOp(Inst::kIdVmovss, Inst::kIdVmovsd);
    for (auto [bound, entry, op] :
         {std::tuple{kLow, low, scalarOp(Inst::kIdVminss, Inst::kIdVminsd)},
          {kHigh, high, scalarOp(Inst::kIdVmaxss, Inst::kIdVmaxsd)}}) {
      a_.emit(op, x86::xmm(bound), x86::xmm(bound), element(entry));
      a_.emit(load, element(entry), x86::xmm(bound));
    }
  }

  x86::Assembler &a_;
  const X86Isa &isa_;
  bool f64_;
  unsigned elementBytes_;
  unsigned lanes_;
  bool asIntegers_;
  bool magnitudes_;
};

} // namespace

void generateX86RangeRuns(x86::Assembler &a, const X86Isa &isa,
                          ValueType compute, bool magnitudes) {
  RangeRunsGenerator(a, isa, compute, magnitudes).generate();
}

} // namespace qjit::asmjit_backend
