#!/usr/bin/python3
"""Checks `qjit run --semantics=pytorch` against PyTorch itself.

    torch_quantize_compat.py QJIT_BINARY

Quantizes exact ties ((k + 0.5) * scale), multiples of the scale, random
values, ±0 and subnormals with torch.quantize_per_tensor and
torch.quantize_per_channel (Debian python3-torch) and with qjit, and
requires identical stored values. Inputs whose scaled value overflows
int32 are left out: PyTorch's vector path converts them with cvtps2dq and
wraps (e.g. +inf → qmin), where qjit's contract saturates
(docs/semantics.md). Exits 77 (ctest's skip code) without numpy or torch.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as missing:
    print(f"skipped: {missing.name} is not installed (Debian python3-torch)")
    sys.exit(77)

QJIT = sys.argv[1]
SEED_TEXT = os.environ.get("QJIT_TEST_SEED")
SEED = int(SEED_TEXT, 0) if SEED_TEXT else int.from_bytes(os.urandom(4),
                                                          "little")
print(f"QJIT_TEST_SEED={SEED}")
rng = np.random.default_rng(SEED)


def inputs(scale):
    s = np.float32(scale)
    k = np.arange(-400, 400, dtype=np.float32)
    x = np.concatenate([(k + np.float32(0.5)) * s, k * s,
                        rng.normal(0, 60, 3000).astype(np.float32) * s,
                        np.array([0.0, -0.0, 1e-40, -1e-40], np.float32)])
    return x.astype(np.float32)


def run_qjit(type_text, x, workdir):
    src, dst = os.path.join(workdir, "x.npy"), os.path.join(workdir, "q.npy")
    np.save(src, x)
    result = subprocess.run([QJIT, "run", type_text, "--op=qcast",
                             "--semantics=pytorch", "--in=" + src,
                             "--out=" + dst], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"qjit run failed for {type_text}:\n{result.stderr}")
    return np.load(dst).astype(np.int64)


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
                theirs = torch.quantize_per_tensor(
                    torch.from_numpy(x), scale, zp, dtype).int_repr()
                ours = run_qjit(f"!quant.uniform<{storage}:f32, {scale!r}:{zp}>",
                                x, workdir)
                ok &= compare(f"per-tensor {storage} scale={scale} zp={zp}",
                              x, ours, theirs.numpy().astype(np.int64))
        # Per-channel along the last axis of a 64x4 tensor.
        scales, zps = [0.05, 0.3, 1.7, 0.1], [0, -7, 5, 100]
        x = np.stack([inputs(0.3)[:64] * f for f in (1, 2, 3, 0.5)], axis=1)
        x = np.ascontiguousarray(x, dtype=np.float32)
        theirs = torch.quantize_per_channel(
            torch.from_numpy(x), torch.tensor(scales, dtype=torch.float64),
            torch.tensor(zps), 1, torch.qint8).int_repr()
        params = ", ".join(f"{s!r}:{z}" for s, z in zip(scales, zps))
        ours = run_qjit(f"tensor<64x4x!quant.uniform<i8:f32:1, {{{params}}}>>",
                        x, workdir)
        ok &= compare("per-channel i8 axis 1", x, ours,
                      theirs.numpy().astype(np.int64))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
