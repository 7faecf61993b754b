//===- X86KernelFrame.h - Prologue, parameter loops and tails ---*- C++ -*-===//
//
// Every x86 kernel has the same skeleton: a prologue, loops that walk the
// layout's parameter runs (one per-tensor run, or nested loops over the
// blocks of a period, never a division per element), an unrolled vector
// loop inside each run, an exact tail (k-masked on AVX-512, through a stack
// buffer on AVX2 so nothing past either buffer is touched) and an epilogue.
// A kernel family plugs its per-vector work in as an X86VectorBody.
// Short runs of whole vectors (per-axis runs of 16, blocks of 32..128)
// are straight-line bodies. They may take their parameters from a group
// the body prepares for several runs at once, one group ahead (runtime
// parameters: one vector division instead of one per block, off the
// critical path), and skip the zero points of symmetric groups.
// Outputs of 8 MiB and more that start on a vector boundary use
// non-temporal stores whenever every run keeps that alignment
// (per-tensor: after a short head).
//
// Packed sub-byte storage (X86PackedCodes): a vector of 8 codes is whole
// bytes, so runs that start on a byte keep the vector loops unchanged
// (blocks of 32 4-bit codes: one 16-byte group per run, parameters
// broadcast per block; per-element tables cover lcm(period, 8) elements).
// Only the tail and, where the layout's runs are not whole bytes (a block
// or dynamic extent that is no multiple of 8/bits), a run's head up to the
// next byte go through a bit-exact
// red-zone path: it reads only the bytes holding the elements, keeps the
// bits of earlier elements in a shared byte and writes the padding of the
// last byte as zero. This covers every layout and parameter source
// (per-element tables cannot: runtime parameters and dynamic extents have
// none) at the cost of a short head per misaligned run.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_JIT_ASMJIT_X86KERNELFRAME_H
#define QJIT_JIT_ASMJIT_X86KERNELFRAME_H

#include "X86FrameOptions.h"
#include "X86Isa.h"
#include "X86ParameterGroups.h"

#include "qjit/KernelSpec.h"

namespace qjit::asmjit_backend {

/// One kernel family's work on one vector of elements.
class X86VectorBody {
public:
  virtual ~X86VectorBody() = default;
  /// Elements per vector (the compute type's lanes).
  virtual unsigned lanes() const = 0;
  /// Bytes one element occupies in the source and destination buffers.
  virtual unsigned srcBytes() const = 0;
  virtual unsigned dstBytes() const = 0;
  /// Non-zero: that buffer holds packed codes of 1, 2 or 4 bits
  /// (X86PackedCodes; AVX2 only) instead of srcBytes() / dstBytes() per
  /// element. A vector then covers lanes()·bits/8 bytes.
  virtual unsigned srcPackedBits() const { return 0; }
  virtual unsigned dstPackedBits() const { return 0; }
  /// Bytes of one vector of elements in the source and destination.
  int32_t srcVectorBytes() const;
  int32_t dstVectorBytes() const;
  /// Kernel-wide constants, emitted once after the prologue.
  virtual void emitConstants(x86::Assembler &a) = 0;
  /// The parameters of parameter number reg::paramIndex, at each run start;
  /// with per-element tables, points reg::paramIndex at them instead, once
  /// per period.
  virtual void emitParameters(x86::Assembler &a) = 0;
  /// Non-zero: parameters are per-element tables covering one layout
  /// period (packed codes: lcm(period, 8) elements), read through
  /// reg::paramIndex as a cursor that advances this many bytes per element
  /// (short runs would otherwise dominate).
  virtual unsigned parameterBytes() const { return 0; }
  /// The elements such tables cover for a layout `period` (by default
  /// periodicTableElements, X86PeriodicRuns.h).
  virtual int64_t tableElements(int64_t period, bool packed) const;
  /// Converts lanes() elements at src into dst using register slot `slot`
  /// (< reg::kUnroll). `masked`: only the lanes in reg::tailMask exist.
  virtual void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                          const x86::Mem &dst, bool masked) = 0;
  /// Converts the reg::kUnroll full vectors at src and dst of a main-loop
  /// iteration; by default one emitVector per slot.
  virtual void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                            const x86::Mem &dst);
  /// Converts the `count` (< reg::kUnroll) full vectors at src and dst
  /// that end a whole run; by default one emitVector per vector, slot 0.
  virtual void emitRunRest(x86::Assembler &a, const x86::Mem &src,
                           const x86::Mem &dst, unsigned count);
  /// Non-zero: whole runs of `runElements` (whole vectors, fewer than an
  /// unrolled step) go this many at a time through emitUnrolledRuns, one
  /// unrolled step across them, instead of one emitVector per vector.
  virtual unsigned runsPerUnrolledStep(int64_t runElements) const {
    (void)runElements;
    return 0;
  }
  /// Converts the reg::kUnroll vectors at src and dst that span `runs`
  /// runs; slot j takes parameter reg::paramIndex + j / (kUnroll / runs),
  /// or with `group` (a prepared group, see parameterGroups) that run's
  /// entry in the area, `group` advanced by 4 bytes per run.
  virtual void emitUnrolledRuns(x86::Assembler &, const x86::Mem &src,
                                const x86::Mem &dst, unsigned runs,
                                const x86::Mem *group) {
    (void)src, (void)dst, (void)runs, (void)group;
  }
  /// Non-null: whole-run loops may prepare the parameters of several
  /// consecutive runs at once from this source and then load each run's,
  /// instead of calling emitParameters per run.
  virtual X86ParameterGroups *parameterGroups() { return nullptr; }
  /// Whether runs of one unrolled step in groups whose zero points are all
  /// 0 may load (part of) the next run's input ahead: the frame then calls
  /// emitLoadAhead for the group's first run and brackets the runs with
  /// setLoadsAhead; the next load enters the core's queues before this
  /// run's arithmetic instead of behind it (measured on znver1).
  virtual bool loadsAhead() const { return false; }
  /// Loads (part of) the unrolled step at `src` into registers that the
  /// next emitUnrolled reads instead of its input.
  virtual void emitLoadAhead(x86::Assembler &, const x86::Mem &src) {
    (void)src;
  }
  /// `loaded`: emitUnrolled's input was loaded ahead; `next`: it loads
  /// the step after its own ahead (a whole run of the buffer follows).
  virtual void setLoadsAhead(bool loaded, bool next) {
    (void)loaded, (void)next;
  }
  /// Bytes at rsp the body keeps per-element tables in, filled in
  /// emitConstants (only with parameterBytes(): no nest levels there).
  virtual int32_t parameterStackBytes() const { return 0; }
  /// Data (tables) placed after the code; labels bound here.
  virtual void emitData(x86::Assembler &) {}

  /// True when the body's full-vector stores may be non-temporal (used for
  /// outputs far larger than the caches, on vector-aligned addresses).
  virtual bool canStreamStores() const { return false; }
  /// Set by the frame around loops whose stores are aligned and streamed.
  void setStreamingStores(bool streaming) { streamingStores_ = streaming; }

protected:
  bool streamingStores_ = false;
};

/// Emits the whole kernel for `spec` around `body`.
void emitX86Kernel(x86::Assembler &a, const X86Isa &isa, const KernelSpec &spec,
                   X86VectorBody &body, const X86FrameOptions &options = {});

} // namespace qjit::asmjit_backend

#endif // QJIT_JIT_ASMJIT_X86KERNELFRAME_H
