#!/usr/bin/python3
"""Checks `qjit run --semantics=pytorch` against PyTorch itself.

    torch_quantize_compat.py QJIT_BINARY

Quantizes exact ties ((k + 0.5) * scale), multiples of the scale, random
values, ±0 and subnormals with torch.quantize_per_tensor and
torch.quantize_per_channel (Debian python3-torch) and with qjit, and
requires identical stored values; then dequantizes those with
Tensor.dequantize() and qjit's dcast, and requires identical f32 bits. Inputs whose scaled value overflows
int32 are left out: PyTorch's vector path converts them with cvtps2dq and
wraps (e.g. +inf → qmin), where qjit's contract saturates
(docs/semantics.md). Exits 77 (ctest's skip code) without numpy or torch.
"""
import os
import subprocess
import sys
import tempfile

from compat_setup import QJIT, np, require, rng

torch = require("torch", "python3-torch")


def inputs(scale):
    s = np.float32(scale)
    k = np.arange(-400, 400, dtype=np.float32)
    x = np.concatenate([(k + np.float32(0.5)) * s, k * s,
                        rng.normal(0, 60, 3000).astype(np.float32) * s,
                        np.array([0.0, -0.0, 1e-40, -1e-40], np.float32)])
    return x.astype(np.float32)


def run_qjit(type_text, x, workdir, op="qcast"):
    src, dst = os.path.join(workdir, "x.npy"), os.path.join(workdir, "q.npy")
    np.save(src, x)
    result = subprocess.run([QJIT, "run", type_text, "--op=" + op,
                             "--semantics=pytorch", "--in=" + src,
                             "--out=" + dst], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"qjit run failed for {type_text}:\n{result.stderr}")
    out = np.load(dst)
    return out.astype(np.int64) if op == "qcast" else out


def check_dequantize(what, type_text, quantized, workdir):
    """qjit's dcast of the stored values against Tensor.dequantize(), bit
    for bit (f32 bits compared, so -0.0 and 0.0 differ)."""
    stored = quantized.int_repr().numpy()
    ours = run_qjit(type_text, stored, workdir, op="dcast").view(np.uint32)
    theirs = quantized.dequantize().numpy().view(np.uint32)
    return compare("dequantize " + what, stored, ours, theirs)


def compare(what, x, ours, theirs):
    bad = np.nonzero(ours != theirs)[0]
    if len(bad):
        examples = [(float(x.flat[i]), int(ours.flat[i]), int(theirs.flat[i]))
                    for i in bad[:5]]
        print(f"FAIL {what}: {len(bad)} of {x.size} differ "
              f"(input, qjit, torch): {examples}")
        return False
    print(f"ok   {what}: {x.size} values identical")
    return True


def main():
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        for scale in (0.05, 0.1, 0.3, 1.7, 2.0, 1e-3):
            for storage, dtype, zp in (("i8", torch.qint8, 0),
                                       ("i8", torch.qint8, -7),
                                       ("u8", torch.quint8, 128)):
                x = inputs(scale)
                quantized = torch.quantize_per_tensor(
                    torch.from_numpy(x), scale, zp, dtype)
                type_text = f"!quant.uniform<{storage}:f32, {scale!r}:{zp}>"
                what = f"per-tensor {storage} scale={scale} zp={zp}"
                ours = run_qjit(type_text, x, workdir)
                ok &= compare(what, x, ours,
                              quantized.int_repr().numpy().astype(np.int64))
                ok &= check_dequantize(what, type_text, quantized, workdir)
        # Per-channel along the last axis of a 64x4 tensor and the first of
        # a 4x64 one; PyTorch dequantizes these in double (semantics 5.5).
        scales, zps = [0.05, 0.3, 1.7, 0.1], [0, -7, 5, 100]
        columns = np.stack([inputs(0.3)[:64] * f for f in (1, 2, 3, 0.5)],
                           axis=1)
        for axis, storage, dtype, offset in ((1, "i8", torch.qint8, 0),
                                             (0, "u8", torch.quint8, 128)):
            x = np.ascontiguousarray(columns if axis == 1 else columns.T,
                                     dtype=np.float32)
            channel_zps = [z + offset for z in zps]
            quantized = torch.quantize_per_channel(
                torch.from_numpy(x), torch.tensor(scales, dtype=torch.float64),
                torch.tensor(channel_zps), axis, dtype)
            params = ", ".join(f"{s!r}:{z}" for s, z in zip(scales,
                                                              channel_zps))
            shape = "x".join(str(d) for d in x.shape)
            type_text = (f"tensor<{shape}x!quant.uniform<{storage}:f32:{axis},"
                         f" {{{params}}}>>")
            what = f"per-channel {storage} axis {axis}"
            ours = run_qjit(type_text, x, workdir)
            ok &= compare(what, x, ours,
                          quantized.int_repr().numpy().astype(np.int64))
            ok &= check_dequantize(what, type_text, quantized, workdir)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
