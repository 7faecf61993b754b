//===- ArrayView.h - A numpy, buffer or DLPack array ------------*- C++ -*-===//
//
// Kernels read and write flat C-order memory. An ArrayView finds that memory
// in whatever the caller passed: a numpy array (read directly, the fast
// path), any object with the buffer protocol, or a DLPack producer (PyTorch
// tensors through __dlpack__). A view keeps its source alive; an input that
// is not C-contiguous is gathered into a copy the view owns, since kernels
// only take contiguous memory.
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_ARRAYVIEW_H
#define QJIT_PYTHON_ARRAYVIEW_H

#include "Dtype.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qjit::python {

class ArrayView {
public:
  enum class Use { Read, Write };

  /// Views `object`; `what` names it in errors ("the input", "out="). A
  /// Write view must be writable and C-contiguous (no copy: the kernel's
  /// results would land in the copy).
  static ArrayView of(pybind11::handle object, Use use, const char *what);

  ArrayView(ArrayView &&) noexcept;
  ArrayView &operator=(ArrayView &&) noexcept;
  ~ArrayView();

  void *data() const { return data_; }
  Dtype dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  size_t elements() const;
  size_t bytes() const { return elements() * dtypeBytes(dtype_); }
  /// Whether the source reached us through DLPack (for the result's type).
  bool fromDlpack() const { return fromDlpack_; }

private:
  ArrayView() = default;
  /// Makes the memory C-contiguous (a copy) given byte strides.
  void gather(const std::vector<int64_t> &strides);

  void *data_ = nullptr;
  Dtype dtype_ = Dtype::Other;
  std::vector<int64_t> shape_;
  bool fromDlpack_ = false;
  pybind11::object owner_; ///< Keeps the memory alive (array or capsule).
  std::unique_ptr<Py_buffer> buffer_; ///< Released on destruction.
  std::vector<uint8_t> copy_;         ///< The gathered copy, if any.
};

/// "(3, 4)" as numpy prints shapes.
std::string shapeText(const std::vector<int64_t> &shape);

} // namespace qjit::python

#endif
