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


def same_bits(a, b):
    """Equal shapes, dtypes and bytes (NaNs and -0.0 included)."""
    a, b = np.asarray(a), np.asarray(b)
    return (a.shape == b.shape and a.dtype == b.dtype
            and a.tobytes() == b.tobytes())


def reference(type_text, op, x, **options):
    """The scalar reference's result for the same kernel."""
    return qjit.compile(type_text, op, backend="reference", **options)(x)
