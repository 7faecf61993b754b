"""Calls: shapes, out=, non-contiguous input, runtime parameters, layouts,
errors, the kernel's attributes and the cache."""
import threading

import numpy as np
import pytest

import qjit
from conftest import reference, same_bits

I8 = "!quant.uniform<i8:f32, 0.05:3>"
PER_AXIS = "tensor<3x4x!quant.uniform<i8:f32:1, {2.0:10, 1.0, 0.5, 4.0:-3}>>"


@pytest.fixture(scope="module")
def q8():
    return qjit.compile(I8, "qcast")


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (4096,), (3, 5),
                                   (2, 3, 4), (2, 0, 3)])
def test_shapes(rng, q8, shape):
    x = rng.normal(0, 5, shape).astype(np.float32)
    q = q8(x)
    assert q.shape == x.shape and q.dtype == np.int8
    assert same_bits(q, reference(I8, "qcast", x))


def test_out_is_written_and_returned(rng, q8):
    x = rng.normal(0, 5, (16, 16)).astype(np.float32)
    out = np.empty((16, 16), np.int8)
    assert q8(x, out=out) is out
    assert same_bits(out, q8(x))
    assert q8(x, out) is out


def test_out_errors(q8):
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(qjit.InvalidArgumentError, match="shape"):
        q8(x, out=np.empty(16, np.int8))
    with pytest.raises(qjit.InvalidArgumentError, match="uint8"):
        q8(x, out=np.empty((4, 4), np.uint8))
    with pytest.raises(qjit.InvalidArgumentError, match="C-contiguous"):
        q8(x, out=np.empty((4, 8), np.int8)[:, ::2])
    read_only = np.empty((4, 4), np.int8)
    read_only.flags.writeable = False
    with pytest.raises(qjit.InvalidArgumentError, match="read-only"):
        q8(x, out=read_only)
    scast = qjit.compile(I8, "scast")
    stored = np.zeros(8, np.int8)
    with pytest.raises(qjit.InvalidArgumentError, match="overlaps"):
        scast(stored, out=stored)


def test_non_contiguous_input_is_copied(rng, q8):
    x = rng.normal(0, 5, (8, 10)).astype(np.float32)
    for view in (x[:, ::2], x.T, x[::-1], x[2:5, 1:9:3]):
        assert not view.flags.c_contiguous
        assert same_bits(q8(view), q8(np.ascontiguousarray(view)))


def test_wrong_dtype_is_an_error(q8):
    with pytest.raises(qjit.InvalidArgumentError,
                       match="float64; qcast of this kernel reads float32"):
        q8(np.zeros(4))
    # Big-endian floats are not the bytes a kernel reads.
    with pytest.raises(qjit.InvalidArgumentError, match="unsupported dtype"):
        q8(np.zeros(4, ">f4"))


def test_non_array_input_is_an_error(q8):
    with pytest.raises(qjit.InvalidArgumentError, match="not an array"):
        q8([1.0, 2.0])
    with pytest.raises(TypeError):
        q8()


def test_call_arguments(q8):
    x, out = np.zeros(4, np.float32), np.empty(4, np.int8)
    assert q8(x=x, out=out) is out
    assert q8.__call__(x, out=out) is out
    with pytest.raises(TypeError, match="unexpected keyword"):
        q8(x, bogus=1)
    with pytest.raises(TypeError, match="multiple values"):
        q8(x, x=x)
    with pytest.raises(TypeError, match="positional"):
        q8(x, out, None)
    with pytest.raises(TypeError, match="missing"):
        q8(out=out)


def test_buffer_protocol_input(q8):
    import array
    buffer = array.array("f", [0.0, 0.05, 0.1, -1.0])
    assert q8(buffer).tolist() == [3, 4, 5, -17]
    assert q8(memoryview(buffer)).tolist() == [3, 4, 5, -17]
    out = bytearray(4)
    q8(buffer, out=memoryview(out).cast("b"))
    assert list(np.frombuffer(out, np.int8)) == [3, 4, 5, -17]


def test_per_axis_shape_must_match_the_type(rng):
    k = qjit.compile(PER_AXIS, "qcast")
    x = rng.normal(0, 5, (3, 4)).astype(np.float32)
    assert same_bits(k(x), reference(PER_AXIS, "qcast", x))
    with pytest.raises(qjit.InvalidArgumentError, match=r"\(3, 4\)"):
        k(x.reshape(4, 3))


def test_dynamic_dims_take_the_call_shape(rng):
    # Axis 1 of ?x4: a static layout; axis 0 of 3x?: the inner extent is
    # read at call time from the array's shape.
    for dynamic, element, shapes in (
            ("?x4", "i8:f32:1, {2.0:1, 1.0, 0.5, 4.0}", [(1, 4), (5, 4)]),
            ("3x?", "i8:f32:0, {2.0:1, 1.0, 0.5}", [(3, 1), (3, 7)])):
        k = qjit.compile(f"tensor<{dynamic}x!quant.uniform<{element}>>",
                         "qcast")
        for shape in shapes:
            x = rng.normal(0, 5, shape).astype(np.float32)
            static = "x".join(map(str, shape))
            assert same_bits(k(x), reference(
                f"tensor<{static}x!quant.uniform<{element}>>", "qcast", x))
        with pytest.raises(qjit.InvalidArgumentError, match="shape"):
            k(np.zeros((2, 2, 2), np.float32))


def test_bare_per_axis_type_with_a_shape(rng):
    k = qjit.compile("!quant.uniform<i8:f32:0, {1.0, 0.5}>", "qcast",
                     shape=[2, 3])
    x = rng.normal(0, 5, (2, 3)).astype(np.float32)
    assert same_bits(k(x), reference("tensor<2x3x!quant.uniform<i8:f32:0, "
                                     "{1.0, 0.5}>>", "qcast", x))


def test_runtime_parameters(rng):
    scales = np.array([2.0, 1.0, 0.5, 4.0], np.float32)
    zero_points = np.array([10, 0, 0, -3], np.int32)
    k = qjit.compile("tensor<3x4x!quant.uniform<i8:f32:1, ?>>", "qcast")
    assert k.runtime_params and k.parameter_count == 4
    assert k.parameter_shape == (4,)
    x = rng.normal(0, 5, (3, 4)).astype(np.float32)
    expected = reference(PER_AXIS, "qcast", x)
    assert same_bits(k(x, scales=scales, zero_points=zero_points), expected)
    assert same_bits(k(x, scales=scales, zero_points=zero_points.astype(
        np.int64)), expected)
    # runtime_params=True on a type with written scales: they are ignored.
    r = qjit.compile(PER_AXIS, "qcast", runtime_params=True)
    assert same_bits(r(x, scales=scales, zero_points=zero_points), expected)
    with pytest.raises(qjit.InvalidArgumentError, match="scales="):
        k(x)
    with pytest.raises(qjit.InvalidArgumentError, match="3 elements"):
        k(x, scales=scales[:3])
    with pytest.raises(qjit.InvalidArgumentError, match="float32"):
        k(x, scales=scales.astype(np.float64))
    with pytest.raises(qjit.InvalidArgumentError, match="integers"):
        k(x, scales=scales, zero_points=zero_points.astype(np.float32))
    with pytest.raises(qjit.InvalidArgumentError, match="positive"):
        k(x, scales=-scales)
    with pytest.raises(qjit.InvalidArgumentError, match="baked"):
        qjit.compile(PER_AXIS, "qcast")(x, scales=scales)


def test_compile_errors():
    with pytest.raises(qjit.InvalidTypeError, match=r"\^"):
        qjit.compile("!quant.uniform<i8:f32, 2:10>", "qcast")
    with pytest.raises(qjit.UnsupportedError):
        qjit.compile("!quant.any<i8:f32>", "qcast")
    with pytest.raises(qjit.InvalidArgumentError, match="op"):
        qjit.compile(I8, "quantize")
    with pytest.raises(qjit.InvalidArgumentError, match="semantics"):
        qjit.compile(I8, "qcast", semantics="numpy")
    with pytest.raises(qjit.Error):
        qjit.compile(I8, "qcast", backend="gpu")
    with pytest.raises(qjit.Error):
        qjit.compile(I8, "qcast", isa="avx1024")


def test_attributes():
    k = qjit.compile(I8, "qcast", backend="llvm", isa="sse4")
    assert k.backend == "llvm" and k.isa in ("scalar", "sse4")
    assert k.op == "qcast" and k.spec.startswith("qcast storage=i8")
    assert k.name and k.name in repr(k)
    assert k.input_dtype == np.float32 and k.output_dtype == np.int8
    assert len(k.assembly()) > 0
    ref = qjit.compile(I8, "qcast", backend="reference")
    assert ref.backend == "reference" and ref.isa == "scalar"
    with pytest.raises(qjit.UnsupportedError):
        ref.assembly()


def test_compiles_are_cached():
    qjit.compile(I8, "dcast")
    before = qjit.cache_stats()
    a = qjit.compile(I8, "dcast")
    b = qjit.compile(I8, "dcast")
    after = qjit.cache_stats()
    assert after["hits"] - before["hits"] == 2
    assert after["compiles"] == before["compiles"]
    assert a.spec == b.spec and a.name == b.name


def test_threads_share_a_kernel(rng, q8):
    x = rng.normal(0, 5, 1 << 16).astype(np.float32)
    expected = q8(x)
    results = [None] * 4

    def work(i):
        results[i] = q8(x)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(same_bits(r, expected) for r in results)


def test_set_log_level():
    qjit.set_log_level("warning")
    qjit.set_log_level("off")
    with pytest.raises(qjit.InvalidArgumentError):
        qjit.set_log_level("loud")


@pytest.mark.parametrize("threads", [0, 2, 3])
def test_threads_write_what_one_thread_writes(rng, threads):
    # Large enough to be split (qjit::kMinParallelElements is 2^17), with a
    # tail; per tensor and per axis, qcast and dcast.
    for text, shape in ((I8, (300_007,)),
                        ("tensor<?x4x!quant.uniform<i8:f32:1, "
                         "{2.0:10, 1.0, 0.5, 4.0:-3}>>", (70_001, 4))):
        qcast = qjit.compile(text, "qcast")
        dcast = qjit.compile(text, "dcast")
        x = rng.normal(0, 5, shape).astype(np.float32)
        q = qcast(x)
        assert same_bits(qcast(x, threads=threads), q)
        assert same_bits(dcast(q, threads=threads), dcast(q))
