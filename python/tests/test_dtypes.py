"""Every dtype a kernel reads or writes, against the scalar reference."""
import numpy as np
import pytest

import qjit
from conftest import reference, same_bits


def values(rng, n, scale=1.0):
    """Random values plus the edge cases every kernel must get right."""
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e4, -6e4],
                       np.float64)
    x = np.concatenate([rng.normal(0, 40 * scale, n), special])
    return x


def bf16_bits(x):
    """bf16 patterns (truncated f32) as numpy holds them: uint16."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


EXPRESSED = {
    "f32": lambda x: x.astype(np.float32),
    "f16": lambda x: x.astype(np.float16),
    "f64": lambda x: x.astype(np.float64),
    "bf16": bf16_bits,
}

# (storage text, numpy container of unpacked storage)
STORAGE = [
    ("i8", np.int8), ("u8", np.uint8), ("i16", np.int16), ("u16", np.uint16),
    ("i32", np.int32), ("u32", np.uint32), ("i4", np.int8), ("u2", np.uint8),
    ("f8E4M3FN", np.uint8), ("f8E5M2", np.uint8),
]


@pytest.mark.parametrize("expressed", sorted(EXPRESSED))
@pytest.mark.parametrize("storage,container", STORAGE)
def test_qcast_dcast_match_reference(rng, expressed, storage, container):
    zero = "" if storage.startswith("f") else ":3"
    type_text = f"!quant.uniform<{storage}:{expressed}, 0.25{zero}>"
    unpacked = storage in ("i4", "u2")
    x = EXPRESSED[expressed](values(rng, 1000, 0.25))
    q = qjit.compile(type_text, "qcast", unpacked=unpacked)
    stored = q(x)
    assert stored.dtype == container and stored.shape == x.shape
    assert q.input_dtype == (np.uint16 if expressed == "bf16" else x.dtype)
    assert same_bits(stored, reference(type_text, "qcast", x,
                                       unpacked=unpacked))
    d = qjit.compile(type_text, "dcast", unpacked=unpacked)
    back = d(stored)
    assert back.dtype == x.dtype and back.shape == x.shape
    assert same_bits(back, reference(type_text, "dcast", stored,
                                     unpacked=unpacked),
                     bf16=expressed == "bf16")


@pytest.mark.parametrize("bits", [1, 2, 4])
@pytest.mark.parametrize("shape", [(64,), (4, 64), (3, 7), (9,), (2, 3, 16)])
def test_packed_storage_shapes(rng, bits, shape):
    type_text = f"!quant.uniform<u{bits}:f32, 0.5:1>"
    x = rng.normal(0, 2, shape).astype(np.float32)
    stored = qjit.compile(type_text, "qcast")(x)
    n = x.size
    assert stored.dtype == np.uint8
    if len(shape) >= 2 and shape[-1] * bits % 8 == 0:
        # The last axis holds bytes: (..., n) values are (..., n*bits/8).
        assert stored.shape == shape[:-1] + (shape[-1] * bits // 8,)
    else:
        # Rows share bytes: the 1-D byte stream, last byte padded.
        assert stored.shape == ((n * bits + 7) // 8,)
    assert same_bits(stored, reference(type_text, "qcast", x))
    unpacked = qjit.compile(type_text, "qcast", unpacked=True)(x)
    back = qjit.compile(type_text, "dcast")(stored)
    expected = qjit.compile(type_text, "dcast", unpacked=True)(unpacked)
    if stored.ndim >= 2:
        assert same_bits(back, expected)
    else:
        # 1-D bytes without a shape in the type: every slot is an element.
        assert back.shape == (stored.size * 8 // bits,)
        assert same_bits(back[:n], expected.reshape(-1))


def test_packed_1d_bytes_take_their_count_from_the_type(rng):
    type_text = "tensor<9x!quant.uniform<u4:f32, 0.5:1>>"
    x = rng.normal(0, 2, 9).astype(np.float32)
    stored = qjit.compile(type_text, "qcast")(x)
    assert stored.shape == (5,)
    back = qjit.compile(type_text, "dcast")(stored)
    assert back.shape == (9,)
    assert same_bits(back, reference(type_text, "dcast", stored))


@pytest.mark.parametrize("type_text,dtype", [
    ("!quant.uniform<i8<-7:7>:f32, 0.5>", np.int8),
    ("!quant.uniform<u16<0:1000>:f32, 0.5>", np.uint16),
    ("!quant.uniform<i4:f32, 0.5>", np.uint8)])
def test_scast_matches_reference(rng, type_text, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (4, 16), dtype, endpoint=True)
    s = qjit.compile(type_text, "scast")
    assert s.input_dtype == dtype and s.output_dtype == dtype
    assert same_bits(s(x), reference(type_text, "scast", x))


def test_quantile_storage(rng):
    table = ", ".join(repr(v) for v in np.linspace(-1, 1, 16))
    type_text = f"!quant.uniform<!quant.quantile<u4:f32, {{{table}}}>:f32, 1.0>"
    x = rng.uniform(-1.2, 1.2, (8, 32)).astype(np.float32)
    stored = qjit.compile(type_text, "qcast")(x)
    assert stored.shape == (8, 16)
    assert same_bits(stored, reference(type_text, "qcast", x))
    back = qjit.compile(type_text, "dcast")(stored)
    assert same_bits(back, reference(type_text, "dcast", stored))
