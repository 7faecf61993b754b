//===- CallSlot.h - kernel(...) without pybind11's dispatch -----*- C++ -*-===//
//
// pybind11's dispatcher costs about 1 µs per call with a keyword argument
// (it builds a function_call and matches keywords against each overload),
// half the budget a call from Python has beyond the kernel. The call slot
// of qjit.Kernel parses its four arguments directly instead; the
// pybind11-defined __call__ stays for introspection and docs, and both run
// PyKernel::operator().
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_CALLSLOT_H
#define QJIT_PYTHON_CALLSLOT_H

#include <pybind11/pybind11.h>

namespace qjit::python {

/// Points the tp_call slot of the Kernel class at the direct parser.
void installCallSlot(pybind11::handle kernelClass);

} // namespace qjit::python

#endif
