//===- X86StorageCastGenerator.cpp - scast: stored bits → stored bits -----===//
//
// No arithmetic: each container's low `bits` bits, re-extended to the
// whole container (which is what the reference writes).
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

  void emitConstants(x86::Assembler &) override {}
  void emitParameters(x86::Assembler &) override {}

  void emitVector(x86::Assembler &a, unsigned slot, const x86::Mem &src,
                  const x86::Mem &dst, bool masked) override {
    x86::Vec v = isa_.vec(reg::kWork + slot), t = isa_.vec(reg::kTemp + slot);
    emitLoadStored(a, isa_, spec_.storage, v, src, masked);
    emitStoreStored(a, isa_, spec_.storage, dst, v, t, masked,
                    Narrowing::Truncate);
  }

private:
  const KernelSpec &spec_;
  X86Isa isa_;
};

} // namespace

void generateX86StorageCast(x86::Assembler &a, const X86Isa &isa,
                            const KernelSpec &spec) {
  X86StorageCastGenerator(spec, isa).generate(a);
}

} // namespace qjit::asmjit_backend
