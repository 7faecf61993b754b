//===- CallSlot.cpp - kernel(...) without pybind11's dispatcher -----------===//
#include "CallSlot.h"

#include "PyKernel.h"

#include <array>

namespace py = pybind11;

namespace qjit::python {

namespace {

/// kernel(x, out=None, *, scales=None, zero_points=None, threads=1), as
/// __call__.
struct CallArguments {
  // Slots: x, out, scales, zero_points, threads. Borrowed references.
  std::array<PyObject *, 5> values{nullptr, Py_None, Py_None, Py_None, nullptr};

  void parse(PyObject *args, PyObject *kwargs) {
    Py_ssize_t positional = PyTuple_GET_SIZE(args);
    if (positional > 2)
      throw py::type_error("Kernel.__call__() takes at most 2 positional "
                           "arguments (x, out)");
    for (Py_ssize_t i = 0; i < positional; ++i)
      values[i] = PyTuple_GET_ITEM(args, i);
    static constexpr std::array<const char *, 5> names = {
        "x", "out", "scales", "zero_points", "threads"};
    Py_ssize_t at = 0;
    PyObject *key, *value;
    while (kwargs && PyDict_Next(kwargs, &at, &key, &value)) {
      size_t slot = 0;
      while (slot < names.size() &&
             PyUnicode_CompareWithASCIIString(key, names[slot]) != 0)
        ++slot;
      if (slot == names.size())
        throw py::type_error("Kernel.__call__() got an unexpected keyword "
                             "argument '" +
                             py::str(key).cast<std::string>() + "'");
      if (slot < size_t(positional))
        throw py::type_error("Kernel.__call__() got multiple values for "
                             "argument '" +
                             std::string(names[slot]) + "'");
      values[slot] = value;
    }
    if (!values[0])
      throw py::type_error("Kernel.__call__() missing the array argument x");
  }

  /// threads=: a count >= 0 (0: one per core), 1 when not given.
  size_t threads() const {
    if (!values[4])
      return 1;
    if (!PyLong_Check(values[4]))
      throw py::type_error("Kernel.__call__() threads= takes an int");
    size_t threads = PyLong_AsSize_t(values[4]);
    if (threads == size_t(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("Kernel.__call__() threads= must be >= 0");
    }
    return threads;
  }
};

PyObject *callKernel(PyObject *self, PyObject *args, PyObject *kwargs) {
  try {
    CallArguments call;
    call.parse(args, kwargs);
    const PyKernel &kernel = py::handle(self).cast<const PyKernel &>();
    return kernel(call.values[0], call.values[1], call.values[2],
                  call.values[3], call.threads())
        .release()
        .ptr();
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (py::builtin_exception &e) {
    e.set_error();
  } catch (...) {
    // The module's translators (qjit errors), then pybind11's.
    auto &local =
        py::detail::get_local_internals().registered_exception_translators;
    auto &global = py::detail::get_internals().registered_exception_translators;
    if (!py::detail::apply_exception_translators(local) &&
        !py::detail::apply_exception_translators(global))
      PyErr_SetString(PyExc_SystemError, "qjit: an unknown C++ exception");
  }
  return nullptr;
}

} // namespace

void installCallSlot(py::handle kernelClass) {
  auto *type = reinterpret_cast<PyTypeObject *>(kernelClass.ptr());
  type->tp_call = &callKernel;
  PyType_Modified(type);
}

} // namespace qjit::python
