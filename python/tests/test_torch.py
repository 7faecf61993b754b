"""PyTorch tensors through DLPack, and the pytorch preset against
torch.quantize_per_tensor / quantize_per_channel, bit for bit."""
import numpy as np
import pytest

import qjit
from conftest import same_bits

torch = pytest.importorskip("torch")

I8 = "!quant.uniform<i8:f32, 0.05:3>"


def inputs(rng, scale, n=3000):
    """Exact ties, multiples of the scale, random values, ±0, subnormals;
    none overflowing int32 once scaled (PyTorch wraps those)."""
    s = np.float32(scale)
    k = np.arange(-300, 300, dtype=np.float32)
    return np.concatenate([(k + np.float32(0.5)) * s, k * s,
                           rng.normal(0, 60, n).astype(np.float32) * s,
                           np.array([0.0, -0.0, 1e-40, -1e-40], np.float32)])


def test_tensor_in_tensor_out(rng):
    x = torch.from_numpy(rng.normal(0, 5, (4, 8)).astype(np.float32))
    k = qjit.compile(I8, "qcast")
    q = k(x)
    assert isinstance(q, torch.Tensor) and q.dtype == torch.int8
    assert q.shape == x.shape
    assert same_bits(q.numpy(), k(x.numpy()))
    out = torch.empty((4, 8), dtype=torch.int8)
    assert k(x, out=out) is out
    assert same_bits(out.numpy(), q.numpy())
    # A numpy result for a torch input's out= and the other way round.
    assert same_bits(k(x, out=np.empty((4, 8), np.int8)), q.numpy())
    back = qjit.compile(I8, "dcast")(q)
    assert isinstance(back, torch.Tensor) and back.dtype == torch.float32


def test_non_contiguous_tensor(rng):
    x = torch.from_numpy(rng.normal(0, 5, (6, 8)).astype(np.float32))
    k = qjit.compile(I8, "qcast")
    for view in (x.t(), x[:, ::2], x[1:4]):
        assert same_bits(k(view).numpy(), k(view.contiguous()).numpy())
    with pytest.raises(qjit.InvalidArgumentError, match="C-contiguous"):
        k(x, out=torch.empty((8, 6), dtype=torch.int8).t())


def test_bfloat16_tensors(rng):
    type_text = "!quant.uniform<i8:bf16, 0.0625:-2>"
    x = torch.from_numpy(rng.normal(0, 3, 64).astype(np.float32)).bfloat16()
    q = qjit.compile(type_text, "qcast")(x)
    bits = x.view(torch.int16).numpy().view(np.uint16)
    assert same_bits(q.numpy(), qjit.compile(type_text, "qcast",
                                             backend="reference")(bits))
    back = qjit.compile(type_text, "dcast")(q)
    assert back.dtype == torch.bfloat16
    expected = qjit.compile(type_text, "dcast", backend="reference")(
        q.numpy())
    assert same_bits(back.view(torch.int16).numpy().view(np.uint16), expected,
                     bf16=True)


def test_unsigned_16_bit_results_are_numpy(rng):
    # torch 1.13 has no uint16: those results come back as numpy arrays.
    x = torch.from_numpy(rng.normal(0, 5, 8).astype(np.float32))
    q = qjit.compile("!quant.uniform<u16:f32, 0.01:30000>", "qcast")(x)
    assert isinstance(q, np.ndarray) and q.dtype == np.uint16


def test_wrong_tensor_dtype():
    with pytest.raises(qjit.InvalidArgumentError, match="int32"):
        qjit.compile(I8, "qcast")(torch.zeros(4, dtype=torch.int32))


@pytest.mark.parametrize("scale", [0.05, 0.1, 0.3, 1.7, 2.0, 1e-3])
@pytest.mark.parametrize("storage,dtype,zp", [("i8", "qint8", 0),
                                              ("i8", "qint8", -7),
                                              ("u8", "quint8", 128),
                                              ("i32", "qint32", 5)])
def test_quantize_per_tensor(rng, scale, storage, dtype, zp):
    x = torch.from_numpy(inputs(rng, scale))
    theirs = torch.quantize_per_tensor(x, scale, zp, getattr(torch, dtype))
    type_text = f"!quant.uniform<{storage}:f32, {scale!r}:{zp}>"
    ours = qjit.compile(type_text, "qcast", semantics="pytorch")(x)
    assert same_bits(ours.numpy(), theirs.int_repr().numpy())
    back = qjit.compile(type_text, "dcast", semantics="pytorch")(ours)
    assert same_bits(back.numpy(), theirs.dequantize().numpy())


@pytest.mark.parametrize("axis,storage,dtype,offset", [(1, "i8", "qint8", 0),
                                                       (0, "u8", "quint8",
                                                        128)])
def test_quantize_per_channel(rng, axis, storage, dtype, offset):
    scales, zps = [0.05, 0.3, 1.7, 0.1], [0, -7, 5, 100]
    zps = [z + offset for z in zps]
    columns = np.stack([inputs(rng, 0.3)[:64] * f for f in (1, 2, 3, 0.5)],
                       axis=1)
    x = torch.from_numpy(np.ascontiguousarray(
        columns if axis == 1 else columns.T, dtype=np.float32))
    theirs = torch.quantize_per_channel(
        x, torch.tensor(scales, dtype=torch.float64), torch.tensor(zps),
        axis, getattr(torch, dtype))
    params = ", ".join(f"{s!r}:{z}" for s, z in zip(scales, zps))
    shape = "x".join(str(d) for d in x.shape)
    type_text = f"tensor<{shape}x!quant.uniform<{storage}:f32:{axis}, {{{params}}}>>"
    ours = qjit.compile(type_text, "qcast", semantics="pytorch")(x)
    assert same_bits(ours.numpy(), theirs.int_repr().numpy())
    back = qjit.compile(type_text, "dcast", semantics="pytorch")(ours)
    assert same_bits(back.numpy(), theirs.dequantize().numpy())
