"""Runtime scales in their own formats (docs/semantics.md 2.3): MXFP4 as
gpt-oss ships it, packed f4E2M1FN codes with one E8M0 byte scale per block
of 32, against the OCP MX v1.0 formula computed here with numpy; f16 and
bf16 scales; the errors."""
import numpy as np
import pytest

import qjit
from conftest import same_bits

MXFP4 = "tensor<4x128x!quant.uniform<f4E2M1FN:f32:{0:1, 1:32}, ?>>"
FP4 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)


def mx_values(codes, scales):
    """value = F4(code) * 2^(b - 127), b = 255 NaN, rounded once to f32."""
    magnitude = FP4[codes & 7]
    values = np.where(codes & 8, -magnitude, magnitude)
    block = np.where(scales == 255, np.nan,
                     np.ldexp(1.0, scales.astype(np.int64) - 127))
    with np.errstate(over="ignore", invalid="ignore"):
        return (values * np.repeat(block, 32, axis=1)).astype(np.float32)


def test_mxfp4_dcast_with_e8m0_scales(rng):
    codes = rng.integers(0, 16, (4, 128), dtype=np.uint8)
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    scales = rng.integers(0, 256, (4, 4), dtype=np.uint8)
    scales.flat[:7] = [0, 1, 126, 127, 128, 254, 255]
    k = qjit.compile(MXFP4, "dcast", scale_format="e8m0")
    assert k.scale_format == "e8m0" and "params=runtime(scales=e8m0)" in k.spec
    assert same_bits(k(packed, scales=scales), mx_values(codes, scales))


def test_f16_and_bf16_scales_are_their_values(rng):
    q = rng.integers(-128, 128, (3, 4), dtype=np.int8)
    f32 = np.array([2.0, 0.5, 1.5, 2.0**-20], np.float32)
    plain = qjit.compile("tensor<3x4x!quant.uniform<i8:f32:1, ?>>", "dcast")
    expected = plain(q, scales=f32)
    f16 = qjit.compile("tensor<3x4x!quant.uniform<i8:f32:1, ?>>", "dcast",
                       scale_format="f16")
    assert same_bits(f16(q, scales=f32.astype(np.float16)), expected)
    bf16 = qjit.compile("tensor<3x4x!quant.uniform<i8:f32:1, ?>>", "dcast",
                        scale_format="bf16")
    bits = (f32.view(np.uint32) >> 16).astype(np.uint16)
    assert same_bits(bf16(q, scales=bits), expected)
    # f32 scales of f32 values are the same kernel.
    own = qjit.compile("tensor<3x4x!quant.uniform<i8:f32:1, ?>>", "dcast",
                       scale_format="f32")
    assert own.spec == plain.spec and own.scale_format == "expressed"


def test_scale_format_errors():
    k = qjit.compile(MXFP4, "dcast", scale_format="e8m0")
    packed = np.zeros((4, 64), np.uint8)
    with pytest.raises(qjit.InvalidArgumentError, match="e8m0"):
        k(packed, scales=np.ones((4, 4), np.float32))
    with pytest.raises(qjit.InvalidArgumentError, match="runtime"):
        qjit.compile("!quant.uniform<i8:f32, 1.0>", "dcast",
                     scale_format="e8m0")
    with pytest.raises(qjit.InvalidArgumentError, match="scale format"):
        qjit.compile(MXFP4, "dcast", scale_format="fp8")
