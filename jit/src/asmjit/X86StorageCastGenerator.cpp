//===- X86StorageCastGenerator.cpp - scast: stored bits → stored bits -----===//
//
// No arithmetic: each container's low `bits` bits, re-extended to the
// whole container (which is what the reference writes). Packed codes are
// a byte copy (every field of a whole byte is an element, rewritten as
// read); the frame's tail writes the last byte's padding as zero. The
// layout does not matter, so every scast runs as one per-tensor run.
//
//===----------------------------------------------------------------------===//
#include "X86Conversions.h"
#include "X86Generators.h"
#include "X86KernelFrame.h"

namespace qjit::asmjit_backend {

namespace {

class X86StorageCastGenerator final : public X86VectorBody {
public:
  X86StorageCastGenerator(const KernelSpec &spec, const X86Isa &isa)
      : spec_(spec), isa_(isa) {}

  void generate(x86::Assembler &a) { emitX86Kernel(a, isa_, spec_, *this); }

  unsigned lanes() const override { return isa_.vectorBytes() / 4; }
  unsigned srcBytes() const override { return spec_.storage.containerBytes(); }
  unsigned dstBytes() const override { return spec_.storage.containerBytes(); }
  unsigned srcPackedBits() const override { return packedBits(); }
  unsigned dstPackedBits() const override { return packedBits(); }

  void emitConstants(x86::Assembler &) override {}
  void emitParameters(x86::Assembler &) override {}

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    if (packedBits()) {
      emitCopy(a, src, dst, packedBits()); // One vector: `bits` bytes.
      return;
    }
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadStored(a, isa_, spec_.storage, v, src, masked);
    emitStoreStored(a, isa_, spec_.storage, dst, v, t, masked,
                    Narrowing::Truncate);
  }

  void emitUnrolled(x86::Assembler &a, const x86::Mem &src,
                    const x86::Mem &dst) override {
    if (!packedBits()) {
      X86VectorBody::emitUnrolled(a, src, dst);
      return;
    }
    emitCopy(a, src, dst, reg::kUnroll * packedBits());
  }

private:
  unsigned packedBits() const {
    return spec_.storage.packed ? spec_.storage.bits : 0;
  }

  /// Copies 1, 2, 4, 8 or 16 bytes.
  void emitCopy(x86::Assembler &a, x86::Mem src, x86::Mem dst, unsigned bytes) {
    if (bytes == 16) {
      a.vmovdqu(x86::xmm(reg::kWork), src);
      a.vmovdqu(dst, x86::xmm(reg::kWork));
      return;
    }
    src.setSize(bytes);
    dst.setSize(bytes);
    x86::Gp r = reg::scratch;
    if (bytes == 4)
      r = reg::scratch.r32();
    else if (bytes == 2)
      r = reg::scratch.r16();
    else if (bytes == 1)
      r = reg::scratch.r8();
    a.mov(r, src);
    a.mov(dst, r);
  }

  const KernelSpec &spec_;
  X86Isa isa_;
};

} // namespace

void generateX86StorageCast(x86::Assembler &a, const X86Isa &isa,
                            const KernelSpec &spec) {
  KernelSpec flat = spec;
  flat.layout = LayoutSpec{};
  X86StorageCastGenerator(flat, isa).generate(a);
}

} // namespace qjit::asmjit_backend
