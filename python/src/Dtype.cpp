//===- Dtype.cpp - Element types of the arrays kernels read ---------------===//
#include "Dtype.h"

#include <array>

namespace py = pybind11;

namespace qjit::python {

std::string_view dtypeName(Dtype dtype) {
  static constexpr std::array<std::string_view, 13> names = {
      "int8",
      "uint8",
      "int16",
      "uint16",
      "int32",
      "uint32",
      "int64",
      "uint64",
      "float16",
      "bfloat16",
      "float32",
      "float64",
      "an unsupported dtype"};
  return names[size_t(dtype)];
}

unsigned dtypeBytes(Dtype dtype) {
  static constexpr std::array<unsigned, 13> bytes = {1, 1, 2, 2, 4, 4, 8,
                                                     8, 2, 2, 4, 8, 0};
  return bytes[size_t(dtype)];
}

bool isIntegerDtype(Dtype dtype) { return dtype <= Dtype::U64; }

namespace {

Dtype integerDtype(bool isSigned, unsigned bytes) {
  switch (bytes) {
  case 1:
    return isSigned ? Dtype::I8 : Dtype::U8;
  case 2:
    return isSigned ? Dtype::I16 : Dtype::U16;
  case 4:
    return isSigned ? Dtype::I32 : Dtype::U32;
  case 8:
    return isSigned ? Dtype::I64 : Dtype::U64;
  default:
    return Dtype::Other;
  }
}

Dtype floatDtype(unsigned bytes) {
  switch (bytes) {
  case 2:
    return Dtype::F16;
  case 4:
    return Dtype::F32;
  case 8:
    return Dtype::F64;
  default:
    return Dtype::Other;
  }
}

} // namespace

Dtype dtypeFromNumpy(const py::dtype &dtype) {
  // '>' is big-endian, not the host's order: its bytes are not what a
  // kernel reads.
  if (dtype.byteorder() == '>')
    return Dtype::Other;
  unsigned bytes = static_cast<unsigned>(dtype.itemsize());
  switch (dtype.kind()) {
  case 'i':
    return integerDtype(true, bytes);
  case 'u':
    return integerDtype(false, bytes);
  case 'f':
    return floatDtype(bytes);
  default:
    return Dtype::Other;
  }
}

Dtype dtypeFromFormat(std::string_view format) {
  if (!format.empty() && (format[0] == '<' || format[0] == '=' ||
                          format[0] == '@' || format[0] == '|'))
    format.remove_prefix(1);
  if (format.size() != 1)
    return Dtype::Other;
  switch (format[0]) {
  case 'b':
    return Dtype::I8;
  case 'B':
    return Dtype::U8;
  case 'h':
    return Dtype::I16;
  case 'H':
    return Dtype::U16;
  case 'i':
    return Dtype::I32;
  case 'I':
    return Dtype::U32;
  case 'l':
  case 'q':
    return Dtype::I64;
  case 'L':
  case 'Q':
    return Dtype::U64;
  case 'e':
    return Dtype::F16;
  case 'f':
    return Dtype::F32;
  case 'd':
    return Dtype::F64;
  default:
    return Dtype::Other;
  }
}

Dtype dtypeFromDlpack(uint8_t code, uint8_t bits, uint16_t lanes) {
  if (lanes != 1 || bits % 8 != 0)
    return Dtype::Other;
  switch (code) {
  case 0: // kDLInt
    return integerDtype(true, bits / 8);
  case 1: // kDLUInt
    return integerDtype(false, bits / 8);
  case 2: // kDLFloat
    return floatDtype(bits / 8);
  case 4: // kDLBfloat
    return bits == 16 ? Dtype::BF16 : Dtype::Other;
  default:
    return Dtype::Other;
  }
}

const py::dtype &numpyDtype(Dtype dtype) {
  // Leaked: the dtypes must outlive every array, and destroying Python
  // objects after the interpreter is finalized would crash.
  static const auto *dtypes = [] {
    auto *all = new std::array<py::dtype, 12>;
    const char *names[] = {"i1", "u1", "i2", "u2", "i4", "u4",
                           "i8", "u8", "f2", "u2", "f4", "f8"};
    for (size_t i = 0; i < all->size(); ++i)
      (*all)[i] = py::dtype(names[i]);
    return all;
  }();
  return (*dtypes)[size_t(dtype)];
}

Dtype sideDtype(const KernelSpec &spec, BufferSide side) {
  if (side == BufferSide::Expressed) {
    switch (spec.expressed) {
    case ValueType::F16:
      return Dtype::F16;
    case ValueType::BF16:
      return Dtype::BF16;
    case ValueType::F32:
      return Dtype::F32;
    case ValueType::F64:
      return Dtype::F64;
    }
  }
  if (spec.storage.packed || spec.storage.kind == StorageType::Kind::Float)
    return Dtype::U8;
  return integerDtype(spec.storage.isSigned, spec.storage.containerBytes());
}

bool dtypeFits(Dtype given, Dtype wanted) {
  return given == wanted || (wanted == Dtype::BF16 && given == Dtype::U16);
}

} // namespace qjit::python
