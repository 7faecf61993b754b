//===- X86KernelFrame.cpp - Prologue, parameter loops and tails -----------===//
#include "X86KernelFrame.h"

#include "X86PeriodicRuns.h"
#include "X86StackSlots.h"

#include "plan/LayoutPeriod.h"
#include "plan/PlanLimits.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace qjit::asmjit_backend {

int64_t X86VectorBody::tableElements(int64_t period, bool packed) const {
  return periodicTableElements(period, lanes(), packed);
}

int32_t X86VectorBody::srcVectorBytes() const {
  unsigned bits = srcPackedBits();
  return static_cast<int32_t>(bits ? lanes() * bits / 8 : lanes() * srcBytes());
}

int32_t X86VectorBody::dstVectorBytes() const {
  unsigned bits = dstPackedBits();
  return static_cast<int32_t>(bits ? lanes() * bits / 8 : lanes() * dstBytes());
}

void X86VectorBody::emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                                 const x86::Mem &dst) {
  for (unsigned j = 0; j < reg::kUnroll; ++j)
    emitVector(a, j, src.cloneAdjusted(int32_t(j) * srcVectorBytes()),
               dst.cloneAdjusted(int32_t(j) * dstVectorBytes()), false);
}

void X86VectorBody::emitRunRest(x86::Assembler &a, const x86::Mem &src,
                                const x86::Mem &dst, unsigned count) {
  for (unsigned v = 0; v < count; ++v)
    emitVector(a, 0, src.cloneAdjusted(int32_t(v) * srcVectorBytes()),
               dst.cloneAdjusted(int32_t(v) * dstVectorBytes()), false);
}

namespace {

using asmjit::AlignMode;
using asmjit::Label;

/// One dimension of a period, as the reference resolves it: `grid` blocks
/// of `block` elements (innermost) or rows (outer dims). Grids and strides
/// are static (a dynamic extent always has a whole-extent block); a block
/// may be read from KernelParams::extents[extentIndex] at call time.
struct NestLevel {
  int64_t grid = 1;
  int64_t block = 1;
  int extentIndex = -1; ///< >= 0: block is extents[extentIndex].
  int64_t paramStride = 1;
};

std::vector<NestLevel> nestLevels(const LayoutSpec &layout) {
  std::vector<plan::PeriodDim> dims = plan::periodDims(layout);
  std::vector<int64_t> strides = plan::parameterStrides(dims);
  std::vector<NestLevel> levels;
  for (size_t d = 0; d < dims.size(); ++d) {
    const plan::PeriodDim &dim = dims[d];
    levels.push_back({dim.grid(), dim.dynamic() ? 0 : dim.block,
                      dim.dynamic() ? static_cast<int>(dim.extentIndex) : -1,
                      strides[d]});
  }
  return levels;
}

/// Outputs from this size on stream past the caches (non-temporal stores).
constexpr int64_t kStreamingBytes = plan::kStreamingOutputBytes;
/// Their inputs are prefetched this far ahead, unless every loop does.
constexpr int32_t kStreamingPrefetch = plan::kInputPrefetchBytes;

/// Loop heads the core fetches in one aligned block.
constexpr uint32_t kLoopAlignment = 32;

using stack::LevelSlots;

class FrameEmitter {
public:
  FrameEmitter(x86::Assembler &a, const X86Isa &isa, const LayoutSpec &layout,
               X86VectorBody &body, const X86FrameOptions &options)
      : a_(a), isa_(isa), body_(body), options_(options),
        levels_(nestLevels(layout)), groupSource_(body.parameterGroups()) {
    if (body_.srcPackedBits())
      packedSides_.push_back({reg::src, body_.srcPackedBits()});
    if (body_.dstPackedBits())
      packedSides_.push_back({reg::dst, body_.dstPackedBits()});
  }

  void emit() {
    exit_ = a_.newLabel();
    bool nested = !levels_.empty() && body_.parameterBytes() == 0;
    int32_t frameBytes = nested ? stack::levelSlotsBytes(levels_.size())
                                : body_.parameterStackBytes();
    if (nested && groupSource_) {
      // The group being run, the next one and a saved index (see
      // emitWholeRunGroups).
      groups_ =
          stack::groupSlots(levels_.size(), groupSource_->groupAreaBytes());
      frameBytes += stack::groupSlotsBytes(groupSource_->groupAreaBytes());
    }
    if (frameBytes)
      a_.sub(x86::rsp, frameBytes);
    body_.emitConstants(a_);
    midByte_ = !packedSides_.empty() && !runsStartOnBytes(nested);
    if (midByte_)
      for (const PackedSide &side : packedSides_)
        a_.shl(side.cursor, side.shift()); // Element addresses.
    if (levels_.empty()) {
      a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
      body_.emitParameters(a_);
      if (body_.canStreamStores() && !body_.dstPackedBits())
        emitStreamingRun();
      else if (options_.prefetchInputBytes == 0)
        emitLargeRun();
      a_.mov(reg::runCount, reg::remaining);
      emitRun(true);
    } else if (nested && sequentialRuns()) {
      emitStreamingChoice(
          levels_.back().block,
          [this](bool streaming) { emitSequentialRuns(streaming); },
          wholeRuns());
    } else if (nested) {
      emitNest();
    } else {
      emitStreamingChoice(tablePeriod(),
                          [this](bool streaming) { emitPeriods(streaming); });
    }
    a_.bind(exit_);
    if (frameBytes)
      a_.add(x86::rsp, frameBytes);
    a_.vzeroupper();
    a_.ret();
    if (prepareGroup_.isValid())
      emitPrepareGroup();
    body_.emitData(a_);
  }

private:
  /// A buffer of packed codes: its cursor and code width.
  struct PackedSide {
    x86::Gp cursor;
    unsigned bits;
    /// log2 of the codes per byte.
    unsigned shift() const { return 3 - std::countr_zero(bits); }
    unsigned perByte() const { return 8 / bits; }
  };

  /// Whether every run but the call's last one holds whole bytes of
  /// packed codes, so that every run starts on a byte. Otherwise (a block
  /// or period that is no multiple of 8/bits, or a dynamic one) packed
  /// cursors hold element addresses between runs (see emitRun).
  bool runsStartOnBytes(bool nested) const {
    int64_t run = 0;
    if (levels_.empty())
      return true;
    if (!nested) { // One run per period.
      run = tablePeriod();
    } else if (levels_.back().extentIndex < 0) {
      run = levels_.back().block;
    }
    for (const PackedSide &side : packedSides_)
      if (run == 0 || run % side.perByte() != 0)
        return false;
    return true;
  }

  /// Stores each level's block length; a dynamic one comes from
  /// KernelParams::extents and must be positive.
  void emitBlockLengths() {
    for (size_t d = 0; d < levels_.size(); ++d) {
      const NestLevel &level = levels_[d];
      if (level.extentIndex < 0) {
        a_.mov(reg::scratch, level.block);
      } else {
        a_.mov(reg::scratch,
               x86::qword_ptr(reg::params, offsetof(KernelParams, extents)));
        a_.mov(reg::scratch,
               x86::qword_ptr(reg::scratch, level.extentIndex * 8));
        a_.test(reg::scratch, reg::scratch);
        a_.jle(exit_);
      }
      a_.mov(stack::levelSlots(d).block, reg::scratch);
    }
  }

  /// Outputs of at least kStreamingBytes whose address is element-aligned
  /// (packed codes in: aligned to a whole input byte's elements, so that
  /// the head ends on a byte): a few elements up to a vector boundary,
  /// then the rest with non-temporal stores (they would only evict the
  /// caches), then a fence. Smaller or misaligned outputs fall through to
  /// the regular run.
  void emitStreamingRun() {
    const unsigned dstBytes = body_.dstBytes();
    const unsigned srcBits = body_.srcPackedBits();
    const unsigned alignment = srcBits ? dstBytes * 8 / srcBits : dstBytes;
    Label regular = a_.newLabel();
    a_.mov(reg::scratch, largeCallElements());
    a_.cmp(reg::remaining, reg::scratch);
    a_.jb(regular);
    a_.test(reg::dst.r8(), alignment - 1);
    a_.jnz(regular);
    // Elements before the next vector boundary (< lanes of them).
    a_.mov(reg::runCount, reg::dst);
    a_.neg(reg::runCount);
    a_.and_(reg::runCount, isa_.vectorBytes() - 1);
    a_.shr(reg::runCount, std::countr_zero(dstBytes));
    a_.sub(reg::remaining, reg::runCount);
    emitRun(false);
    a_.mov(reg::runCount, reg::remaining);
    a_.xor_(reg::remaining.r32(), reg::remaining.r32());
    largeCall_ = true;
    emitRun(true, /*streaming=*/true);
    largeCall_ = false;
    a_.sfence();
    a_.jmp(exit_);
    a_.bind(regular);
  }

  /// Calls of kStreamingBytes of output or more whose stores cannot
  /// stream, in kernels whose loops do not prefetch anyway: the run
  /// prefetching its input (kStreamingPrefetch).
  void emitLargeRun() {
    Label regular = a_.newLabel();
    a_.mov(reg::scratch, largeCallElements());
    a_.cmp(reg::remaining, reg::scratch);
    a_.jb(regular);
    a_.mov(reg::runCount, reg::remaining);
    a_.xor_(reg::remaining.r32(), reg::remaining.r32());
    largeCall_ = true;
    emitRun(true);
    largeCall_ = false;
    a_.jmp(exit_);
    a_.bind(regular);
  }

  /// The elements of kStreamingBytes of output.
  int64_t largeCallElements() const {
    if (unsigned bits = body_.dstPackedBits())
      return kStreamingBytes * 8 / bits;
    return kStreamingBytes / body_.dstBytes();
  }

  /// Layouts of many runs: emits `loops` twice when the body may stream
  /// and every run but the call's last keeps the destination on a vector
  /// boundary (`runElements` whole vectors of output): for outputs of at
  /// least kStreamingBytes starting on one, with non-temporal stores, the
  /// input prefetched (kStreamingPrefetch) and a fence on the way out, and
  /// for the others as usual. Narrowing outputs (qcast) stream only in
  /// straight-line whole runs: elsewhere the short streams of many runs
  /// measured slower than the caches. (qcast loops prefetch in both
  /// copies: a copy only to prefetch measured up to 3x the compile time,
  /// i4 blocks of 32, 16 -> 49 us.)
  void emitStreamingChoice(int64_t runElements,
                           const std::function<void(bool)> &loops,
                           bool wholeRuns = false) {
    const int64_t dstBytes = body_.dstBytes();
    if (body_.canStreamStores() && !body_.dstPackedBits() && !midByte_ &&
        (wholeRuns || body_.dstBytes() >= body_.srcBytes()) &&
        runElements > 0 && runElements * dstBytes % isa_.vectorBytes() == 0) {
      Label regular = a_.newLabel(), fenced = a_.newLabel();
      a_.mov(reg::scratch, largeCallElements());
      a_.cmp(reg::remaining, reg::scratch);
      a_.jb(regular);
      a_.test(reg::dst.r8(), isa_.vectorBytes() - 1);
      a_.jnz(regular);
      Label exit = exit_;
      exit_ = fenced;
      largeCall_ = true;
      loops(true);
      largeCall_ = false;
      exit_ = exit;
      // A streaming copy that fences on its own way out never comes here.
      if (a_.code()->labelEntry(fenced)->links()) {
        a_.bind(fenced);
        a_.sfence();
        a_.jmp(exit_);
      }
      a_.bind(regular);
    }
    loops(false);
  }

  /// The elements per-element parameter tables cover: one layout period,
  /// or with packed codes lcm(period, 8), so that every table run starts
  /// on a byte (X86Parameters builds the tables alike).
  int64_t tablePeriod() const {
    int64_t period = 1;
    for (const NestLevel &level : levels_)
      period *= level.grid * level.block;
    return body_.tableElements(period, !packedSides_.empty());
  }

  /// One run per table period, parameters from per-element tables.
  /// `streaming`: see emitRun.
  void emitPeriods(bool streaming) {
    int64_t period = tablePeriod();
    Label top = a_.newLabel();
    a_.bind(top);
    a_.test(reg::remaining, reg::remaining);
    a_.jz(exit_);
    body_.emitParameters(a_);
    a_.mov(reg::runCount, period);
    a_.cmp(reg::runCount, reg::remaining);
    a_.cmova(reg::runCount, reg::remaining);
    a_.sub(reg::remaining, reg::runCount);
    emitRun(true, streaming);
    a_.jmp(top);
  }

  /// Whether runs simply take the parameters in order: every level but the
  /// innermost has rows of one element block, all static. Run r then has
  /// the innermost block length and parameter r mod (product of grids).
  bool sequentialRuns() const {
    int64_t parameters = 1;
    for (const NestLevel &level : levels_)
      parameters *= level.grid;
    if (parameters > INT32_MAX)
      return false;
    for (size_t d = 0; d < levels_.size(); ++d)
      if (levels_[d].extentIndex >= 0 ||
          (d + 1 < levels_.size() && levels_[d].block != 1))
        return false;
    return true;
  }

  /// The nest of sequentialRuns() as one loop, its state in registers.
  /// `streaming`: see emitRun. After whole runs, the run loop only takes
  /// what they leave (less than a group of runs): the streaming copy
  /// fences and leaves that to the regular copy's loop (emitted next, see
  /// emitStreamingChoice) instead of emitting its own.
  void emitSequentialRuns(bool streaming) {
    int64_t parameters = 1;
    for (const NestLevel &level : levels_)
      parameters *= level.grid;
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    if (streaming && wholeRuns()) {
      Label fence = a_.newLabel();
      emitWholeRuns(parameters, fence, streaming);
      a_.bind(fence);
      a_.sfence();
      leftoverRuns_ = a_.newLabel();
      a_.jmp(leftoverRuns_);
      return;
    }
    Label top = leftoverRuns_.isValid() ? leftoverRuns_ : a_.newLabel();
    emitWholeRuns(parameters, top, streaming);
    a_.bind(top);
    a_.test(reg::remaining, reg::remaining);
    a_.jz(exit_);
    body_.emitParameters(a_);
    a_.mov(reg::runCount, levels_.back().block);
    a_.cmp(reg::runCount, reg::remaining);
    a_.cmova(reg::runCount, reg::remaining);
    a_.sub(reg::remaining, reg::runCount);
    emitRun(false, streaming);
    a_.inc(reg::paramIndex);
    a_.cmp(reg::paramIndex, parameters);
    a_.jb(top);
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    a_.jmp(top);
  }

  /// Short static runs of whole vectors (blockwise 32, 64, 128, per-axis
  /// runs of 16 on AVX2): while a whole run remains, one straight-line
  /// body per run, without the run loop's counting and tail tests, then
  /// `next` takes the last, partial run. `streaming`: see emitRun.
  void emitWholeRuns(int64_t parameters, const Label &next, bool streaming) {
    if (wholeRuns())
      emitWholeRunLoop(parameters, next, streaming);
  }

  /// Whether sequential runs are short and whole vectors.
  bool wholeRuns() const {
    constexpr int64_t kMaxInlineVectors = 4 * reg::kUnroll;
    const int64_t block = levels_.back().block;
    const int64_t lanes = body_.lanes();
    return !midByte_ && block > 0 && block % lanes == 0 &&
           block / lanes <= kMaxInlineVectors;
  }

  /// The loop of emitWholeRuns(), leaving through `exit`. Runs shorter
  /// than an unrolled step go in pairs when a period holds whole pairs
  /// (counting them would otherwise be a fifth of their instructions).
  void emitWholeRunLoop(int64_t parameters, const Label &exit, bool streaming) {
    const int64_t block = levels_.back().block;
    Label run = a_.newLabel();
    if (groupSource_ && parameters % groupSource_->groupRuns() == 0) {
      // What groups leave (less than a group, only when n is no whole
      // number of periods) goes to the general run loop.
      emitWholeRunGroups(parameters, groupSource_->groupRuns(), exit,
                         streaming);
      return;
    }
    // (Bodies that prepare groups share steps only within them.)
    if (const unsigned runs = body_.runsPerUnrolledStep(block);
        runs > 1 && parameters % runs == 0 && !groupSource_) {
      emitUnrolledRunLoop(parameters, runs, exit, streaming);
      return;
    }
    const bool shortRuns = block < int64_t(body_.lanes()) * reg::kUnroll;
    const int64_t runsPerStep = shortRuns && parameters % 2 == 0 ? 2 : 1;
    const int64_t stepElements = block * runsPerStep;
    a_.align(AlignMode::kCode, kLoopAlignment);
    a_.bind(run);
    a_.cmp(reg::remaining, stepElements);
    a_.jb(exit);
    for (int64_t k = 0; k < runsPerStep; ++k) {
      if (k)
        a_.inc(reg::paramIndex);
      body_.emitParameters(a_);
      emitWholeRunAt(static_cast<int32_t>(k), streaming);
    }
    advanceCursors(static_cast<int32_t>(stepElements));
    a_.sub(reg::remaining, stepElements);
    a_.inc(reg::paramIndex);
    a_.cmp(reg::paramIndex, parameters);
    a_.jb(run);
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    a_.jmp(run);
  }

  /// emitWholeRunLoop() for bodies that convert `runs` short runs in one
  /// unrolled step (X86VectorBody::runsPerUnrolledStep).
  void emitUnrolledRunLoop(int64_t parameters, unsigned runs, const Label &exit,
                           bool streaming) {
    const int64_t stepElements = levels_.back().block * runs;
    Label step = a_.newLabel();
    a_.align(AlignMode::kCode, kLoopAlignment);
    a_.bind(step);
    a_.cmp(reg::remaining, stepElements);
    a_.jb(exit);
    body_.setStreamingStores(streaming);
    body_.emitUnrolledRuns(a_, x86::ptr(reg::src), x86::ptr(reg::dst), runs,
                           nullptr);
    body_.setStreamingStores(false);
    advanceCursors(static_cast<int32_t>(stepElements));
    a_.sub(reg::remaining, stepElements);
    a_.add(reg::paramIndex, runs);
    a_.cmp(reg::paramIndex, parameters);
    a_.jb(step);
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    a_.jmp(step);
  }

  /// One run of `block` elements (whole vectors: unrolled steps, then
  /// single vectors), then the cursors past it.
  void emitWholeRun(bool streaming) {
    emitWholeRunAt(0, streaming);
    advanceCursors(static_cast<int32_t>(levels_.back().block));
  }

  /// One run of `block` elements that starts `first` runs past the
  /// cursors, which stay.
  void emitWholeRunAt(int32_t first, bool streaming) {
    const int32_t vectors =
        static_cast<int32_t>(levels_.back().block / body_.lanes());
    const int32_t start = first * vectors;
    auto src = [&](int32_t v) {
      return x86::ptr(reg::src, (start + v) * body_.srcVectorBytes());
    };
    auto dst = [&](int32_t v) {
      return x86::ptr(reg::dst, (start + v) * body_.dstVectorBytes());
    };
    body_.setStreamingStores(streaming);
    int32_t v = 0;
    for (; v + int32_t(reg::kUnroll) <= vectors; v += reg::kUnroll)
      body_.emitUnrolled(a_, src(v), dst(v));
    if (v < vectors)
      body_.emitRunRest(a_, src(v), dst(v), static_cast<unsigned>(vectors - v));
    body_.setStreamingStores(false);
  }

  /// emitWholeRunLoop() in groups of `group` runs whose parameters the
  /// body prepares at once (X86VectorBody::parameterGroups); what is left
  /// of the call (less than a group) goes on to `runs`. Each group's
  /// parameters are prepared one group ahead (while a next group remains
  /// in the call), so that their latency (a vector division) overlaps the
  /// current group's conversions instead of stalling its first run; the
  /// frame copies them into the area the runs read. Bodies may run groups
  /// whose zero points are all 0 without them (symmetric parameters).
  void emitWholeRunGroups(int64_t parameters, unsigned group, const Label &runs,
                          bool streaming) {
    const int64_t groupElements = levels_.back().block * group;
    const int32_t areaBytes = groupSource_->groupAreaBytes();
    const x86::Mem &ready = groups_.ready, &next = groups_.next,
                   &savedIndex = groups_.savedIndex;
    Label top = a_.newLabel(), prepared = a_.newLabel(),
          inPeriod = a_.newLabel(), nextInPeriod = a_.newLabel();
    a_.cmp(reg::remaining, groupElements);
    a_.jb(runs);
    a_.call(prepareGroup());
    a_.align(AlignMode::kCode, kLoopAlignment);
    a_.bind(top);
    // vec(0) is free between runs (its ymm view at AVX-512 too: VEX code
    // in an EVEX kernel costs no transition).
    const x86::Ymm copy = x86::ymm(reg::kWork);
    for (int32_t at = 0; at < areaBytes;
         at += static_cast<int32_t>(copy.size())) {
      a_.vmovups(copy, next.cloneAdjusted(at));
      a_.vmovups(ready.cloneAdjusted(at), copy);
    }
    a_.cmp(reg::remaining, 2 * groupElements);
    a_.jb(prepared);
    a_.mov(savedIndex, reg::paramIndex);
    a_.add(reg::paramIndex, group);
    a_.cmp(reg::paramIndex, parameters);
    a_.jb(nextInPeriod);
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    a_.bind(nextInPeriod);
    // Inline in the regular loop: the call cost its groups 2% at 4K
    // elements.
    if (streaming)
      a_.call(prepareGroup());
    else
      groupSource_->emitGroupLoad(a_, next, reg::runCount);
    a_.mov(reg::paramIndex, savedIndex);
    a_.bind(prepared);
    if (groupSource_->groupsSkipZeroPoints()) {
      Label withZeroPoints = a_.newLabel(), joined = a_.newLabel();
      groupSource_->emitJumpUnlessGroupZeroPointsZero(a_, ready,
                                                      withZeroPoints);
      emitGroupMembers(group, ready, streaming, /*zeroPointsZero=*/true);
      a_.jmp(joined);
      a_.bind(withZeroPoints);
      emitGroupMembers(group, ready, streaming, false);
      a_.bind(joined);
    } else {
      emitGroupMembers(group, ready, streaming, false);
    }
    a_.sub(reg::remaining, groupElements);
    a_.cmp(reg::paramIndex, parameters);
    a_.jb(inPeriod);
    a_.xor_(reg::paramIndex.r32(), reg::paramIndex.r32());
    a_.bind(inPeriod);
    a_.cmp(reg::remaining, groupElements);
    a_.jae(top);
    a_.jmp(runs);
  }

  /// The subroutine that prepares the parameters of the group at
  /// paramIndex into the next-group area (emitWholeRunGroups): the
  /// preparation (a vector load and division with a scalar fallback) is
  /// the bulk of a blockwise kernel, and its callers (ahead of the first
  /// group, and one group ahead with streamed stores) share one copy.
  const Label &prepareGroup() {
    if (!prepareGroup_.isValid())
      prepareGroup_ = a_.newLabel();
    return prepareGroup_;
  }
  void emitPrepareGroup() {
    a_.bind(prepareGroup_);
    groupSource_->emitGroupLoad(
        a_, groups_.next.cloneAdjusted(stack::kReturnAddressBytes),
        reg::runCount);
    a_.ret();
  }

  /// The runs of a prepared group (see emitWholeRunGroups), their
  /// parameters in `ready`; `zeroPointsZero`: the body skips zero points.
  /// The runs loop with runCount counting them: straight-line groups ran
  /// at most 5% faster and took twice (dcast) to three times (qcast) as
  /// long to compile. paramIndex still advances per run (bodies read it,
  /// e.g. to divide after all).
  void emitGroupMembers(unsigned group, const x86::Mem &ready, bool streaming,
                        bool zeroPointsZero) {
    groupSource_->setGroupZeroPointsZero(zeroPointsZero);
    Label member = a_.newLabel();
    x86::Mem entry = ready;
    entry.setIndex(reg::runCount, 2);
    // Loads ahead stay inside the group: its last run is emitted apart.
    const bool ahead =
        zeroPointsZero && body_.loadsAhead() &&
        levels_.back().block == int64_t(body_.lanes()) * reg::kUnroll;
    if (ahead) {
      body_.emitLoadAhead(a_, x86::ptr(reg::src));
      body_.setLoadsAhead(true, true);
    }
    a_.xor_(reg::runCount.r32(), reg::runCount.r32());
    if (const unsigned runs = body_.runsPerUnrolledStep(levels_.back().block);
        runs > 1 && group % runs == 0 && !ahead) {
      // Several runs to an unrolled step, their parameters at entry.
      const int32_t stepElements =
          static_cast<int32_t>(levels_.back().block * runs);
      a_.bind(member);
      body_.setStreamingStores(streaming);
      body_.emitUnrolledRuns(a_, x86::ptr(reg::src), x86::ptr(reg::dst), runs,
                             &entry);
      body_.setStreamingStores(false);
      advanceCursors(stepElements);
      a_.add(reg::paramIndex, runs);
      a_.add(reg::runCount, runs);
      a_.cmp(reg::runCount, group);
      a_.jb(member);
      groupSource_->setGroupZeroPointsZero(false);
      return;
    }
    a_.bind(member);
    groupSource_->emitGroupMember(a_, entry);
    emitWholeRun(streaming);
    a_.inc(reg::paramIndex);
    a_.inc(reg::runCount);
    a_.cmp(reg::runCount, ahead ? group - 1 : group);
    a_.jb(member);
    if (ahead) {
      body_.setLoadsAhead(true, false);
      groupSource_->emitGroupMember(a_, entry);
      emitWholeRun(streaming);
      a_.inc(reg::paramIndex);
      body_.setLoadsAhead(false, false);
    }
    groupSource_->setGroupZeroPointsZero(false);
  }

  /// Periods repeat until the elements run out; the innermost level leaves
  /// through exit_ when `remaining` reaches zero.
  void emitNest() {
    emitBlockLengths();
    Label period = a_.newLabel();
    a_.bind(period);
    a_.mov(stack::levelSlots(0).base, 0);
    emitLevel(0);
    a_.jmp(period);
  }

  void emitLevel(size_t d) {
    const NestLevel &level = levels_[d];
    LevelSlots s = stack::levelSlots(d);
    Label blockTop = a_.newLabel(), done = a_.newLabel();
    a_.mov(s.blockIndex, 0);
    a_.bind(blockTop);
    a_.mov(reg::scratch, s.blockIndex);
    a_.cmp(reg::scratch, level.grid);
    a_.jae(done);
    if (d + 1 == levels_.size()) {
      emitInnermostBlock(s);
    } else {
      Label rowTop = a_.newLabel(), nextBlock = a_.newLabel();
      a_.mov(s.row, 0);
      a_.bind(rowTop);
      a_.mov(reg::scratch, s.row);
      a_.cmp(reg::scratch, s.block);
      a_.jae(nextBlock);
      a_.mov(reg::scratch, s.blockIndex);
      a_.imul(reg::scratch, reg::scratch, level.paramStride);
      a_.add(reg::scratch, s.base);
      a_.mov(stack::levelSlots(d + 1).base, reg::scratch);
      emitLevel(d + 1);
      a_.inc(s.row);
      a_.jmp(rowTop);
      a_.bind(nextBlock);
    }
    a_.inc(s.blockIndex);
    a_.jmp(blockTop);
    a_.bind(done);
  }

  /// One run: `block` elements (or what is left) with one parameter.
  void emitInnermostBlock(const LevelSlots &s) {
    a_.test(reg::remaining, reg::remaining);
    a_.jz(exit_);
    a_.mov(reg::paramIndex, s.base);
    a_.add(reg::paramIndex, reg::scratch);
    body_.emitParameters(a_);
    a_.mov(reg::runCount, s.block);
    a_.cmp(reg::runCount, reg::remaining);
    a_.cmova(reg::runCount, reg::remaining);
    a_.sub(reg::remaining, reg::runCount);
    emitRun(false);
  }

  /// Advances the cursors by `elements` elements (whole vectors), first
  /// prefetching the input's lines that far past the step: as the options
  /// say (the plan's loopPrefetchBytes), or else in a large call's loops
  /// kStreamingPrefetch ahead.
  void advanceCursors(int32_t elements) {
    int32_t vectors = elements / int32_t(body_.lanes());
    constexpr int32_t kLineBytes = 64;
    int32_t ahead = options_.prefetchInputBytes;
    if (ahead == 0 && largeCall_)
      ahead = kStreamingPrefetch;
    if (ahead != 0)
      for (int32_t at = 0; at < vectors * body_.srcVectorBytes();
           at += kLineBytes)
        a_.prefetcht0(x86::ptr(reg::src, ahead + at));
    a_.add(reg::src, vectors * body_.srcVectorBytes());
    a_.add(reg::dst, vectors * body_.dstVectorBytes());
    if (body_.parameterBytes())
      a_.add(reg::paramIndex, elements * int32_t(body_.parameterBytes()));
  }
  void advanceCursors(const x86::Gp &elements) {
    a_.lea(reg::src,
           x86::ptr(reg::src, elements, std::countr_zero(body_.srcBytes())));
    a_.lea(reg::dst,
           x86::ptr(reg::dst, elements, std::countr_zero(body_.dstBytes())));
    if (body_.parameterBytes())
      a_.lea(reg::paramIndex,
             x86::ptr(reg::paramIndex, elements,
                      std::countr_zero(body_.parameterBytes())));
  }

  /// The vector loops over reg::runCount elements, advancing the cursors.
  /// `align`: the run is entered rarely, so padding its loop head is free.
  /// `streaming`: dst is vector-aligned; full vectors store non-temporally.
  void emitRun(bool align, bool streaming = false) {
    const unsigned lanes = body_.lanes();
    const int32_t unrolled = static_cast<int32_t>(lanes * reg::kUnroll);
    Label unrolledLoop = a_.newLabel(), single = a_.newLabel(),
          singleLoop = a_.newLabel(), tail = a_.newLabel(), end = a_.newLabel();

    if (midByte_) {
      emitPackedHead(end);
      for (const PackedSide &side : packedSides_)
        a_.shr(side.cursor, side.shift()); // Byte addresses.
    }
    a_.cmp(reg::runCount, unrolled);
    a_.jb(single);
    body_.setStreamingStores(streaming);
    if (align)
      a_.align(AlignMode::kCode, kLoopAlignment);
    a_.bind(unrolledLoop);
    body_.emitUnrolled(a_, x86::ptr(reg::src), x86::ptr(reg::dst));
    advanceCursors(unrolled);
    a_.sub(reg::runCount, unrolled);
    a_.cmp(reg::runCount, unrolled);
    a_.jae(unrolledLoop);

    a_.bind(single);
    a_.cmp(reg::runCount, int32_t(lanes));
    a_.jb(tail);
    a_.bind(singleLoop);
    body_.emitVector(a_, 0, x86::ptr(reg::src), x86::ptr(reg::dst), false);
    advanceCursors(int32_t(lanes));
    a_.sub(reg::runCount, int32_t(lanes));
    a_.cmp(reg::runCount, int32_t(lanes));
    a_.jae(singleLoop);

    body_.setStreamingStores(false);
    a_.bind(tail);
    if (midByte_)
      for (const PackedSide &side : packedSides_)
        a_.shl(side.cursor, side.shift());
    a_.test(reg::runCount, reg::runCount);
    a_.jz(end);
    if (!packedSides_.empty()) {
      emitPackedPartial();
    } else {
      if (isa_.avx512())
        emitMaskedTail();
      else
        emitBufferedTail();
      advanceCursors(reg::runCount);
    }
    a_.bind(end);
  }

  // Packed codes. A run's vector loops need its packed cursors on a byte;
  // a run that starts inside a byte (midByte_) first converts the elements
  // up to the next byte (the head), and every run ends with the elements
  // short of a vector (the tail), both through emitPackedPartial. Cursors
  // hold element addresses (byte address · codes per byte + index in the
  // byte) between runs in that mode: user-space addresses leave the 3 bits
  // this needs.

  /// The head of a run whose packed cursor is not on a byte: min(codes to
  /// the next byte, runCount) elements. Leaves through `end` when that was
  /// the whole run.
  void emitPackedHead(const Label &end) {
    const PackedSide &side = packedSides_.front();
    Label onByte = a_.newLabel();
    a_.mov(reg::scratch.r32(), side.cursor.r32());
    a_.and_(reg::scratch.r32(), side.perByte() - 1);
    a_.jz(onByte);
    a_.mov(reg::scratch2.r32(), side.perByte());
    a_.sub(reg::scratch2, reg::scratch);
    a_.cmp(reg::scratch2, reg::runCount);
    a_.cmova(reg::scratch2, reg::runCount);
    a_.sub(reg::runCount, reg::scratch2);
    a_.mov(stack::savedRunCount(), reg::runCount);
    a_.mov(reg::runCount, reg::scratch2);
    emitPackedPartial();
    a_.mov(reg::runCount, stack::savedRunCount());
    a_.test(reg::runCount, reg::runCount);
    a_.jz(end);
    a_.bind(onByte);
  }

  /// 0 < runCount <= lanes elements through the red-zone buffers: packed
  /// codes are gathered to / scattered from the buffers' first bytes at
  /// bit offset 0, other formats copied; then the cursors advance.
  void emitPackedPartial() {
    const int32_t dstOffset =
        body_.srcPackedBits() ? stack::kPackedTailResult : stack::kTailResult;
    const x86::Mem srcBuffer = stack::redZone(stack::kTailSource);
    const x86::Mem dstBuffer = stack::redZone(dstOffset);
    if (unsigned bits = body_.srcPackedBits())
      emitGatherCodes({reg::src, bits}, stack::kTailSource);
    else
      emitByteCopy(reg::src, x86::rsp, stack::kTailSource, body_.srcBytes());
    body_.emitVector(a_, 0, srcBuffer, dstBuffer, false);
    if (unsigned bits = body_.dstPackedBits())
      emitScatterCodes({reg::dst, bits}, dstOffset);
    else
      emitByteCopy(x86::rsp, reg::dst, dstOffset, body_.dstBytes(), true);
    for (const x86::Gp &cursor : {reg::src, reg::dst}) {
      bool isSrc = cursor == reg::src;
      unsigned bits = isSrc ? body_.srcPackedBits() : body_.dstPackedBits();
      unsigned bytes = isSrc ? body_.srcBytes() : body_.dstBytes();
      if (!bits) {
        a_.lea(cursor,
               x86::ptr(cursor, reg::runCount, std::countr_zero(bytes)));
      } else if (midByte_) {
        a_.add(cursor, reg::runCount);
      } else {
        // On a byte: runCount·bits/8 bytes (a partial byte only ends the
        // call's last run).
        a_.mov(reg::scratch, reg::runCount);
        a_.shl(reg::scratch, std::countr_zero(bits));
        a_.shr(reg::scratch, 3);
        a_.add(cursor, reg::scratch);
      }
    }
    if (body_.parameterBytes())
      a_.lea(reg::paramIndex,
             x86::ptr(reg::paramIndex, reg::runCount,
                      std::countr_zero(body_.parameterBytes())));
  }

  /// scratch2 = the address of the byte holding the cursor's element;
  /// scratch = the address (`last`) or index from scratch2 of the byte
  /// holding element cursor + runCount - 1.
  void emitByteRange(const PackedSide &side, bool last) {
    if (midByte_) {
      a_.mov(reg::scratch2, side.cursor);
      a_.shr(reg::scratch2, side.shift());
      a_.lea(reg::scratch, x86::ptr(side.cursor, reg::runCount, 0, -1));
      a_.shr(reg::scratch, side.shift());
      if (!last)
        a_.sub(reg::scratch, reg::scratch2);
      return;
    }
    a_.mov(reg::scratch2, side.cursor);
    a_.mov(reg::scratch, reg::runCount);
    a_.shl(reg::scratch, std::countr_zero(side.bits));
    a_.dec(reg::scratch);
    a_.shr(reg::scratch, 3);
    if (last)
      a_.add(reg::scratch, reg::scratch2);
  }

  /// shiftCount = the bit offset of the cursor's element in its byte (rcx, the
  /// params pointer, saved first).
  void emitBitOffsetToCl(const PackedSide &side) {
    a_.mov(reg::shiftCount, side.cursor.r32());
    a_.and_(reg::shiftCount, side.perByte() - 1);
    a_.shl(reg::shiftCount, std::countr_zero(side.bits));
  }

  /// The runCount codes at the cursor into the buffer at rsp + offset,
  /// the first one at bit 0. Reads only the bytes holding them (at most
  /// `bits` bytes: runCount <= 8 codes, from a byte start unless they end
  /// in the head's byte).
  void emitGatherCodes(const PackedSide &side, int32_t offset) {
    emitByteRange(side, /*last=*/false);
    Label loop = a_.newLabel();
    a_.xor_(reg::scratch3.r32(), reg::scratch3.r32());
    a_.bind(loop);
    a_.shl(reg::scratch3, 8);
    a_.mov(reg::scratch3.r8(),
           x86::byte_ptr(reg::scratch2, reg::scratch)); // Little-endian.
    a_.dec(reg::scratch);
    a_.jns(loop);
    if (midByte_) {
      a_.mov(stack::savedParams(), reg::params);
      emitBitOffsetToCl(side);
      a_.shr(reg::scratch3, reg::shiftCountByte);
      a_.mov(reg::params, stack::savedParams());
    }
    a_.mov(stack::redZone(offset).cloneResized(8), reg::scratch3);
  }

  /// The low runCount codes of the buffer at rsp + offset to the cursor:
  /// bits beyond them written as zero (the tail's padding), bits before
  /// them in the first byte (earlier elements) kept.
  void emitScatterCodes(const PackedSide &side, int32_t offset) {
    a_.mov(stack::savedParams(), reg::params);
    a_.mov(reg::scratch3, stack::redZone(offset).cloneResized(8));
    a_.mov(reg::shiftCount, reg::runCount.r32());
    a_.shl(reg::shiftCount, std::countr_zero(side.bits)); // At most 32 bits.
    a_.mov(reg::scratch.r32(), 1);
    a_.shl(reg::scratch, reg::shiftCountByte);
    a_.dec(reg::scratch);
    a_.and_(reg::scratch3, reg::scratch);
    if (midByte_) {
      emitBitOffsetToCl(side);
      a_.shl(reg::scratch3, reg::shiftCountByte);
      a_.mov(reg::scratch.r32(), 1);
      a_.shl(reg::scratch.r32(), reg::shiftCountByte);
      a_.dec(reg::scratch.r32());
      a_.mov(reg::scratch2, side.cursor);
      a_.shr(reg::scratch2, side.shift());
      a_.and_(reg::scratch.r8(), x86::byte_ptr(reg::scratch2));
      a_.or_(reg::scratch3, reg::scratch);
    }
    a_.mov(reg::params, stack::savedParams());
    emitByteRange(side, /*last=*/true);
    Label loop = a_.newLabel();
    a_.bind(loop);
    a_.mov(x86::byte_ptr(reg::scratch2), reg::scratch3.r8());
    a_.shr(reg::scratch3, 8);
    a_.inc(reg::scratch2);
    a_.cmp(reg::scratch2, reg::scratch);
    a_.jbe(loop);
  }

  /// 0 < runCount < lanes: k1 holds the low runCount lanes; masked loads
  /// and stores never touch the lanes beyond.
  void emitMaskedTail() {
    a_.mov(reg::scratch.r32(), -1);
    a_.bzhi(reg::scratch.r32(), reg::scratch.r32(), reg::runCount.r32());
    a_.kmovw(reg::tailMask, reg::scratch.r32());
    body_.emitVector(a_, 0, x86::ptr(reg::src), x86::ptr(reg::dst), true);
  }

  /// 0 < runCount < lanes without masks: copy the tail into the red zone
  /// (the kernel is a leaf), convert one whole vector there, copy back
  /// only the runCount results.
  void emitBufferedTail() {
    const x86::Mem srcBuffer = stack::redZone(stack::kTailSource);
    const x86::Mem dstBuffer = stack::redZone(stack::kTailResult);
    emitByteCopy(reg::src, x86::rsp, stack::kTailSource, body_.srcBytes());
    body_.emitVector(a_, 0, srcBuffer, dstBuffer, false);
    emitByteCopy(x86::rsp, reg::dst, stack::kTailResult, body_.dstBytes(),
                 true);
  }

  /// Copies runCount * elementBytes bytes between a cursor and the red
  /// zone buffer at rsp + offset (`toCursor`: from the buffer).
  void emitByteCopy(const x86::Gp &from, const x86::Gp &to, int32_t offset,
                    unsigned elementBytes, bool toCursor = false) {
    Label loop = a_.newLabel();
    a_.mov(reg::scratch2, reg::runCount);
    a_.shl(reg::scratch2, std::countr_zero(elementBytes));
    a_.xor_(reg::scratch.r32(), reg::scratch.r32());
    a_.bind(loop);
    a_.movzx(reg::scratch3.r32(),
             x86::byte_ptr(from, reg::scratch, 0, toCursor ? offset : 0));
    a_.mov(x86::byte_ptr(to, reg::scratch, 0, toCursor ? 0 : offset),
           reg::scratch3.r8());
    a_.inc(reg::scratch);
    a_.cmp(reg::scratch, reg::scratch2);
    a_.jb(loop);
  }

  x86::Assembler &a_;
  const X86Isa &isa_;
  X86VectorBody &body_;
  X86FrameOptions options_;
  std::vector<NestLevel> levels_;
  std::vector<PackedSide> packedSides_;
  bool midByte_ = false;            ///< Packed cursors are element addresses.
  X86ParameterGroups *groupSource_; ///< X86VectorBody::parameterGroups.
  stack::GroupSlots groups_;        ///< The groups' areas.
  Label exit_;
  bool largeCall_ = false; ///< Emitting a large call's loops: prefetching.
  Label prepareGroup_;     ///< emitPrepareGroup, once some group calls it.
  Label leftoverRuns_;     ///< emitSequentialRuns' run loop, once streamed to.
};

} // namespace

void emitX86Kernel(x86::Assembler &a, const X86Isa &isa, const KernelSpec &spec,
                   X86VectorBody &body, const X86FrameOptions &options) {
  FrameEmitter(a, isa, spec.layout, body, options).emit();
}

} // namespace qjit::asmjit_backend
