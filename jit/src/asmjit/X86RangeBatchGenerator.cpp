//===- X86RangeBatchGenerator.cpp - Short runs' ranges in batches ---------===//
//
// Bounds are taken on the values' bits as integers, as in
// X86RangeGenerator.cpp: hi's bits are the signed maximum, lo's the
// unsigned one; ±inf and NaN of the side that counts lie beyond every
// finite value, so one compare per batch finds them. What a run without
// values of a side leaves there (a negative hi, a positive lo, -0, a NaN
// of the other sign) the merge drops: lo[] and hi[] hold +0 or beyond,
// never NaN or -0, and vminps/vmaxps return their second operand, the
// entry, for a NaN or two zeros.
//
// A batch is W runs (W the f32 lanes). Each run's vectors fold into one
// (a maximum per vector after the first), then pairs of runs fold across
// lanes: at each level two vectors are shuffled into their low and high
// halves of every part and the halves' maxima kept, so after log2(W)
// levels of one shuffle pair and one maximum each, one vector holds the W
// runs' bounds. Dword 4j + t of it is run slot (W/4) t + j's (j the
// 128-bit lane), so slot s loads run 4 (s mod W/4) + s / (W/4) and the
// bounds come out in run order with no permute. Per run that is 15
// shuffles and 15 maxima per 16 runs at AVX-512, against a horizontal
// reduction of 8 shuffles and maxima for each run alone.
//
// An absmax scheme needs max(hi, -lo) only (11.2): one fold of the
// magnitudes' bits (sign cleared, an unsigned maximum) instead of two,
// merged into hi[]. At AVX-512 a run's vectors meet in pairs in vrangeps
// (the larger magnitude, sign cleared: one instruction for a load, an and
// and a maximum). It returns the other operand for a quiet NaN, which is
// what the range does with NaN, and a quieted signalling NaN, whose bits
// lie beyond +inf's like every NaN's and send the batch to the run-by-run
// pass; the pairs meet in vpmaxud, which keeps those bits (vrangeps would
// take the quieted NaN for a quiet one and return its other operand).
// llvm-mca -mcpu=sapphirerapids, 16 runs of 32: 31 cycles, against 47 with
// vpandd and vpmaxud, and 62 for both bounds; znver4 30 and 41.
//
// Where each run is a group of its own (blocks of 32, short rows), a batch
// of magnitudes may go on to its runs' scales (ChooseBatchesFn): absmax's
// one division of the W maxima by Q and the rule's one step, which on the
// host (chooseDynamicParameters, four lanes per division) and its ranges'
// zeroed arrays cost 15% of a 64K-element i8 qcast in blocks of 32; mx's
// E8M0 bytes on the maxima's bits (11% of MXFP4's, chosen on the host four
// at a time).
//
//===----------------------------------------------------------------------===//
#include "X86RangeBatchGenerator.h"

#include "plan/PlanLimits.h"

#include "qjit/internal/DynamicParameters.h"

#include <asmjit/x86.h>

#include <bit>
#include <cmath>

#include <optional>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

using asmjit::InstId;
using asmjit::Label;
namespace Inst = x86::Inst;

namespace batch {
inline const x86::Gp src = x86::rdi;
inline const x86::Gp runsLeft = x86::rdx;
inline const x86::Gp low = x86::rcx;  ///< Cursor of lo[].
inline const x86::Gp high = x86::r8;  ///< Cursor of hi[].
inline const x86::Gp done = x86::rax; ///< Runs ranged: the return value.
inline const x86::Gp constant = x86::r11;
constexpr unsigned kInfinity = 0;         ///< +inf's bits: hi at or above.
constexpr unsigned kNegativeInfinity = 1; ///< -inf's bits: lo at or above.
constexpr unsigned kMagnitude = 1;        ///< Magnitudes only: ~sign bit.
constexpr unsigned kFirstFree = 2;
constexpr uint32_t kInfinityBits = 0x7f800000;
constexpr uint32_t kNegativeInfinityBits = 0xff800000;
constexpr uint32_t kMagnitudeBits = 0x7fffffff;
constexpr uint8_t kGreaterOrEqual = 5; ///< vpcmp[u]d NLT.
/// vrangeps: the larger magnitude, sign cleared.
constexpr uint8_t kLargerMagnitude = 0x0b;
constexpr uint8_t kEqual = 0; ///< vcmpps EQ_OQ.
} // namespace batch

/// What a batch of magnitudes goes on to (ChooseBatchesFn): scales
/// amax / Q under an absmax rule, or mx's E8M0 bytes.
struct BatchChoice {
  DynamicScheme scheme;   ///< AbsMax or Mx.
  float largest;          ///< Q, or mx's M.
  DynamicRule rule;       ///< absmax's.
  ScaleRounding rounding; ///< mx's.
  int largestExponent;    ///< mx's floor(log2 M) (>= 0, verifyMx).
};

/// A run slot's (or a fold's) bounds: vector register ids, the same when
/// they are one loaded vector or one fold of magnitudes.
struct Bounds {
  unsigned high;
  unsigned low;
  bool shared() const { return high == low; }
};

class RangeBatchesGenerator {
public:
  RangeBatchesGenerator(x86::Assembler &a, const X86Isa &isa, int64_t runLength,
                        bool magnitudes,
                        std::optional<BatchChoice> choice = std::nullopt)
      : a_(a), isa_(isa), magnitudes_(magnitudes || choice), choice_(choice),
        lanes_(x86RangeBatchRuns(isa)),
        vectors_(static_cast<unsigned>(runLength) / lanes_),
        runBytes_(static_cast<int32_t>(runLength) * 4) {
    unsigned registers = isa.avx512() ? 32 : 16;
    for (unsigned id = registers; id-- > batch::kFirstFree;)
      free_.push_back(id);
  }

  void generate() {
    using namespace batch;
    Label loop = a_.newLabel(), exit = a_.newLabel();
    a_.xor_(done.r32(), done.r32());
    broadcast(kInfinity, kInfinityBits);
    if (magnitudes_)
      broadcast(kMagnitude, kMagnitudeBits);
    else
      broadcast(kNegativeInfinity, kNegativeInfinityBits);
    if (choice_)
      takeChoiceConstants();
    a_.bind(loop);
    a_.cmp(runsLeft, lanes_);
    a_.jb(exit);
    Bounds bounds = foldBatch();
    finish(bounds, exit);
    a_.add(src, static_cast<int32_t>(lanes_) * runBytes_);
    a_.add(low, lanes_ * (choice_ ? 8 : 4));     // Zero points when choosing.
    a_.add(high, lanes_ * (mxChoice() ? 1 : 4)); // E8M0 bytes for mx.
    a_.add(done, lanes_);
    a_.sub(runsLeft, lanes_);
    a_.jmp(loop);
    a_.bind(exit);
    a_.vzeroupper();
    a_.ret();
  }

private:
  x86::Vec vec(unsigned id) const { return isa_.vec(id); }

  void broadcast(unsigned id, uint32_t bits) {
    a_.mov(batch::constant.r32(), bits);
    if (isa_.avx512()) {
      a_.vpbroadcastd(vec(id), batch::constant.r32());
    } else {
      a_.vmovd(x86::xmm(id), batch::constant.r32());
      a_.vpbroadcastd(vec(id), x86::xmm(id));
    }
  }

  unsigned take() {
    unsigned id = free_.back();
    free_.pop_back();
    return id;
  }
  void release(const Bounds &bounds) {
    free_.push_back(bounds.high);
    if (!bounds.shared())
      free_.push_back(bounds.low);
  }

  /// The W runs' bounds folded into one vector each, in run order.
  Bounds foldBatch() {
    std::vector<std::optional<Bounds>> pending;
    unsigned perLane = lanes_ / 4;
    for (unsigned slot = 0; slot < lanes_; ++slot) {
      unsigned run = 4 * (slot % perLane) + slot / perLane;
      Bounds folded = loadRun(run);
      size_t level = 0;
      for (; level < pending.size() && pending[level]; ++level) {
        Bounds pair = foldPair(*pending[level], folded, level);
        release(*pending[level]);
        release(folded);
        pending[level].reset();
        folded = pair;
      }
      if (level == pending.size())
        pending.emplace_back();
      pending[level] = folded;
    }
    return *pending.back();
  }

  /// Run `run` of the batch: its vectors' signed and unsigned maxima.
  Bounds loadRun(unsigned run) {
    auto at = [&](unsigned v) {
      return x86::ptr(batch::src,
                      static_cast<int32_t>(run) * runBytes_ +
                          static_cast<int32_t>(v * isa_.vectorBytes()));
    };
    unsigned first = take();
    if (magnitudes_ && isa_.avx512() && vectors_ > 1) {
      // vrangeps meets loaded vectors only: given the quiet NaN it made of
      // a signalling one, it would return the other operand, dropping both
      // the NaN and the magnitude the NaN had replaced. Pairs meet in
      // vpmaxud, which keeps a NaN's bits.
      magnitudePair(first, at(0), at(1));
      if (vectors_ > 2) {
        unsigned next = take();
        for (unsigned v = 2; v < vectors_; v += 2) {
          if (v + 1 < vectors_)
            magnitudePair(next, at(v), at(v + 1));
          else
            magnitudeOf(next, at(v));
          a_.vpmaxud(vec(first), vec(first), vec(next));
        }
        free_.push_back(next);
      }
      return {first, first};
    }
    if (magnitudes_) {
      magnitudeOf(first, at(0));
      if (vectors_ > 1) {
        unsigned next = take();
        for (unsigned v = 1; v < vectors_; ++v) {
          magnitudeOf(next, at(v));
          a_.vpmaxud(vec(first), vec(first), vec(next));
        }
        free_.push_back(next);
      }
      return {first, first};
    }
    if (isa_.avx512())
      a_.vmovdqu32(vec(first), at(0));
    else
      a_.vmovdqu(vec(first), at(0));
    if (vectors_ == 1)
      return {first, first};
    unsigned high = take();
    a_.vpmaxsd(vec(high), vec(first), at(1));
    a_.vpmaxud(vec(first), vec(first), at(1));
    for (unsigned v = 2; v < vectors_; ++v) {
      a_.vpmaxsd(vec(high), vec(high), at(v));
      a_.vpmaxud(vec(first), vec(first), at(v));
    }
    return {high, first};
  }

  /// The larger magnitude of the values at `a` and `b`, lane by lane: the
  /// other value where one is a quiet NaN, a quiet NaN (beyond +inf's
  /// bits, of either sign) where one is signalling.
  void magnitudePair(unsigned id, const x86::Mem &a, const x86::Mem &b) {
    a_.vmovups(vec(id), a);
    a_.vrangeps(vec(id), vec(id), b, batch::kLargerMagnitude);
  }

  /// The bits of the values at `at` with the sign cleared.
  void magnitudeOf(unsigned id, const x86::Mem &at) {
    if (isa_.avx512())
      a_.vpandd(vec(id), vec(batch::kMagnitude), at);
    else
      a_.vpand(vec(id), vec(batch::kMagnitude), at);
  }

  /// The shuffle pair of fold level `level`: with a (earlier runs) and b,
  /// the low and the high half of each part of width W / 2^level lanes.
  void shuffle(size_t level, unsigned lowHalves, unsigned highHalves,
               unsigned a, unsigned b) {
    // AVX2 has no level of 256-bit halves in 512 bits: its levels start
    // at the 128-bit halves.
    size_t form = isa_.avx512() ? level : level + 1;
    switch (form) {
    case 0:
      a_.vshufi64x2(vec(lowHalves), vec(a), vec(b), 0x44);
      a_.vshufi64x2(vec(highHalves), vec(a), vec(b), 0xee);
      return;
    case 1:
      if (isa_.avx512()) {
        a_.vshufi32x4(vec(lowHalves), vec(a), vec(b), 0x88);
        a_.vshufi32x4(vec(highHalves), vec(a), vec(b), 0xdd);
      } else {
        a_.vperm2i128(vec(lowHalves), vec(a), vec(b), 0x20);
        a_.vperm2i128(vec(highHalves), vec(a), vec(b), 0x31);
      }
      return;
    case 2:
      a_.vpunpcklqdq(vec(lowHalves), vec(a), vec(b));
      a_.vpunpckhqdq(vec(highHalves), vec(a), vec(b));
      return;
    default:
      a_.vshufps(vec(lowHalves), vec(a), vec(b), 0x88);
      a_.vshufps(vec(highHalves), vec(a), vec(b), 0xdd);
      return;
    }
  }

  /// a and b (runs of equal count, a's first) folded one level.
  Bounds foldPair(const Bounds &a, const Bounds &b, size_t level) {
    unsigned lowHalves = take(), highHalves = take();
    Bounds result{take(), 0};
    if (magnitudes_) {
      shuffle(level, lowHalves, highHalves, a.high, b.high);
      a_.vpmaxud(vec(result.high), vec(lowHalves), vec(highHalves));
      result.low = result.high;
    } else if (a.shared() && b.shared()) {
      shuffle(level, lowHalves, highHalves, a.high, b.high);
      result.low = take();
      a_.vpmaxsd(vec(result.high), vec(lowHalves), vec(highHalves));
      a_.vpmaxud(vec(result.low), vec(lowHalves), vec(highHalves));
    } else {
      shuffle(level, lowHalves, highHalves, a.high, b.high);
      a_.vpmaxsd(vec(result.high), vec(lowHalves), vec(highHalves));
      shuffle(level, lowHalves, highHalves, a.low, b.low);
      result.low = take();
      a_.vpmaxud(vec(result.low), vec(lowHalves), vec(highHalves));
    }
    free_.push_back(lowHalves);
    free_.push_back(highHalves);
    return result;
  }

  /// To `exit` (the batch not ranged) when a bound is ±inf or NaN of its
  /// side; else merged into lo[] and hi[].
  void finish(const Bounds &bounds, const Label &exit) {
    using namespace batch;
    x86::Vec high = vec(bounds.high), low = vec(bounds.low);
    if (magnitudes_) {
      // Unsigned: vrangeps keeps a signalling NaN's sign. The vpand
      // magnitudes of AVX2 are non-negative, where signed order agrees.
      if (isa_.avx512()) {
        a_.vpcmpud(x86::k1, high, vec(kInfinity), kGreaterOrEqual);
        a_.kortestw(x86::k1, x86::k1);
        a_.jnz(exit);
      } else {
        // Lanes below +inf all ones; CF when no other lane has a bit of it.
        x86::Vec below = vec(take());
        a_.vpcmpgtd(below, vec(kInfinity), high);
        a_.vptest(below, vec(kInfinity));
        a_.jnc(exit);
        free_.push_back(below.id());
      }
      if (choice_) {
        chooseScales(high);
        for (unsigned at = 0; at < lanes_ * 8; at += isa_.vectorBytes())
          a_.vmovups(x86::ptr(batch::low, static_cast<int32_t>(at)),
                     vec(zero_));
        release(bounds);
        return;
      }
      a_.vmaxps(high, high, x86::ptr(batch::high));
      a_.vmovups(x86::ptr(batch::high), high);
      release(bounds);
      return;
    }
    if (isa_.avx512()) {
      a_.vpcmpd(x86::k1, high, vec(kInfinity), kGreaterOrEqual);
      a_.vpcmpud(x86::k2, low, vec(kNegativeInfinity), kGreaterOrEqual);
      a_.kortestw(x86::k1, x86::k2);
      a_.jnz(exit);
    } else {
      x86::Vec beyond = vec(take()), scratch = vec(take());
      a_.vpcmpeqd(beyond, high, vec(kInfinity));
      a_.vpcmpgtd(scratch, high, vec(kInfinity));
      a_.vpor(beyond, beyond, scratch);
      a_.vpmaxud(scratch, low, vec(kNegativeInfinity));
      a_.vpcmpeqd(scratch, scratch, low);
      a_.vpor(beyond, beyond, scratch);
      a_.vptest(beyond, beyond);
      a_.jnz(exit);
      free_.push_back(beyond.id());
      free_.push_back(scratch.id());
    }
    a_.vminps(low, low, x86::ptr(batch::low));
    a_.vmaxps(high, high, x86::ptr(batch::high));
    a_.vmovups(x86::ptr(batch::low), low);
    a_.vmovups(x86::ptr(batch::high), high);
    release(bounds);
  }

  bool mxChoice() const {
    return choice_ && choice_->scheme == DynamicScheme::Mx;
  }

  /// Q, the rule's constant (1 for the default rule's zero scales,
  /// pytorch's smallest amax, vllm's smallest scale) and 0, for the loop;
  /// for mx, M, the rounding's thresholds and 0.
  void takeChoiceConstants() {
    if (mxChoice()) {
      takeMxConstants();
      return;
    }
    const float ruleConstant =
        choice_->rule == DynamicRule::PyTorch ? kPyTorchSmallestAmax
        : choice_->rule == DynamicRule::Vllm  ? kVllmSmallestScale
                                              : 1.0f;
    largest_ = take();
    broadcast(largest_, std::bit_cast<uint32_t>(choice_->largest));
    ruleConstant_ = take();
    broadcast(ruleConstant_, std::bit_cast<uint32_t>(ruleConstant));
    zero_ = take();
    a_.vxorps(x86::xmm(zero_), x86::xmm(zero_), x86::xmm(zero_));
  }

  /// The batch's scales from its largest magnitudes `amax` (finite, not
  /// -0), as absMaxScale in DynamicParameters.cpp, into s[] (the caller
  /// writes the zero points, 0, into z[]). vmaxps returns its second operand
  /// for equal ones, as maxOf does.
  void chooseScales(const x86::Vec &amax) {
    if (mxChoice()) {
      chooseMxBytes(amax);
      return;
    }
    const x86::Vec q = vec(largest_), constant = vec(ruleConstant_);
    switch (choice_->rule) {
    case DynamicRule::PyTorch:
      a_.vmaxps(amax, amax, constant);
      a_.vdivps(amax, amax, q);
      break;
    case DynamicRule::Vllm:
      a_.vdivps(amax, amax, q);
      a_.vmaxps(amax, amax, constant);
      break;
    default: // A zero scale is 1.
      a_.vdivps(amax, amax, q);
      if (isa_.avx512()) {
        a_.vcmpps(x86::k1, amax, vec(zero_), batch::kEqual);
        a_.k(x86::k1).vmovaps(amax, constant);
      } else {
        x86::Vec zeroLanes = vec(take());
        a_.vcmpps(zeroLanes, amax, vec(zero_), batch::kEqual);
        a_.vblendvps(amax, amax, constant, zeroLanes);
        free_.push_back(zeroLanes.id());
      }
      break;
    }
    a_.vmovups(x86::ptr(batch::high), amax);
  }

  /// floor: M's exponent; ceil and even: M, and the thresholds of v's
  /// fraction at and above which a normal and a subnormal v go up.
  void takeMxConstants() {
    if (choice_->rounding == ScaleRounding::Floor) {
      largest_ = take();
      broadcast(largest_, static_cast<uint32_t>(choice_->largestExponent));
    } else {
      largest_ = take();
      broadcast(largest_, std::bit_cast<uint32_t>(choice_->largest));
      // As mxExponent: a normal v = 2^k * 1.f goes up when f > 0 (ceil) or
      // f >= 0x400000 (even, m >= 1.5); a subnormal v = f * 2^-149 when
      // f > 0x400000 (above 2^-127). Compared as "above threshold - 1".
      ruleConstant_ = take();
      broadcast(ruleConstant_,
                choice_->rounding == ScaleRounding::Ceil ? 0u : 0x3FFFFFu);
      subnormalThreshold_ = take();
      broadcast(subnormalThreshold_, 0x400000u);
      byteLimit_ = take();
      broadcast(byteLimit_, 254u);
    }
    zero_ = take();
    a_.vxorps(x86::xmm(zero_), x86::xmm(zero_), x86::xmm(zero_));
  }

  /// mx's E8M0 bytes E + 127 (mxExponent, DynamicParameters.cpp) of the
  /// batch's largest magnitudes `amax` (finite) into s[]. floor: b - floor(log2
  /// M) for amax's biased exponent b, at least 0 (a zero or subnormal amax, M
  /// >= 1); ceil and even: v = amax / M's b, 1 more where v goes up, at most
  /// 254.
  void chooseMxBytes(const x86::Vec &amax) {
    const x86::Vec biased = vec(take());
    if (choice_->rounding == ScaleRounding::Floor) {
      a_.vpsrld(biased, amax, 23);
      a_.vpsubd(biased, biased, vec(largest_));
      a_.vpmaxsd(biased, biased, vec(zero_));
    } else {
      const x86::Vec threshold = vec(take());
      a_.vdivps(amax, amax, vec(largest_));
      a_.vpsrld(biased, amax, 23);
      a_.vpslld(amax, amax, 9); // The fraction, in the top 23 bits.
      a_.vpsrld(amax, amax, 9);
      // threshold = b == 0 ? subnormal's : normal's. Fractions and
      // thresholds are below 2^23: signed compares hold.
      if (isa_.avx512()) {
        a_.vpcmpeqd(x86::k1, biased, vec(zero_));
        a_.k(x86::k1).vpblendmd(threshold, vec(ruleConstant_),
                                vec(subnormalThreshold_));
        a_.vpcmpgtd(x86::k2, amax, threshold);
        a_.vpternlogd(threshold, threshold, threshold, 0xFF); // -1
        a_.k(x86::k2).vpsubd(biased, biased, threshold);
      } else {
        a_.vpcmpeqd(threshold, biased, vec(zero_));
        a_.vpblendvb(threshold, vec(ruleConstant_), vec(subnormalThreshold_),
                     threshold);
        a_.vpcmpgtd(threshold, amax, threshold); // -1 where v goes up.
        a_.vpsubd(biased, biased, threshold);
      }
      // At most 254 (E = 127): v's b is at most 254 before going up.
      a_.vpminsd(biased, biased, vec(byteLimit_));
      free_.push_back(threshold.id());
    }
    // The bytes: vpmovdb, or at AVX2 two packs of the dwords' halves.
    if (isa_.avx512()) {
      a_.vpmovdb(x86::ptr(batch::high), biased);
    } else {
      const x86::Xmm low = x86::xmm(biased.id()), high = x86::xmm(take());
      a_.vextracti128(high, x86::ymm(biased.id()), 1);
      a_.vpackusdw(low, low, high);
      a_.vpackuswb(low, low, low);
      a_.vmovq(x86::qword_ptr(batch::high), low);
      free_.push_back(high.id());
    }
    free_.push_back(biased.id());
  }

  x86::Assembler &a_;
  const X86Isa &isa_;
  bool magnitudes_;
  std::optional<BatchChoice> choice_;
  /// Constant registers of the choice: Q or M (mx's floor: floor(log2 M)),
  /// the rule's constant (mx: a normal v's threshold), 0, and mx's
  /// subnormal threshold and largest byte.
  unsigned largest_ = 0, ruleConstant_ = 0, zero_ = 0;
  unsigned subnormalThreshold_ = 0, byteLimit_ = 0;
  unsigned lanes_;
  unsigned vectors_;
  int32_t runBytes_;
  std::vector<unsigned> free_;
};

} // namespace

unsigned x86RangeBatchRuns(const X86Isa &isa) { return isa.vectorBytes() / 4; }

bool x86RangesInBatches(const X86Isa &isa, int64_t runLength) {
  int64_t lanes = x86RangeBatchRuns(isa);
  return runLength > 0 && runLength % lanes == 0 &&
         runLength < plan::kCheckedRunElements;
}

void generateX86RangeBatches(x86::Assembler &a, const X86Isa &isa,
                             int64_t runLength, bool magnitudes) {
  RangeBatchesGenerator(a, isa, runLength, magnitudes).generate();
}

bool x86ChoosesInBatches(const KernelSpec &spec, const X86Isa &isa,
                         int64_t runLength) {
  const DynamicRule rule = spec.params.dynamicRule;
  const bool absMax =
      spec.params.dynamic == DynamicScheme::AbsMax &&
      (rule == DynamicRule::Default || rule == DynamicRule::PyTorch ||
       rule == DynamicRule::Vllm) &&
      spec.params.scaleFormat == ScaleFormat::Expressed;
  return spec.compute == ValueType::F32 && x86RangesInBatches(isa, runLength) &&
         (absMax || spec.params.dynamic == DynamicScheme::Mx);
}

void generateX86ChooseBatches(x86::Assembler &a, const X86Isa &isa,
                              const KernelSpec &spec, int64_t runLength) {
  const double largest = largestStoredMagnitude(spec.storage);
  const BatchChoice choice{spec.params.dynamic, static_cast<float>(largest),
                           spec.params.dynamicRule, spec.params.scaleRounding,
                           std::ilogb(largest)};
  RangeBatchesGenerator(a, isa, runLength, true, choice).generate();
}

} // namespace qjit::asmjit_backend
