"""qjit: JIT-compiled quantization kernels for MLIR quant types.

    import numpy as np, qjit
    k = qjit.compile("!quant.uniform<i8:f32, 0.05:3>", "qcast")
    q = k(np.linspace(-1, 1, 4096, dtype=np.float32))   # int8 array

See docs/python.md for dtypes, shapes, errors, caching and threads.
"""

from ._qjit import (  # noqa: F401
    __version__,
    BackendError,
    Error,
    InvalidArgumentError,
    InvalidTypeError,
    IOError,
    Kernel,
    UnsupportedError,
    cache_stats,
    compile,
    parse,
    set_log_level,
)

__all__ = [
    "BackendError",
    "Error",
    "InvalidArgumentError",
    "InvalidTypeError",
    "IOError",
    "Kernel",
    "UnsupportedError",
    "cache_stats",
    "compile",
    "parse",
    "set_log_level",
]
