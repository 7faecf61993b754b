//===- X86FixedBracketBody.cpp - AVX-512 8-bit qcast, bracketed -----------===//
//
// Per vector n = vcvtps2dq(fma(x, 2^16·y, offset)): the stored value in
// the high word, the verdict in the low word (plan/FixedPointBracket.h).
// vpacksswb of two such vectors saturates both words to bytes: odd bytes
// are the results, even bytes sat(f), below failBelow exactly when f is
// (f >= 2^15 packs negative, f >= 128 as 127). Four vectors: the unsigned
// byte minimum of the two packs, one vpcmpub on its even bytes, one
// branch; one vpermt2b (VBMI) gathers the odd bytes in element order,
// or they shift down and vpackuswb + vpermd order them
// (kZmmPackedDwordOrder). 17 vector µops per 64 elements (14 with VBMI)
// where the two-FMA bracket takes 27 (measured 19.6 against 13.2 el/ns
// for the 17, i8 at 4K, Xeon SPR-class VM, 2026-12). Narrow ranges add a
// byte min/max a step, packed codes an AND, a vpmaddubsw and a vpmovwb.
//
//===----------------------------------------------------------------------===//
#include "X86FixedBracketBody.h"

#include "X86Conversions.h"
#include "X86KernelFrame.h"
#include "X86PackedCodes.h"
#include "X86Parameters.h"
#include "X86PeriodicRuns.h"
#include "X86StackSlots.h"

#include "../X86PackOrder.h"
#include "plan/FixedPointBracket.h"
#include "plan/LayoutPeriod.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace qjit::asmjit_backend {

namespace {

/// Register roles (zmm16-31 are the body's own).
namespace fx {
constexpr unsigned kY = reg::kScale;          ///< 2^16·y of the run.
constexpr unsigned kOffset = reg::kZeroPoint; ///< The run's offset.
constexpr unsigned kFailBytes = 10;           ///< failBelow in each byte.
constexpr unsigned kFailHigh = 11;            ///< failBelow << 16.
constexpr unsigned kOrder = 12;     ///< kZmmPackedDwordOrder or oddByteOrder().
constexpr unsigned kBias = 13;      ///< 0x80 per byte (unsigned storage).
constexpr unsigned kWork = 15;      ///< The exact path's vector.
constexpr unsigned kDivisor = 16;   ///< s (or y under `reciprocal`).
constexpr unsigned kZero = 17;      ///< z in f32.
constexpr unsigned kClampHigh = 18; ///< The storage's max in f32 (signed).
constexpr unsigned kClampLow = 19;  ///< Its min in f32 (unsigned, narrow).
constexpr unsigned kSlotOffset = 20; ///< Per-slot offsets of multi-run steps.
constexpr unsigned kSlotY = 24;      ///< Per-run 2^16·y of multi-run steps.
constexpr unsigned kLowBytes = 28;   ///< Narrow ranges: min in each byte.
constexpr unsigned kHighBytes = 29;  ///< Max in each byte.
constexpr unsigned kCodeMask = 30;   ///< Packed codes (X86PackedCodes).
constexpr unsigned kByteWeights = 31;
constexpr unsigned kWordWeights = 14;
inline const x86::KReg kEvenBytes = x86::k6;
inline const x86::KReg kFail = x86::k7;
inline const x86::KReg kOrdered = x86::k2;
} // namespace fx

constexpr uint8_t kCmpOrdered = 7;

/// With VBMI, one vpermt2b gathers the results from the two packs: byte e
/// of the store (vector e / 16, element i = e % 16) is the odd byte of
/// element i % 4 of the vector's half of 128-bit lane i / 4, in the first
/// pack for vectors 0 and 1 and in the second (indices 64 and up) for 2
/// and 3.
constexpr std::array<uint8_t, 64> oddByteOrder() {
  std::array<uint8_t, 64> order{};
  for (unsigned e = 0; e < 64; ++e) {
    unsigned vector = e / 16, element = e % 16;
    order[e] =
        static_cast<uint8_t>((vector >= 2 ? 64 : 0) + 16 * (element / 4) +
                             8 * (vector % 2) + 2 * (element % 4) + 1);
  }
  return order;
}
/// vrndscaleps: to nearest even, no precision exception.
constexpr uint8_t kRoundNearestEven = 8;
constexpr unsigned kLanes = 16;

x86::Zmm zmm(unsigned id) { return x86::zmm(id); }

class X86FixedBracketBody final : public X86VectorBody,
                                  private X86ParameterGroups {
public:
  X86FixedBracketBody(const KernelSpec &spec, const X86Isa &isa,
                      plan::FixedPointBracketPlan plan)
      : spec_(spec), isa_(isa), plan_(std::move(plan)) {
    const StorageSpec &s = spec.storage;
    clampLow_ = s.min > (s.isSigned ? -128 : 0);
    clampHigh_ = s.max < (s.isSigned ? 127 : 255);
    if (s.packed)
      packed_.emplace(s.bits, s.isSigned);
    reciprocal_ = spec.knobs.scaleOp == ScaleOp::Reciprocal;
    roundsFirst_ = spec.knobs.zeroPoint == ZeroPointOrder::AfterRounding;
    gathersOddBytes_ = isa_.vbmi();
    if (plan_.runtime) {
      source_ = Source::Runtime;
      return;
    }
    const std::vector<float> &o = plan_.offsets;
    oneOffset_ = std::all_of(o.begin(), o.end(),
                             [&](float v) { return v == o.front(); });
    const std::vector<float> &z = plan_.zeroPoints;
    zeroFree_ = std::all_of(z.begin(), z.end(), [](float v) { return v == 0; });
    if (spec.layout.kind == LayoutSpec::Kind::PerTensor)
      source_ = Source::Tensor;
    else
      planTables();
  }

  void generate(x86::Assembler &a, const X86FrameOptions &options) {
    emitX86Kernel(a, isa_, spec_, *this, options);
  }

  unsigned lanes() const override { return kLanes; }
  unsigned srcBytes() const override { return 4; }
  unsigned dstBytes() const override { return 1; }
  unsigned dstPackedBits() const override {
    return packed_ ? packed_->bits() : 0;
  }
  unsigned parameterBytes() const override {
    return source_ == Source::Elements ? 4 : 0;
  }
  bool canStreamStores() const override { return true; }
  /// Per-element tables of at least 512 elements: the frame's loop around
  /// each table's run costs half as often (per-axis-last i8 qcast at 4K:
  /// 17.6 -> 18.5 el/ns, 0.87 -> 0.92x per-tensor; compile 17 us; Xeon
  /// SPR-class VM, 2026-12).
  int64_t tableElements(int64_t period, bool packed) const override {
    int64_t covered = periodicTableElements(period, kLanes, packed);
    return covered >= 512 ? covered : covered * ((512 + covered - 1) / covered);
  }

  void emitConstants(x86::Assembler &a) override {
    data_ = a.newLabel();
    tables_ = a.newLabel();
    deriveConstants_ = a.newLabel();
    emitBroadcastImmediate(a, isa_, zmm(fx::kFailBytes),
                           plan_.failBelow * 0x01010101u);
    emitBroadcastImmediate(a, isa_, zmm(fx::kFailHigh), plan_.failBelow << 16);
    a.vmovdqu32(zmm(fx::kOrder), x86::ptr(data_));
    if (plan_.bias)
      emitBroadcastImmediate(a, isa_, zmm(fx::kBias), 0x80808080u);
    const StorageSpec &s = spec_.storage;
    if (s.isSigned || clampHigh_)
      emitBroadcastImmediate(a, isa_, zmm(fx::kClampHigh),
                             floatBits(static_cast<float>(s.max)));
    if (!s.isSigned || clampLow_)
      emitBroadcastImmediate(a, isa_, zmm(fx::kClampLow),
                             floatBits(static_cast<float>(s.min)));
    if (clampLow_)
      emitBroadcastImmediate(a, isa_, zmm(fx::kLowBytes),
                             static_cast<uint8_t>(s.min) * 0x01010101u);
    if (clampHigh_)
      emitBroadcastImmediate(a, isa_, zmm(fx::kHighBytes),
                             static_cast<uint8_t>(s.max) * 0x01010101u);
    if (packed_)
      packed_->emitEvexConstants(a, isa_, packedConstants());
    a.mov(reg::scratch, 0x5555555555555555);
    a.kmovq(fx::kEvenBytes, reg::scratch);
    if (oneOffset_)
      emitBroadcastImmediate(a, isa_, zmm(fx::kOffset),
                             floatBits(plan_.offsets[0]));
  }

  void emitParameters(x86::Assembler &a) override {
    switch (source_) {
    case Source::Tensor:
      emitBroadcastImmediate(a, isa_, zmm(fx::kY),
                             floatBits(plan_.scaledReciprocals[0]));
      emitBroadcastImmediate(a, isa_, zmm(fx::kDivisor), floatBits(divisor(0)));
      emitBroadcastImmediate(a, isa_, zmm(fx::kZero),
                             floatBits(plan_.zeroPoints[0]));
      return;
    case Source::Elements:
      a.lea(reg::paramIndex, x86::ptr(tables_));
      return;
    case Source::Runtime:
      emitRuntimeLoad(a, false);
      emitDerive(a, zmm(fx::kY), zmm(fx::kOffset), zmm(fx::kDivisor));
      a.vmovaps(zmm(fx::kZero), zmm(1));
      return;
    case Source::Runs:
      a.lea(reg::scratch, x86::ptr(tables_));
      a.vbroadcastss(zmm(fx::kY), runEntry(Table::Y, 0));
      if (!oneOffset_)
        a.vbroadcastss(zmm(fx::kOffset), runEntry(Table::Offset, 0));
      a.vbroadcastss(zmm(fx::kDivisor), runEntry(Table::Divisor, 0));
      a.vbroadcastss(zmm(fx::kZero), runEntry(Table::Zero, 0));
      return;
    }
  }

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    (void)slot;
    emitExact(a, src, dst, scalarOperands(0),
              masked ? reg::tailMask : x86::KReg(), masked);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    emitStep(a, src, dst, 0);
  }

  unsigned runsPerUnrolledStep(int64_t runElements) const override {
    if ((source_ != Source::Runs && source_ != Source::Runtime) ||
        runElements % kLanes != 0)
      return 0;
    int64_t vectors = runElements / kLanes;
    return vectors < reg::kUnroll && reg::kUnroll % vectors == 0
               ? static_cast<unsigned>(reg::kUnroll / vectors)
               : 0;
  }
  void emitUnrolledRuns(x86::Assembler &a, const x86::Mem &src,
                        const x86::Mem &dst, unsigned runs,
                        const x86::Mem *group) override {
    if (group)
      group_ = *group;
    else
      a.lea(reg::scratch, x86::ptr(tables_));
    emitStep(a, src, dst, runs);
    group_.reset();
  }

  // Runtime parameters: 16 runs prepared at once (one vector division),
  // as Y, offsets, divisors and zero points of 16 lanes each.
  X86ParameterGroups *parameterGroups() override {
    return source_ == Source::Runtime ? this : nullptr;
  }
  unsigned groupRuns() const override { return kLanes; }
  int32_t groupAreaBytes() const override {
    return stack::kBracketGroupTables * stack::kBracketGroupTableBytes;
  }
  void emitGroupLoad(x86::Assembler &a, const x86::Mem &area,
                     const x86::Gp &counter) override {
    (void)counter;
    emitRuntimeLoad(a, true);
    emitDerive(a, zmm(2), zmm(3), zmm(4));
    for (int32_t t = 0; t < stack::kBracketGroupTables; ++t)
      a.vmovups(area.cloneAdjusted(t * stack::kBracketGroupTableBytes),
                zmm(t == 3 ? 1 : 2 + t));
  }
  void emitGroupMember(x86::Assembler &a, const x86::Mem &member) override {
    const unsigned regs[] = {fx::kY, fx::kOffset, fx::kDivisor, fx::kZero};
    for (int32_t t = 0; t < stack::kBracketGroupTables; ++t) {
      x86::Mem m = member.cloneAdjusted(t * stack::kBracketGroupTableBytes);
      m.setSize(4);
      a.vbroadcastss(zmm(regs[t]), m);
    }
  }

  void emitData(x86::Assembler &a) override {
    // Each step's stub calls the shared fix-up of its operands (the
    // kernels keep nothing in the red zone that the call would clobber).
    for (const Stub &stub : stubs_) {
      a.bind(stub.start);
      a.call(slows_[stub.slow].start);
      a.jmp(stub.back);
    }
    for (const Slow &slow : slows_)
      emitSlow(a, slow);
    a.align(asmjit::AlignMode::kData, 64);
    a.bind(data_);
    if (gathersOddBytes_) {
      static constexpr std::array<uint8_t, 64> kOddBytes = oddByteOrder();
      a.embed(kOddBytes.data(), kOddBytes.size());
    } else {
      for (uint32_t index : kZmmPackedDwordOrder)
        a.embedUInt32(index);
    }
    if (packed_)
      packed_->emitData(a);
    if (source_ == Source::Runtime)
      emitDeriveConstants(a);
    if (source_ == Source::Tensor || source_ == Source::Runtime)
      return;
    a.bind(tables_);
    for (const std::vector<float> *table :
         {&y_, &divisors_, &offsets_, &zeros_})
      if (!table->empty())
        a.embed(table->data(), table->size() * sizeof(float));
  }

private:
  enum class Source {
    Tensor,   ///< Immediates.
    Runs,     ///< Broadcast per run from tables indexed by paramIndex.
    Elements, ///< Per-element tables, paramIndex their cursor.
    Runtime,  ///< KernelParams: per run, or groups prepared by the frame.
  };
  enum class Table { Y, Divisor, Offset, Zero }; ///< In memory order.

  /// A vector's parameters as operands.
  struct Operands {
    asmjit::Operand y, offset, divisor, zero;
  };
  /// A step whose check failed: its lanes redo by the exact formula.
  struct Stub {
    asmjit::Label start, back;
    size_t slow; ///< Index into slows_.
  };
  struct Slow {
    asmjit::Label start;
    x86::Mem src, dst;
    unsigned runs;                 ///< emitStep's.
    std::optional<x86::Mem> group; ///< emitUnrolledRuns' group entry.
  };

  float divisor(size_t k) const {
    return reciprocal_ ? plan_.scaledReciprocals[k] * 0x1p-16f
                       : plan_.divisors[k];
  }

  /// Tables of Runs (one entry per parameter) or Elements (one per
  /// element of a widened period, padded by a vector).
  void planTables() {
    std::vector<plan::PeriodDim> dims = plan::periodDims(spec_.layout);
    if (!plan::staticPeriod(dims))
      dims.clear();
    int64_t run = dims.empty() ? 0 : dims.back().block, period = 1;
    for (const plan::PeriodDim &dim : dims)
      period *= dim.extent;
    bool shortRuns = run > 0 && run < int64_t(kLanes) * reg::kUnroll &&
                     !runsPerUnrolledStepFor(run);
    if (!dims.empty() && shortRuns && period <= 16384) {
      source_ = Source::Elements;
      int64_t covered = tableElements(period, spec_.storage.packed);
      int64_t padded = covered + kLanes;
      std::vector<int64_t> indices = plan::periodParameterIndices(dims);
      for (int64_t i = 0; i < padded; ++i)
        pushEntry(static_cast<size_t>(
            i < covered ? indices[static_cast<size_t>(i % period)] : 0));
      tableEntries_ = padded;
    } else {
      source_ = Source::Runs;
      for (size_t k = 0; k < plan_.offsets.size(); ++k)
        pushEntry(k);
      tableEntries_ = static_cast<int64_t>(plan_.offsets.size());
    }
  }
  static bool runsPerUnrolledStepFor(int64_t run) {
    return run % kLanes == 0 && reg::kUnroll % (run / kLanes) == 0;
  }
  /// One entry of each table the kernel reads (one offset and zero
  /// points of 0 need none: embedding is most of the compile time).
  void pushEntry(size_t k) {
    y_.push_back(plan_.scaledReciprocals[k]);
    divisors_.push_back(divisor(k));
    if (!oneOffset_)
      offsets_.push_back(plan_.offsets[k]);
    if (!zeroFree_)
      zeros_.push_back(plan_.zeroPoints[k]);
  }
  int32_t tableOffset(Table table) const {
    int64_t index = 0;
    for (Table before : {Table::Y, Table::Divisor, Table::Offset}) {
      if (before == table)
        break;
      index += before == Table::Offset ? !oneOffset_ : 1;
    }
    return static_cast<int32_t>(index * tableEntries_ * 4);
  }
  /// Runs: entry paramIndex + `ahead` of `table` (reg::scratch holds the
  /// tables' address).
  x86::Mem runEntry(Table table, int32_t ahead) const {
    return x86::dword_ptr(reg::scratch, reg::paramIndex, 2,
                          tableOffset(table) + 4 * ahead);
  }
  /// Elements: the vector `slot` vectors past the cursor.
  x86::Mem elementEntry(Table table, unsigned slot) const {
    return x86::ptr(reg::paramIndex, tableOffset(table) + int32_t(slot) * 64);
  }

  /// The exact path's parameters of a vector: `run` runs past paramIndex
  /// (multi-run steps), or the slot's vector of per-element tables.
  Operands scalarOperands(unsigned slot, unsigned runs = 0,
                          unsigned run = 0) const {
    switch (source_) {
    case Source::Tensor:
      return {zmm(fx::kY), zmm(fx::kOffset), zmm(fx::kDivisor), zmm(fx::kZero)};
    case Source::Elements:
      return {elementEntry(Table::Y, slot), elementEntry(Table::Offset, slot),
              elementEntry(Table::Divisor, slot),
              elementEntry(Table::Zero, slot)};
    case Source::Runs:
    case Source::Runtime:
      break;
    }
    if (group_) {
      // The prepared group (X86StackSlots.h).
      auto entry = [&](int32_t t) {
        x86::Mem m = group_->cloneAdjusted(t * stack::kBracketGroupTableBytes +
                                           4 * int32_t(run));
        m.setSize(4);
        return m;
      };
      return {entry(0)._1to16(), entry(1), entry(2)._1to16(),
              entry(3)._1to16()};
    }
    if (!runs)
      return {zmm(fx::kY), zmm(fx::kOffset), zmm(fx::kDivisor), zmm(fx::kZero)};
    int32_t ahead = static_cast<int32_t>(run);
    return {runEntry(Table::Y, ahead)._1to16(),
            runEntry(Table::Offset, ahead)._1to16(),
            runEntry(Table::Divisor, ahead)._1to16(),
            runEntry(Table::Zero, ahead)._1to16()};
  }

  /// One unrolled step: four vectors, checked together, one store.
  /// `runs` > 0: the step spans that many runs (Runs tables in scratch).
  void emitStep(x86::Assembler &a, const x86::Mem &src, const x86::Mem &dst,
                unsigned runs) {
    asmjit::Label slow = a.newLabel(), back = a.newLabel();
    const unsigned perRun = runs ? reg::kUnroll / runs : reg::kUnroll;
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      a.vmovups(zmm(j), src.cloneAdjusted(int32_t(j) * 64));
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      Operands p = scalarOperands(j, runs, j / perRun);
      asmjit::Operand offset = p.offset;
      if (oneOffset_) {
        offset = zmm(fx::kOffset);
      } else if (!offset.isReg() && runs) {
        // One broadcast per run, shared by its slots.
        x86::Zmm runOffset = zmm(fx::kSlotOffset + j / perRun);
        if (j % perRun == 0)
          a.vbroadcastss(runOffset,
                         group_ ? offset.as<x86::Mem>()
                                : runEntry(Table::Offset, int32_t(j / perRun)));
        offset = runOffset;
      } else if (!offset.isReg()) {
        x86::Zmm slotOffset = zmm(fx::kSlotOffset + j);
        a.vmovups(slotOffset, offset.as<x86::Mem>());
        offset = slotOffset;
      }
      asmjit::Operand y = p.y;
      if (!y.isReg() && runs) {
        // One broadcast per run: a register FMA instead of one with an
        // indexed broadcast operand, which Intel cores unlaminate.
        x86::Zmm runY = zmm(fx::kSlotY + j / perRun);
        if (j % perRun == 0)
          a.vbroadcastss(runY, y.as<x86::Mem>()._1to1());
        y = runY;
      }
      // x = x · y16 + offset.
      a.emit(x86::Inst::kIdVfmadd132ps, zmm(j), offset, y);
    }
    for (unsigned j = 0; j < reg::kUnroll; ++j)
      a.vcvtps2dq(zmm(j), zmm(j));
    x86::Zmm low = zmm(4), high = zmm(5), verdict = zmm(6);
    a.vpacksswb(low, zmm(0), zmm(1));
    a.vpacksswb(high, zmm(2), zmm(3));
    a.vpminub(verdict, low, high);
    a.k(fx::kEvenBytes).vpcmpub(fx::kFail, verdict, zmm(fx::kFailBytes), 1);
    if (gathersOddBytes_) {
      a.vpermt2b(low, zmm(fx::kOrder), high);
    } else {
      a.vpsrlw(low, low, 8);
      a.vpsrlw(high, high, 8);
      a.vpackuswb(low, low, high);
      a.vpermd(low, zmm(fx::kOrder), low);
    }
    if (plan_.bias)
      a.vpxord(low, low, zmm(fx::kBias));
    a.kortestq(fx::kFail, fx::kFail);
    a.jnz(slow);
    a.bind(back);
    emitClampBytes(a, low);
    emitStore(a, dst, low);
    stubs_.push_back({slow, back, slowFor(a, src, dst, runs)});
  }

  /// Runtime parameters of reg::paramIndex (`group`: and the next 15)
  /// into zmm0 (s) and zmm1 (z in f32, 0 without zero points), as the
  /// reference gathers them.
  void emitRuntimeLoad(x86::Assembler &a, bool group) {
    x86::Gp p = reg::scratch;
    X86ScaleType type = x86ScaleType(spec_);
    if (group) {
      emitLoadRuntimeScales(a, type, zmm(0), zmm(1), zmm(2));
    } else {
      emitLoadRuntimeScale(a, type, x86::xmm(0));
      a.vbroadcastss(zmm(0), x86::xmm(0));
    }
    asmjit::Label none = a.newLabel();
    a.vxorps(zmm(1), zmm(1), zmm(1));
    a.mov(p, x86::qword_ptr(reg::params, offsetof(KernelParams, zeroPoints)));
    a.test(p, p);
    a.jz(none);
    if (group) {
      a.vcvtqq2ps(x86::ymm(1), x86::zmmword_ptr(p, reg::paramIndex, 3));
      a.vcvtqq2ps(x86::ymm(2), x86::zmmword_ptr(p, reg::paramIndex, 3, 64));
      a.vinsertf32x8(zmm(1), zmm(1), x86::ymm(2), 1);
    } else {
      a.vcvtsi2ss(x86::xmm(1), x86::xmm(1),
                  x86::qword_ptr(p, reg::paramIndex, 3));
      a.vbroadcastss(zmm(1), x86::xmm(1));
    }
    a.bind(none);
  }
  /// From s (zmm0) and z (zmm1): 2^16·RN(1/s) into `y` (all ones, a NaN,
  /// where s or z is outside the checked range), 2^16·(z + offsetBase)
  /// into `offset`, and the exact path's divisor (s, or RN(1/s) under
  /// `reciprocal`) into `divisor`. Clobbers zmm5-7, k2 and k3.
  void emitDerive(x86::Assembler &a, const x86::Zmm &y, const x86::Zmm &offset,
                  const x86::Zmm &divisor) {
    // Constants from memory (a load each, no shuffle µop).
    auto constant = [&](DeriveConstant c) {
      return x86::dword_ptr(deriveConstants_, static_cast<int32_t>(c) * 4)
          ._1to16();
    };
    auto scalar = [&](DeriveConstant c) {
      return x86::dword_ptr(deriveConstants_, static_cast<int32_t>(c) * 4);
    };
    x86::Zmm one = zmm(5), abs = zmm(6);
    a.vbroadcastss(one, scalar(DeriveConstant::One));
    a.vdivps(one, one, zmm(0)); // RN(1/s), as the reference.
    a.vandps(abs, zmm(0), constant(DeriveConstant::Magnitude));
    a.vcmpps(x86::k2, abs, constant(DeriveConstant::MinScale), 0x1d); // >=
    a.k(x86::k2).vcmpps(x86::k2, abs, constant(DeriveConstant::MaxScale),
                        0x12); // <= (both ordered)
    a.vandps(abs, zmm(1), constant(DeriveConstant::Magnitude));
    a.k(x86::k2).vcmpps(x86::k2, abs, constant(DeriveConstant::ZeroLimit),
                        0x12);
    a.knotw(x86::k3, x86::k2);
    reciprocal_ ? a.vmovaps(divisor, one) : a.vmovaps(divisor, zmm(0));
    a.vmulps(y, one, constant(DeriveConstant::Unit));
    a.k(x86::k3).vpternlogd(y, y, y, 0xff);
    // 2^16·z + 2^16·offsetBase, both exact: one rounding of an exact sum.
    a.vbroadcastss(offset, scalar(DeriveConstant::Base));
    a.vfmadd231ps(offset, zmm(1), constant(DeriveConstant::Unit));
  }
  enum class DeriveConstant {
    One,
    Magnitude,
    MinScale,
    MaxScale,
    ZeroLimit,
    Unit,
    Base
  };
  void emitDeriveConstants(x86::Assembler &a) {
    a.bind(deriveConstants_);
    for (uint32_t bits :
         {floatBits(1.0f), 0x7fffffffu, floatBits(0x1p-60f), floatBits(0x1p60f),
          floatBits(static_cast<float>(plan_.zeroPointLimit)),
          floatBits(0x1p16f), floatBits(plan_.offsetBase * 0x1p16f)})
      a.embedUInt32(bits);
  }

  /// Narrow ranges: the bytes of `v` (signed or unsigned) clamped to
  /// [min, max], the reference's saturation after the byte's.
  void emitClampBytes(x86::Assembler &a, const x86::Vec &v) {
    const bool isSigned = spec_.storage.isSigned;
    if (clampLow_)
      isSigned ? a.vpmaxsb(v, v, zmm(fx::kLowBytes))
               : a.vpmaxub(v, v, zmm(fx::kLowBytes));
    if (clampHigh_)
      isSigned ? a.vpminsb(v, v, zmm(fx::kHighBytes))
               : a.vpminub(v, v, zmm(fx::kHighBytes));
  }

  X86PackedCodes::EvexConstants packedConstants() const {
    return {zmm(fx::kCodeMask), zmm(fx::kByteWeights), zmm(fx::kWordWeights)};
  }

  /// The 64 or 16 result bytes of `v` at `dst` (packed: as codes).
  void emitStore(x86::Assembler &a, const x86::Mem &dst, const x86::Vec &v) {
    if (packed_)
      packed_->emitStoreBytesEvex(a, dst, v, packedConstants());
    else
      streamingStores_ ? a.vmovntdq(dst, v) : a.vmovdqu8(dst, v);
  }

  /// Out of line: the step's results (right in the passing lanes), then
  /// the lanes of each vector that fail, by the exact formula. zmm0-3
  /// still hold the conversions.
  size_t slowFor(x86::Assembler &a, const x86::Mem &src, const x86::Mem &dst,
                 unsigned runs) {
    for (size_t k = 0; k < slows_.size(); ++k) {
      const Slow &slow = slows_[k];
      if (slow.src == src && slow.dst == dst && slow.runs == runs &&
          slow.group.has_value() == group_.has_value() &&
          (!group_ || *slow.group == *group_))
        return k;
    }
    slows_.push_back({a.newLabel(), src, dst, runs, group_});
    return slows_.size() - 1;
  }
  void emitSlow(x86::Assembler &a, const Slow &slow) {
    a.bind(slow.start);
    const unsigned perRun = slow.runs ? reg::kUnroll / slow.runs : reg::kUnroll;
    group_ = slow.group;
    if (group_) // rsp-relative, below the return address now.
      group_ = group_->cloneAdjusted(stack::kReturnAddressBytes);
    if (slow.runs && !group_)
      a.lea(reg::scratch, x86::ptr(tables_));
    for (unsigned j = 0; j < reg::kUnroll; ++j) {
      asmjit::Label next = a.newLabel();
      a.vpslld(zmm(fx::kWork), zmm(j), 16); // f << 16 < F << 16.
      a.vpcmpud(fx::kFail, zmm(fx::kWork), zmm(fx::kFailHigh), 1);
      a.kortestw(fx::kFail, fx::kFail);
      a.jz(next);
      // All 16 lanes exact, into the step's result: the step then stores
      // 64 bytes as usual (a partial store into a line that streaming
      // stores write costs a read of it from memory: -15% at 16M).
      emitExact(a, slow.src.cloneAdjusted(int32_t(j) * 64), std::nullopt,
                scalarOperands(j, slow.runs, j / perRun), x86::KReg(), false);
      a.vinserti32x4(zmm(4), zmm(4), x86::xmm(fx::kWork), j);
      a.bind(next);
    }
    group_.reset();
    a.ret();
  }

  /// The exact formula on one vector: x / s (or x · y), NaN lanes 0, + z,
  /// clamped where the saturating store would not (CheckedReciprocal.h's
  /// container bounds), rounded to nearest even, narrowed with saturation
  /// and stored through `storeMask` (none: all lanes), or without `dst`
  /// left in xmm(fx::kWork). `maskedLoad`: only the lanes in
  /// reg::tailMask exist.
  void emitExact(x86::Assembler &a, const x86::Mem &src,
                 const std::optional<x86::Mem> &dst, const Operands &p,
                 const x86::KReg &storeMask, bool maskedLoad) {
    x86::Zmm v = zmm(fx::kWork);
    if (maskedLoad)
      a.k(reg::tailMask).z().vmovups(v, src);
    else
      a.vmovups(v, src);
    asmjit::InstId scaleOp =
        reciprocal_ ? x86::Inst::kIdVmulps : x86::Inst::kIdVdivps;
    if (source_ == Source::Runtime) {
      // Any scale: NaN quotients (0/0, inf/inf, NaN s) become 0 too.
      a.emit(scaleOp, v, v, p.divisor);
      a.vcmpps(fx::kOrdered, v, v, kCmpOrdered);
      a.k(fx::kOrdered).z().vmovaps(v, v);
    } else {
      // A baked scale is finite and positive: the quotient is NaN exactly
      // where x is.
      a.vcmpps(fx::kOrdered, v, v, kCmpOrdered);
      a.k(fx::kOrdered).z().emit(scaleOp, v, v, p.divisor);
    }
    if (!zeroFree_) {
      // `after-rounding`: round(u) + z, exact in f32 for the plan's small
      // z (baked, or runtime within the storage range) where it does not
      // saturate anyway.
      if (roundsFirst_)
        a.vrndscaleps(v, v, kRoundNearestEven);
      a.emit(x86::Inst::kIdVaddps, v, v, p.zero);
    }
    // Integral bounds: clamping before rounding is clamping after it.
    const StorageSpec &s = spec_.storage;
    if (s.isSigned || clampHigh_)
      a.vminps(v, v, zmm(fx::kClampHigh));
    if (!s.isSigned || clampLow_)
      a.vmaxps(v, v, zmm(fx::kClampLow));
    a.rn_sae().vcvtps2dq(v, v);
    if (!dst || packed_) {
      s.isSigned ? a.vpmovsdb(v.xmm(), v) : a.vpmovusdb(v.xmm(), v);
      // Packed codes: no masked tails (the frame's red-zone buffers).
      if (dst)
        emitStore(a, *dst, v.xmm());
      return;
    }
    if (storeMask.isValid())
      a.k(storeMask);
    s.isSigned ? a.vpmovsdb(*dst, v) : a.vpmovusdb(*dst, v);
  }

  const KernelSpec &spec_;
  X86Isa isa_;
  plan::FixedPointBracketPlan plan_;
  bool clampLow_ = false;  ///< Storage min above the byte's.
  bool clampHigh_ = false; ///< Storage max below the byte's.
  std::optional<X86PackedCodes> packed_;
  bool reciprocal_ = false;
  bool oneOffset_ = false;   ///< Every offset equal: one register.
  bool zeroFree_ = false;    ///< Every zero point 0.
  bool roundsFirst_ = false; ///< `after-rounding`: round, then add z.
  /// VBMI: kOrder holds oddByteOrder() for one vpermt2b per store.
  bool gathersOddBytes_ = false;
  Source source_ = Source::Tensor;
  std::vector<float> y_, offsets_, divisors_, zeros_;
  int64_t tableEntries_ = 0;
  asmjit::Label data_;   ///< kZmmPackedDwordOrder.
  asmjit::Label tables_; ///< Runs and Elements: Y, offsets, divisors, zeros.
  asmjit::Label deriveConstants_; ///< Runtime: emitDerive's.
  std::vector<Stub> stubs_;
  std::vector<Slow> slows_;
  /// While emitting a step of a prepared group: its entry.
  std::optional<x86::Mem> group_;
};

} // namespace

bool x86FixedBracketApplies(const KernelSpec &spec, const X86Isa &isa) {
  if (!isa.avx512() || spec.op != KernelOp::QCast ||
      spec.storage.kind != StorageType::Kind::Integer)
    return false;
  if (spec.params.runtime && spec.layout.kind != LayoutSpec::Kind::PerTensor) {
    // Runtime runs of whole vectors only: shorter ones take the old
    // generator's per-call tables (X86PeriodicRuns.h).
    std::vector<plan::PeriodDim> dims = plan::periodDims(spec.layout);
    if (dims.empty() || !plan::staticPeriod(dims) ||
        dims.back().block % kLanes != 0)
      return false;
  }
  return plan::planFixedPointBracket(spec).has_value();
}

void generateX86FixedBracket(x86::Assembler &a, const X86Isa &isa,
                             const KernelSpec &spec,
                             const X86FrameOptions &options) {
  X86FixedBracketBody(spec, isa, *plan::planFixedPointBracket(spec))
      .generate(a, options);
}

} // namespace qjit::asmjit_backend
