"""qjit.parse and the error classes."""
import pytest

import qjit


def test_canonical_print():
    assert (qjit.parse("!quant.uniform<i8:f32, 2.0:10>")
            == "!quant.uniform<i8:f32, 2.000000e+00:10>")


def test_normalize():
    text = ("tensor<4x8x!quant.uniform<i8:f32:{0:1}, "
            "{{1.0}, {2.0}, {3.0}, {4.0}}>>")
    assert ":f32:0, {" in qjit.parse(text, normalize=True)
    assert ":f32:{0:1}" in qjit.parse(text)


def test_invalid_type_carries_the_caret_diagnostic():
    with pytest.raises(qjit.InvalidTypeError) as error:
        qjit.parse("!quant.uniform<i8:f32, 2:10>")
    message = str(error.value)
    assert "<input>:1:24: scale '2' is not a float literal" in message
    lines = message.splitlines()
    assert lines[-2] == "!quant.uniform<i8:f32, 2:10>"
    assert lines[-1] == " " * 23 + "^"


def test_error_hierarchy():
    assert issubclass(qjit.InvalidTypeError, qjit.Error)
    assert issubclass(qjit.InvalidTypeError, ValueError)
    assert issubclass(qjit.InvalidArgumentError, ValueError)
    assert issubclass(qjit.UnsupportedError, qjit.Error)
    assert issubclass(qjit.BackendError, RuntimeError)
    with pytest.raises(qjit.Error):
        qjit.parse("not a type")


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        qjit.parse(42)
