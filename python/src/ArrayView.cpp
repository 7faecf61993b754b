//===- ArrayView.cpp - The memory of a numpy, buffer or DLPack array ------===//
#include "ArrayView.h"

#include "Errors.h"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstring>

namespace py = pybind11;

namespace qjit::python {

namespace {

bool isCContiguous(const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides, int64_t itemBytes) {
  int64_t expected = itemBytes;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0)
      return true;
    // A dim of one element has no meaningful stride.
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

void copyStrided(uint8_t *&to, const uint8_t *from,
                 const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &strides, size_t itemBytes,
                 size_t dim) {
  if (dim == shape.size()) {
    std::memcpy(to, from, itemBytes);
    to += itemBytes;
    return;
  }
  for (int64_t i = 0; i < shape[dim]; ++i)
    copyStrided(to, from + i * strides[dim], shape, strides, itemBytes,
                dim + 1);
}

void releaseBuffer(Py_buffer *buffer) {
  if (buffer)
    PyBuffer_Release(buffer);
}

} // namespace

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

ArrayView::ArrayView(ArrayView &&) noexcept = default;
ArrayView &ArrayView::operator=(ArrayView &&other) noexcept {
  releaseBuffer(buffer_.get());
  data_ = other.data_;
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  fromDlpack_ = other.fromDlpack_;
  owner_ = std::move(other.owner_);
  buffer_ = std::move(other.buffer_);
  copy_ = std::move(other.copy_);
  return *this;
}
ArrayView::~ArrayView() { releaseBuffer(buffer_.get()); }

size_t ArrayView::elements() const {
  size_t count = 1;
  for (int64_t dim : shape_)
    count *= static_cast<size_t>(dim);
  return count;
}

void ArrayView::gather(const std::vector<int64_t> &strides) {
  copy_.resize(bytes());
  uint8_t *to = copy_.data();
  copyStrided(to, static_cast<const uint8_t *>(data_), shape_, strides,
              dtypeBytes(dtype_), 0);
  data_ = copy_.data();
}

ArrayView ArrayView::of(py::handle object, Use use, const char *what) {
  ArrayView view;
  std::vector<int64_t> strides;
  bool writable = true;
  if (py::array::check_(object)) {
    auto array = py::reinterpret_borrow<py::array>(object);
    view.owner_ = array;
    view.dtype_ = dtypeFromNumpy(array.dtype());
    view.data_ = const_cast<void *>(array.data());
    writable = array.writeable();
    for (py::ssize_t i = 0; i < array.ndim(); ++i) {
      view.shape_.push_back(array.shape(i));
      strides.push_back(array.strides(i));
    }
  } else if (PyObject_CheckBuffer(object.ptr())) {
    view.buffer_ = std::make_unique<Py_buffer>();
    int flags =
        PyBUF_STRIDES | PyBUF_FORMAT | (use == Use::Write ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object.ptr(), view.buffer_.get(), flags) != 0) {
      view.buffer_.reset();
      if (use == Use::Read)
        throw py::error_already_set();
      PyErr_Clear();
      invalidArgument(std::string(what) + " is a read-only buffer");
    }
    const Py_buffer &buffer = *view.buffer_;
    view.data_ = buffer.buf;
    view.dtype_ = dtypeFromFormat(buffer.format ? buffer.format : "B");
    if (dtypeBytes(view.dtype_) != static_cast<unsigned>(buffer.itemsize))
      view.dtype_ = Dtype::Other;
    for (int i = 0; i < buffer.ndim; ++i) {
      view.shape_.push_back(buffer.shape[i]);
      strides.push_back(buffer.strides[i]);
    }
  } else if (py::hasattr(object, "__dlpack__")) {
    py::object capsule = object.attr("__dlpack__")();
    // Left named "dltensor": the producer's capsule destructor then frees
    // the tensor once the view lets go of the capsule.
    auto *managed = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed)
      throw py::error_already_set();
    view.owner_ = std::move(capsule);
    view.fromDlpack_ = true;
    const DLTensor &tensor = managed->dl_tensor;
    if (tensor.device.device_type != kDLCPU)
      invalidArgument(std::string(what) +
                      " is not in CPU memory (DLPack device type " +
                      std::to_string(int(tensor.device.device_type)) + ")");
    view.data_ = static_cast<uint8_t *>(tensor.data) + tensor.byte_offset;
    view.dtype_ = dtypeFromDlpack(tensor.dtype.code, tensor.dtype.bits,
                                  tensor.dtype.lanes);
    int64_t itemBytes = dtypeBytes(view.dtype_);
    view.shape_.assign(tensor.shape, tensor.shape + tensor.ndim);
    for (int i = 0; i < tensor.ndim; ++i)
      strides.push_back(tensor.strides ? tensor.strides[i] * itemBytes : 0);
    if (!tensor.strides)
      strides.clear(); // Compact row-major by definition.
  } else {
    invalidArgument(
        std::string(what) + " is a '" +
        std::string(py::str(py::type::of(object).attr("__name__"))) +
        "', not an array: pass a numpy array, an object with the "
        "buffer protocol or a DLPack tensor (such as torch's)");
  }

  if (use == Use::Write && !writable)
    invalidArgument(std::string(what) + " is read-only");
  if (view.dtype_ == Dtype::Other || strides.empty() ||
      isCContiguous(view.shape_, strides, dtypeBytes(view.dtype_)))
    return view;
  if (use == Use::Write)
    invalidArgument(std::string(what) +
                    " is not C-contiguous: kernels write contiguous memory "
                    "(pass a fresh array, e.g. numpy.empty)");
  view.gather(strides);
  return view;
}

} // namespace qjit::python
