#!/usr/bin/python3
"""Checks `qjit run --dynamic=minmax --semantics=pytorch` against PyTorch.

    torch_dynamic_compat.py QJIT_BINARY

torch.quantize_per_tensor_dynamic (Debian python3-torch 1.13,
reduce_range=False) against qjit's dynamic qcast, for quint8 and qint8, on
random inputs of many magnitudes and on adversarial ones: all zeros, one
value, one-signed ranges, ranges below ATen's small-scale threshold (all
three of its branches), subnormal ranges (the 0.1 fallback), ±0, huge
values and zero points on exact ties. Codes must be identical, the scale
identical to fl32(q_scale()) (the value ATen computes with) and the zero
point identical to q_zero_point(); then qjit's runtime-parameter dcast of
the codes with the .npz it wrote must equal Tensor.dequantize() bit for
bit. Inputs are finite: PyTorch rejects NaN (docs/semantics.md 11.4).
QJIT_TEST_SEED sets the seed (printed). Exits 77 without numpy or torch.
"""
import os
import sys
import tempfile

from compat_setup import SEED, np, random_inputs, require, run_qjit

torch = require("torch", "python3-torch")

F32 = np.float32
ADVERSARIAL = {
    "zeros": np.zeros(16, F32),
    "negative zeros": np.array([-0.0, 0.0, -0.0], F32),
    "one value": np.array([3.25], F32),
    "one negative value": np.array([-7.0], F32),
    "positive only": np.array([0.5, 1.0, 2.0, 250.0], F32),
    "negative only": np.array([-0.5, -1.0, -2.0, -250.0], F32),
    "symmetric unit": np.array([-1.0, 1.0, 0.25, -0.75], F32),
    "tie zero points": np.array([-1.0, 1.0], F32),
    "small, both signs": np.array([-1e-4, 3e-4, 2e-5], F32),
    "small, positive": np.array([1e-4, 3e-4, 0.0], F32),
    "small, negative": np.array([-1e-4, -3e-4, 0.0], F32),
    "just below the threshold": np.array([0.0, 6.1e-5 * 255 * 0.999], F32),
    "just above the threshold": np.array([0.0, 6.1e-5 * 255 * 1.001], F32),
    "subnormal range": np.array([1e-40, -3e-41, 0.0], F32),
    "smallest subnormal": np.array([1.4e-45], F32),
    "huge": np.array([3e38, -3e38, 1.0], F32),
    "largest finite": np.array([np.finfo(F32).max, 0.0], F32),
}


def check(what, x, dtype, storage, workdir):
    src = os.path.join(workdir, "x.npy")
    codes = os.path.join(workdir, "q.npy")
    params = os.path.join(workdir, "p.npz")
    back = os.path.join(workdir, "y.npy")
    np.save(src, x)
    type_text = f"!quant.uniform<{storage}:f32, ?>"
    run_qjit([type_text, "--op=qcast", "--dynamic=minmax", "--semantics=pytorch",
         "--in=" + src, "--out=" + codes, "--params-out=" + params])
    theirs = torch.quantize_per_tensor_dynamic(torch.from_numpy(x), dtype,
                                               False)
    ours = np.load(codes).astype(np.int64)
    stored = theirs.int_repr().numpy().astype(np.int64)
    loaded = np.load(params)
    scale, zero = loaded["scales"], loaded["zero_points"]
    label = f"{what} ({storage})"
    problems = []
    bad = np.nonzero(ours != stored)[0]
    if len(bad):
        problems.append(f"{len(bad)} of {x.size} codes differ (input, qjit, "
                        f"torch): " + str([(float(x[i]), int(ours[i]),
                                            int(stored[i]))
                                           for i in bad[:5]]))
    if scale.shape != () or scale.view(np.uint32) != \
            F32(theirs.q_scale()).view(np.uint32):
        problems.append(f"scale {scale!r} != fl32({theirs.q_scale()!r})")
    if zero.shape != () or int(zero) != theirs.q_zero_point():
        problems.append(f"zero point {zero!r} != {theirs.q_zero_point()}")
    if not problems:
        run_qjit([type_text, "--op=dcast", "--semantics=pytorch",
             "--params=" + params, "--in=" + codes, "--out=" + back])
        mine = np.load(back).view(np.uint32)
        torch_values = theirs.dequantize().numpy().view(np.uint32)
        bad = np.nonzero(mine != torch_values)[0]
        if len(bad):
            problems.append(f"dequantize: {len(bad)} of {x.size} differ")
    if problems:
        print(f"FAIL {label}: " + "; ".join(problems))
        return False
    print(f"ok   {label}: {x.size} codes, scale {float(scale):.9g}, "
          f"zero point {int(zero)}")
    return True


def main():
    ok = True
    cases = list(ADVERSARIAL.items()) + list(random_inputs())
    with tempfile.TemporaryDirectory() as workdir:
        for what, x in cases:
            for dtype, storage in ((torch.quint8, "u8"), (torch.qint8, "i8")):
                ok &= check(what, x, dtype, storage, workdir)
    print("all identical" if ok else f"FAILED (QJIT_TEST_SEED={SEED})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
