//===- PyKernel.h - qjit.Kernel, called on arrays ---------------*- C++ -*-===//
//
// What Python holds for qjit.compile's result: the runtime's Kernel (shared
// with the kernel cache) plus what a call needs beyond it, the parsed type
// and lowering options (to work out dynamic extents from an array's shape).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_PYTHON_PYKERNEL_H
#define QJIT_PYTHON_PYKERNEL_H

#include "ArrayView.h"
#include "CallParameters.h"

#include "qjit/Runtime.h"
#include "qjit/TypeParser.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qjit::python {

/// qjit.compile's arguments, as spelled in Python.
struct CompileRequest {
  std::string type;
  std::string op;
  std::string backend = "auto";
  std::string semantics = "default";
  std::optional<std::string> isa;
  std::vector<int64_t> shape; ///< Empty: the type's.
  bool unpacked = false;
  std::optional<bool> runtimeParams;     ///< Unset: when the scales are '?'.
  std::string scaleFormat = "expressed"; ///< Of runtime scales.
};

class PyKernel {
public:
  /// Parses, lowers and compiles (through the process's runtime for the
  /// backend and ISA cap, so through its cache). Raises qjit errors.
  static std::shared_ptr<PyKernel> compile(const CompileRequest &request);

  /// Runs the kernel on `x`, into `out` or a new array; None means not
  /// given. See docs/python.md for shapes and dtypes.
  /// threads: 1 runs on the calling thread; N > 1 (0: one per core)
  /// through Kernel::runParallel on the process's DefaultThreadPool of N
  /// threads, started on first use and kept.
  pybind11::object operator()(pybind11::handle x, pybind11::handle out,
                              pybind11::handle scales,
                              pybind11::handle zeroPoints,
                              size_t threads = 1) const;

  /// The kernel alone on the same arguments, for bench/python_overhead.py:
  /// the best of `repeats` batches of `iterations` runs, in ns per run.
  double kernelNanoseconds(pybind11::handle x, pybind11::handle out,
                           size_t iterations, size_t repeats) const;

  const Kernel &kernel() const { return *kernel_; }
  /// The spec as lowered for this compile. The kernel's own may carry
  /// another shape: the runtime's cache key leaves the shape out, so one
  /// kernel serves every shape with the same layout.
  const KernelSpec &spec() const { return spec_; }
  /// The numpy dtypes of the arrays the kernel reads and writes.
  pybind11::dtype inputDtype() const;
  pybind11::dtype outputDtype() const;
  std::string assembly(const AsmOptions &options) const;

private:
  PyKernel(std::shared_ptr<const Kernel> kernel, KernelSpec spec,
           TypeDescriptor type, LoweringOptions lowering);

  /// The shape of the elements an input array holds (packed storage
  /// shapes bytes, tools/PackedShape.h), checked against the spec's shape.
  std::vector<int64_t> elementShape(const std::vector<int64_t> &arrayShape,
                                    size_t arrayBytes) const;

  /// A call's checked arguments and its result (KernelParams points into
  /// `parameters` and `extents`).
  struct Call {
    ArrayView input;
    std::optional<ArrayView> out{};
    CallParameters parameters;
    std::vector<int64_t> extents{};
    KernelParams params{};
    ParameterCounts lengths{};
    size_t n = 0, inBytes = 0, outBytes = 0;
    void *outData = nullptr;
    pybind11::object result{};
  };
  Call prepare(pybind11::handle x, pybind11::handle out,
               pybind11::handle scales, pybind11::handle zeroPoints) const;

  std::shared_ptr<const Kernel> kernel_;
  KernelSpec spec_;
  TypeDescriptor type_;
  LoweringOptions lowering_;
  bool dynamicLayout_; ///< Extents come from each call's shape.
};

} // namespace qjit::python

#endif
