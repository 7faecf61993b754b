//===- Errors.cpp - qjit errors as Python exceptions ----------------------===//
#include "Errors.h"

#include <array>

namespace py = pybind11;

namespace qjit::python {

namespace {

/// Indexed by ErrorCode; the classes live as long as the module (the
/// module holds a reference to each).
std::array<PyObject *, 6> exceptionClasses{};

PyObject *newClass(py::module_ &module, const char *name, PyObject *bases,
                   const char *doc) {
  std::string qualified = std::string("qjit.") + name;
  PyObject *cls =
      PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!cls)
    throw py::error_already_set();
  module.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;
}

/// A subclass of qjit.Error that is also the builtin `builtin`, so that
/// `except ValueError` catches bad input as Python code expects.
PyObject *newSubclass(py::module_ &module, const char *name, PyObject *error,
                      PyObject *builtin, const char *doc) {
  py::tuple bases = builtin
                        ? py::make_tuple(py::handle(error), py::handle(builtin))
                        : py::make_tuple(py::handle(error));
  return newClass(module, name, bases.ptr(), doc);
}

} // namespace

void registerErrors(py::module_ &module) {
  PyObject *error = newClass(module, "Error", PyExc_Exception,
                             "Base class of every error qjit raises.");
  exceptionClasses[size_t(ErrorCode::Ok)] = error;
  exceptionClasses[size_t(ErrorCode::InvalidType)] =
      newSubclass(module, "InvalidTypeError", error, PyExc_ValueError,
                  "The type text does not parse or verify; the message is the "
                  "diagnostic with a caret under the problem.");
  exceptionClasses[size_t(ErrorCode::Unsupported)] =
      newSubclass(module, "UnsupportedError", error, nullptr,
                  "A valid type or request that no kernel computes.");
  exceptionClasses[size_t(ErrorCode::InvalidArgument)] =
      newSubclass(module, "InvalidArgumentError", error, PyExc_ValueError,
                  "A bad array, dtype, shape, option or parameter.");
  exceptionClasses[size_t(ErrorCode::BackendFailure)] =
      newSubclass(module, "BackendError", error, PyExc_RuntimeError,
                  "The JIT could not make the kernel.");
  exceptionClasses[size_t(ErrorCode::IOError)] =
      newSubclass(module, "IOError", error, PyExc_OSError,
                  "A file could not be read or written.");

  // Module-local: another pybind11 module may define its own QjitError.
  py::register_local_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const QjitError &e) {
      size_t index = size_t(e.code());
      PyObject *cls = index < exceptionClasses.size() ? exceptionClasses[index]
                                                      : exceptionClasses[0];
      PyErr_SetString(cls, e.what());
    }
  });
}

} // namespace qjit::python
