"""What every compatibility script starts with: numpy, or ctest's skip code
77 without it; require() for the system under comparison (skip code 77
when it is missing); the qjit binary from argv; a seeded generator whose
seed is printed and taken from QJIT_TEST_SEED; the dynamic scripts' inputs
and `qjit run`."""
import importlib
import os
import subprocess
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


def random_inputs():
    """Named f32 inputs: normal ones of many magnitudes, shifted off zero,
    and uniform ones over random ranges."""
    f32 = np.float32
    for size in (1, 7, 1000, 4096):
        for magnitude in (1e-6, 1e-3, 0.3, 1.0, 17.0, 1e4, 1e20):
            x = rng.normal(0, magnitude, size).astype(f32)
            yield f"normal({magnitude:g}) x{size}", x
            yield f"shifted normal({magnitude:g}) x{size}", \
                (x + f32(2 * magnitude)).astype(f32)
    for _ in range(20):
        lo, hi = np.sort(rng.uniform(-100, 100, 2))
        yield f"uniform({lo:.3f}, {hi:.3f})", \
            rng.uniform(lo, hi, 257).astype(f32)


def run_qjit(args):
    """`qjit run ARGS`; exits with its message when it fails."""
    result = subprocess.run([QJIT, "run"] + args, capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit(f"qjit run {' '.join(args)} failed:\n{result.stderr}")
