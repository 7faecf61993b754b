"""Shared fixtures: a seeded generator (QJIT_TEST_SEED replays a run) and
the reference backend's result to compare JIT kernels against."""
import os

import numpy as np
import pytest

import qjit

SEED_TEXT = os.environ.get("QJIT_TEST_SEED")
SEED = int(SEED_TEXT, 0) if SEED_TEXT else int.from_bytes(os.urandom(4),
                                                          "little")


def pytest_report_header(config):
    return f"QJIT_TEST_SEED={SEED}"


@pytest.fixture
def rng(request):
    # Printed with a failing test's captured output, to replay it.
    print(f"QJIT_TEST_SEED={SEED}")
    return np.random.default_rng(SEED)


def nan_mask(a, bf16):
    if bf16:  # bf16 bit patterns: exponent all ones, mantissa not zero.
        return ((a & 0x7F80) == 0x7F80) & ((a & 0x7F) != 0)
    return np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def same_bits(a, b, bf16=False):
    """Equal shapes, dtypes and bits (-0.0 is not 0.0), except that all NaNs
    are equal: their sign and payload are unspecified (semantics.md 5.3)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    nan = nan_mask(a, bf16)
    if not np.array_equal(nan, nan_mask(b, bf16)):
        return False
    return a[~nan].tobytes() == b[~nan].tobytes()


def reference(type_text, op, x, **options):
    """The scalar reference's result for the same kernel."""
    return qjit.compile(type_text, op, backend="reference", **options)(x)
