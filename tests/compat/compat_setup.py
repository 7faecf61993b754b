"""What every PyTorch compatibility script starts with: numpy and torch, or
ctest's skip code 77 without them; the qjit binary from argv; a seeded
generator whose seed is printed and taken from QJIT_TEST_SEED."""
import os
import sys

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
