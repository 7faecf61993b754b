"""What every compatibility script starts with: numpy, or ctest's skip code
77 without it; require() for the system under comparison (skip code 77
when it is missing); the qjit binary from argv; a seeded generator whose
seed is printed and taken from QJIT_TEST_SEED."""
import importlib
import os
import sys


def require(module, package):
    """The module, or a skip (exit code 77) naming the Debian package."""
    try:
        return importlib.import_module(module)
    except ImportError:
        print(f"skipped: {module} is not installed (Debian {package})")
        sys.exit(77)


np = require("numpy", "python3-numpy")
QJIT = sys.argv[1]
SEED_TEXT = os.environ.get("QJIT_TEST_SEED")
SEED = int(SEED_TEXT, 0) if SEED_TEXT else int.from_bytes(os.urandom(4),
                                                          "little")
print(f"QJIT_TEST_SEED={SEED}")
rng = np.random.default_rng(SEED)
