#!/usr/bin/env bash
# Sets everything up, builds qjit, and shows it at work: parsing MLIR quant
# types, errors with carets, KernelSpecs, JIT'd kernels run on .npy files,
# the same from Python (numpy and torch), compact formats (fp8, NF4), the
# machine code they are made of, AArch64 kernels run under qemu, and how
# fast they are.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QJIT_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"

qjit="$build/tools/qjit"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '\033[2m$ qjit %s\033[0m\n' "$*"; "$qjit" "$@"; }
npy() { /usr/bin/python3 -c "import numpy as np, sys; np.set_printoptions(linewidth=100); print(np.load(sys.argv[1]))" "$1"; }

step "1. Parse MLIR quant types; print them exactly as mlir-opt 22 does"
show parse '!quant.uniform<i8:f32, 2.0:10>' \
  '!quant.uniform<u16<0:1023>:f32, 1.23:512>' \
  'tensor<2x3x!quant.uniform<i8:f32:1, {0.5:0, 0.25, 0.1:-3}>>' \
  'tensor<2x4x!quant.uniform<u8:f32:{0:1, 1:2}, {{2.0:120, 3.0:127}, {4.0, 5.0}}>>' \
  '!quant.uniform<f8E4M3FN:f32, 0.5>' \
  '!quant.quantile<u4:f16, {-1.0, -0.6962, -0.5251, -0.3949, -0.2844, -0.1848, -0.0911, 0.0, 0.0796, 0.1609, 0.2461, 0.3379, 0.4407, 0.5626, 0.7230, 1.0}>'

step "2. Bad input gets an error that points at the problem"
show parse '!quant.uniform<i8:f32, 2:10>' || true
show parse 'tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25}>>' || true
show parse '!quant.uniform<i8<-200:10>:f32, 1.0>' || true

step "3. Normalize: a blockwise type that is really per-axis"
show parse --normalize 'tensor<4x8x!quant.uniform<i8:f32:{0:1}, {{1.0}, {2.0}, {3.0}, {4.0}}>>'

step "4. The KernelSpec: one plain value saying what a kernel computes"
show spec 'tensor<3x4x!quant.uniform<i8:f32:1, {2.0:10, 1.0, 0.5, 4.0:-3}>>' --op=qcast

step "5. JIT a per-axis kernel and run it on .npy files"
type='tensor<3x4x!quant.uniform<i8:f32:1, {2.0:10, 1.0, 0.5, 4.0:-3}>>'
/usr/bin/python3 -c "import numpy as np; np.save('$work/x.npy', np.array([[0, 1, 2.5, -3], [100, -100, 0.25, 1e9], [float('nan'), float('inf'), -0.0, 7.5]], dtype=np.float32))"
echo "input:"; npy "$work/x.npy"
SPDLOG_LEVEL=debug "$qjit" run "$type" --op=qcast --in="$work/x.npy" --out="$work/q.npy" 2>&1 |
  grep -o 'compiled .*' || true
echo "qcast (divide, zero point before rounding, nearest-even; saturating):"; npy "$work/q.npy"
"$qjit" run "$type" --op=dcast --in="$work/q.npy" --out="$work/y.npy"
echo "dcast back:"; npy "$work/y.npy"
"$qjit" run "$type" --op=qcast --semantics=pytorch --in="$work/x.npy" --out="$work/qp.npy"
echo "qcast with --semantics=pytorch (reciprocal, zero point after rounding):"; npy "$work/qp.npy"

step "6. From Python: the same per-axis kernel on a numpy array and a torch tensor"
PYTHONPATH="$build/python" /usr/bin/python3 - "$type" <<'PY'
import sys
import numpy as np, torch, qjit
quantize = qjit.compile(sys.argv[1], "qcast")   # compiled once per process
x = np.array([[0, 1, 2.5, -3], [100, -100, 0.25, 1e9], [np.nan, np.inf, -0.0, 7.5]], np.float32)
print(quantize)
print(quantize(x))
t = torch.linspace(-1, 1, 6)
q = qjit.compile("!quant.uniform<i8:f32, 0.05:3>", "qcast", semantics="pytorch")(t)
print("torch tensor in, torch tensor out:", q)
print("same as torch.quantize_per_tensor:",
      torch.equal(q, torch.quantize_per_tensor(t, 0.05, 3, torch.qint8).int_repr()))
PY

step "7. The machine code: x86-64 from asmjit, AArch64 NEON from LLVM"
show asm '!quant.uniform<i8:f32, 2.0:10>' --op=qcast --backend=asmjit | head -45
echo "..."
show asm '!quant.uniform<i8:f32, 2.0:10>' --op=qcast --backend=llvm \
  -mtriple=aarch64-linux-gnu | grep -E '\s(fdiv|fcvt|sqxtn|ld1|st1|ldr\s+q|str\s+q|fadd)' | head -12

step "8. Compact formats: fp8 (saturating at 448) and an NF4 lookup table"
/usr/bin/python3 -c "import numpy as np; np.save('$work/w.npy', np.array([0.1, -0.37, 1.0, 200.0, 232.0, 233.0, 1e6, float('nan')], dtype=np.float32))"
echo "input:"; npy "$work/w.npy"
fp8='!quant.uniform<f8E4M3FN:f32, 0.5>'
"$qjit" run "$fp8" --op=qcast --in="$work/w.npy" --out="$work/f8.npy"
"$qjit" run "$fp8" --op=dcast --in="$work/f8.npy" --out="$work/f8y.npy"
echo "f8E4M3FN, scale 0.5: codes, then dcast back:"; npy "$work/f8.npy"; npy "$work/f8y.npy"
nf4='!quant.uniform<!quant.quantile<u4:f32, {-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0}>:f32, 1.0>'
"$qjit" run "$nf4" --op=qcast --unpacked --in="$work/w.npy" --out="$work/n4.npy"
"$qjit" run "$nf4" --op=dcast --unpacked --in="$work/n4.npy" --out="$work/n4y.npy"
echo "NF4 (nearest table entry): indices, then dcast back:"; npy "$work/n4.npy"; npy "$work/n4y.npy"

step "9. AArch64 kernels from both backends, executed under qemu and compared with the reference"
if [ -x "$build/tests/aarch64/qjit_aarch64_tests" ]; then
  "$build/tests/aarch64/qjit_aarch64_tests" --gtest_brief=1 \
    --gtest_filter='*PerTensorBaked*' 2>&1 | grep -E 'kernels|PASSED|FAILED'
fi

step "10. How fast: every backend against the scalar reference"
show bench '!quant.uniform<i8:f32, 0.05:3>' --op=qcast --n=1048576
show bench '!quant.uniform<i8:f32, 0.05:3>' --op=dcast --n=1048576
