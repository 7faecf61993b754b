#!/usr/bin/python3
"""Checks `qjit run --dynamic=minmax --semantics=onnx` against ONNX.

    onnx_dynamic_compat.py QJIT_BINARY

ONNX's DynamicQuantizeLinear (uint8, per tensor), two ways:
- the operator's own conformance cases, as Debian's python3-onnx (1.12)
  generates them (onnx/backend/test/case/node/dynamicquantizelinear.py,
  run with its `expect` captured): codes, y_scale and y_zero_point must be
  identical;
- random and adversarial finite inputs against onnxruntime's parameter rule
  (onnxruntime/core/util/qmath.h, GetQuantizationParameter: scale 1 when
  max == min, else fl32((max - min) / 255); zero point
  RoundHalfToEven(clamp(fl32(0 - fl32(min / scale)), 0, 255))) and the
  operator's formula y = saturate(round(x / y_scale) + y_zero_point), all in
  f32, written here in numpy.
Then qjit's runtime-parameter dcast of the codes with the .npz it wrote must
equal (q - zero point) · scale in f32. Inputs whose range underflows to a
zero scale or overflows f32 are left out: onnxruntime then computes a zero
or infinite scale, where qjit takes 1 or the largest f32
(docs/semantics.md 11.5). QJIT_TEST_SEED sets the seed (printed). Exits 77
without numpy or onnx.
"""
import os
import sys
import tempfile

from compat_setup import SEED, np, random_inputs, require, run_qjit

require("onnx", "python3-onnx")
from onnx.backend.test.case.node import dynamicquantizelinear  # noqa: E402

F32 = np.float32
ADVERSARIAL = {
    "zeros": np.zeros(16, F32),
    "negative zeros": np.array([-0.0, 0.0, -0.0], F32),
    "one value": np.array([3.25], F32),
    "one negative value": np.array([-7.0], F32),
    "positive only": np.array([0.5, 1.0, 2.0, 250.0], F32),
    "negative only": np.array([-0.5, -1.0, -2.0, -250.0], F32),
    "symmetric unit": np.array([-1.0, 1.0, 0.25, -0.75], F32),
    "tie zero point": np.array([-1.0, 1.0], F32),
    "codes on ties": np.array([-127.5, 127.5, 0.5, 1.5, -0.5], F32),
    "tiny range": np.array([1e-30, -3e-31, 0.0], F32),
    "huge": np.array([1e38, -1e38, 1.0], F32),
}


def conformance_cases():
    """DynamicQuantizeLinear's node cases with the outputs ONNX expects."""
    cases = []

    def capture(node, inputs, outputs, name, **_):
        cases.append((name, inputs[0], outputs))

    dynamicquantizelinear.expect = capture
    dynamicquantizelinear.DynamicQuantizeLinear.export()
    return cases


def onnxruntime_rule(x):
    """y, y_scale, y_zero_point as onnxruntime computes them (see above)."""
    lo = min(F32(0), x.min())
    hi = max(F32(0), x.max())
    scale = F32(1) if hi == lo else F32(F32(hi - lo) / F32(255))
    initial = F32(F32(0) - F32(lo / scale))
    zero = np.rint(np.clip(initial, F32(0), F32(255)))
    y = np.clip(np.rint((x / scale).astype(F32)) + zero, 0, 255)
    return y.astype(np.uint8), scale, np.uint8(zero)


def check(what, x, expected, workdir):
    src = os.path.join(workdir, "x.npy")
    codes = os.path.join(workdir, "q.npy")
    params = os.path.join(workdir, "p.npz")
    back = os.path.join(workdir, "y.npy")
    np.save(src, x)
    shape = "x".join(str(d) for d in x.shape)
    type_text = f"tensor<{shape}x!quant.uniform<u8:f32, ?>>"
    run_qjit([type_text, "--op=qcast", "--dynamic=minmax", "--semantics=onnx",
         "--in=" + src, "--out=" + codes, "--params-out=" + params])
    y, y_scale, y_zero = expected
    ours = np.load(codes)
    loaded = np.load(params)
    scale, zero = loaded["scales"], loaded["zero_points"]
    problems = []
    bad = np.nonzero(ours.ravel() != y.ravel())[0]
    if len(bad):
        flat, mine, theirs = x.ravel(), ours.ravel(), y.ravel()
        problems.append(f"{len(bad)} of {x.size} codes differ (input, qjit, "
                        f"onnx): " + str([(float(flat[i]), int(mine[i]),
                                           int(theirs[i]))
                                          for i in bad[:5]]))
    if scale.shape != () or scale.view(np.uint32) != \
            F32(y_scale).view(np.uint32):
        problems.append(f"scale {scale!r} != {y_scale!r}")
    if zero.shape != () or int(zero) != int(y_zero):
        problems.append(f"zero point {zero!r} != {y_zero!r}")
    if not problems:
        run_qjit([type_text, "--op=dcast", "--semantics=onnx",
             "--params=" + params, "--in=" + codes, "--out=" + back])
        mine = np.load(back).view(np.uint32)
        values = ((ours.astype(F32) - F32(int(zero))) * F32(scale)) \
            .astype(F32).view(np.uint32)
        if np.any(mine != values):
            problems.append("dequantize differs from (q - z) * s")
    if problems:
        print(f"FAIL {what}: " + "; ".join(problems))
        return False
    print(f"ok   {what}: {x.size} codes, scale {float(scale):.9g}, "
          f"zero point {int(zero)}")
    return True


def main():
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        for name, x, outputs in conformance_cases():
            ok &= check("onnx " + name, x, outputs, workdir)
        for what, x in list(ADVERSARIAL.items()) + list(random_inputs()):
            ok &= check(what, x, onnxruntime_rule(x), workdir)
    print("all identical" if ok else f"FAILED (QJIT_TEST_SEED={SEED})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
