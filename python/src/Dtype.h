//===- Dtype.h - Element types of the arrays kernels read -------*- C++ -*-===//
//
// One enum for the element types numpy, the buffer protocol and DLPack
// describe, so that a kernel checks any array the same way.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_DTYPE_H
#define QJIT_PYTHON_DTYPE_H

#include "qjit/KernelCall.h"
#include "qjit/KernelSpec.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <string_view>

namespace qjit::python {

enum class Dtype : uint8_t {
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  F16,
  BF16,
  F32,
  F64,
  Other,
};

/// numpy's names ("int8", "float32"), and "bfloat16".
std::string_view dtypeName(Dtype dtype);
unsigned dtypeBytes(Dtype dtype); ///< 0 for Other.
bool isIntegerDtype(Dtype dtype);

Dtype dtypeFromNumpy(const pybind11::dtype &dtype);
/// A buffer-protocol format string ("f", "<H", ...).
Dtype dtypeFromFormat(std::string_view format);
Dtype dtypeFromDlpack(uint8_t code, uint8_t bits, uint16_t lanes);

/// The numpy dtype of an array of `dtype` (bf16: uint16 bit patterns);
/// cached, so creating arrays does not parse dtype strings.
const pybind11::dtype &numpyDtype(Dtype dtype);

/// What a kernel reads or writes on `side`: the expressed type's format
/// (bf16 as BF16, which numpy arrays hold as U16), uint8 bytes for packed
/// and float-code storage, else the storage's container.
Dtype sideDtype(const KernelSpec &spec, BufferSide side);
/// Whether an array of `given` may stand where `wanted` is read or written
/// (uint16 bits for bf16).
bool dtypeFits(Dtype given, Dtype wanted);

} // namespace qjit::python

#endif
