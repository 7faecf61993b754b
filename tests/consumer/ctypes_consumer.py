#!/usr/bin/python3
"""Calls libqjit.so through ctypes, as an FFI user without headers would."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.qjit_version.restype = ctypes.c_char_p
lib.qjit_last_error.restype = ctypes.c_char_p
runtime = ctypes.c_void_p()
kernel = ctypes.c_void_p()
if lib.qjit_runtime_create(None, ctypes.byref(runtime)) != 0 or \
        lib.qjit_kernel_compile(runtime, b"!quant.uniform<i8:f32, 2.0:10>", 1,
                                None, ctypes.byref(kernel)) != 0:
    sys.exit(lib.qjit_last_error().decode())
q = (ctypes.c_int8 * 3)(10, 11, 9)
y = (ctypes.c_float * 3)()
QJIT_DTYPE_F32, QJIT_DTYPE_I8 = 2, 4
status = lib.qjit_kernel_run(kernel, QJIT_DTYPE_I8, q, ctypes.sizeof(q),
                             QJIT_DTYPE_F32, y, ctypes.sizeof(y),
                             ctypes.c_size_t(3), None)
lib.qjit_kernel_release(kernel)
lib.qjit_runtime_destroy(runtime)
if status != 0:
    sys.exit(lib.qjit_last_error().decode())
print("qjit", lib.qjit_version().decode(), "(ctypes):", list(y))
sys.exit(0 if list(y) == [0.0, 2.0, -2.0] else 1)
