//===- PyKernel.cpp - qjit.Kernel: a compiled kernel called on arrays -----===//
#include "PyKernel.h"

#include "ArrayView.h"
#include "CallParameters.h"
#include "Dtype.h"
#include "Errors.h"
#include "Runtimes.h"

#include "PackedShape.h"

#include "qjit/KernelCall.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

namespace py = pybind11;

namespace qjit::python {

namespace {

KernelOp parseOp(const std::string &name) {
  if (name == "qcast")
    return KernelOp::QCast;
  if (name == "dcast")
    return KernelOp::DCast;
  if (name == "scast")
    return KernelOp::SCast;
  invalidArgument("op '" + name + "' is not one of qcast, dcast, scast");
}

SemanticsPreset parsePreset(const std::string &name) {
  return unwrap(parseSemanticsPreset(name));
}

bool hasDynamicLayout(const LayoutSpec &layout) {
  return layout.inner == LayoutSpec::kDynamic ||
         std::any_of(layout.dims.begin(), layout.dims.end(),
                     [](const LayoutSpec::Dim &dim) {
                       return dim.extent == LayoutSpec::kDynamic;
                     });
}

bool isStatic(const std::vector<int64_t> &shape) {
  return std::none_of(shape.begin(), shape.end(),
                      [](int64_t dim) { return dim == TensorShape::kDynamic; });
}

size_t product(const std::vector<int64_t> &shape) {
  size_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<size_t>(dim);
  return count;
}

std::string specShapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + (shape[i] == TensorShape::kDynamic
                                   ? std::string("?")
                                   : std::to_string(shape[i]));
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string dtypeWanted(Dtype wanted) {
  return wanted == Dtype::BF16 ? "bfloat16 (numpy: uint16 bits)"
                               : std::string(dtypeName(wanted));
}

/// A torch tensor's dtypes for a result (none for uint16/uint32, which
/// torch 1.13 lacks: those results are numpy arrays).
bool torchHas(Dtype dtype) {
  return dtype != Dtype::U16 && dtype != Dtype::U32 && dtype != Dtype::U64 &&
         dtype != Dtype::Other;
}

bool isTorchTensor(py::handle object) {
  PyObject *modules = PyImport_GetModuleDict();
  PyObject *torch = PyDict_GetItemString(modules, "torch");
  if (!torch)
    return false;
  py::object tensorType = py::getattr(torch, "Tensor", py::none());
  return !tensorType.is_none() &&
         PyObject_IsInstance(object.ptr(), tensorType.ptr()) == 1;
}

/// A new result array: a torch tensor when the input is one and torch has
/// the dtype, else a numpy array.
py::object newResult(Dtype dtype, const std::vector<int64_t> &shape,
                     bool asTorch, void *&data) {
  if (asTorch && torchHas(dtype)) {
    py::module_ torch = py::module_::import("torch");
    py::object tensor = torch.attr("empty")(
        py::cast(shape),
        py::arg("dtype") = torch.attr(std::string(dtypeName(dtype)).c_str()));
    data =
        reinterpret_cast<void *>(tensor.attr("data_ptr")().cast<uintptr_t>());
    return tensor;
  }
  py::array array(numpyDtype(dtype),
                  std::vector<py::ssize_t>(shape.begin(), shape.end()));
  data = array.mutable_data();
  return array;
}

bool overlaps(const void *a, size_t aBytes, const void *b, size_t bBytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return aBytes && bBytes && x < y + bBytes && y < x + aBytes;
}

/// The process's pool of `threads` threads (0: one per core), started the
/// first time a call asks for that many; pthreadpool serializes calls that
/// share one.
const DefaultThreadPool &defaultPool(size_t threads) {
  static std::mutex mutex;
  static std::map<size_t, std::unique_ptr<DefaultThreadPool>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DefaultThreadPool> &pool = pools[threads];
  if (!pool)
    pool = unwrap(DefaultThreadPool::create(threads));
  return *pool;
}

} // namespace

PyKernel::PyKernel(std::shared_ptr<const Kernel> kernel, KernelSpec spec,
                   TypeDescriptor type, LoweringOptions lowering)
    : kernel_(std::move(kernel)), spec_(std::move(spec)),
      type_(std::move(type)), lowering_(std::move(lowering)),
      dynamicLayout_(hasDynamicLayout(spec_.layout)) {}

std::shared_ptr<PyKernel> PyKernel::compile(const CompileRequest &request) {
  KernelOp op = parseOp(request.op);
  BackendKind backend = unwrap(parseBackendKind(request.backend));
  std::optional<IsaLevel> isa;
  if (request.isa)
    isa = unwrap(parseIsaLevel(*request.isa));
  LoweringOptions lowering = loweringForPreset(parsePreset(request.semantics));
  TypeDescriptor type = unwrap(parseTypeOrError(request.type));
  lowering.shape = request.shape;
  lowering.unpacked = request.unpacked;
  lowering.runtimeParameters =
      request.runtimeParams.value_or(type.element.parametersAtCallTime);
  lowering.scaleFormat = unwrap(parseScaleFormat(request.scaleFormat));
  KernelSpec spec = unwrap(lowerToKernelSpec(type, op, lowering));
  Runtime &runtime = runtimeFor(backend, isa);
  std::optional<Expected<std::shared_ptr<const Kernel>>> kernel;
  {
    // A JIT compile can take milliseconds; other threads may run Python.
    py::gil_scoped_release release;
    kernel.emplace(runtime.compile(spec));
  }
  return std::shared_ptr<PyKernel>(
      new PyKernel(unwrap(std::move(*kernel)), std::move(spec), std::move(type),
                   std::move(lowering)));
}

std::vector<int64_t>
PyKernel::elementShape(const std::vector<int64_t> &arrayShape,
                       size_t arrayBytes) const {
  const KernelSpec &spec = spec_;
  const std::vector<int64_t> &typeShape = spec.shape;
  std::vector<int64_t> shape = arrayShape;
  bool packedInput =
      kernelInputSide(spec.op) == BufferSide::Storage && spec.storage.packed;
  if (packedInput) {
    if (auto unpacked = tool::unpackedFileShape(arrayShape, spec.storage.bits))
      shape = std::move(*unpacked);
    else if (!typeShape.empty() && isStatic(typeShape))
      return typeShape; // 1-D bytes: the type says how many elements.
    else
      shape = {static_cast<int64_t>(arrayBytes * (8 / spec.storage.bits))};
  }
  if (typeShape.empty())
    return shape;
  bool fits = shape.size() == typeShape.size();
  for (size_t i = 0; fits && i < shape.size(); ++i)
    fits = typeShape[i] == TensorShape::kDynamic || typeShape[i] == shape[i];
  if (!fits)
    invalidArgument(
        "the input holds elements of shape " + shapeText(shape) +
        (packedInput ? " (packed bytes " + shapeText(arrayShape) + ")"
                     : std::string()) +
        ", which does not fit the type's shape " + specShapeText(typeShape));
  return shape;
}

PyKernel::Call PyKernel::prepare(py::handle x, py::handle out,
                                 py::handle scales,
                                 py::handle zeroPoints) const {
  const KernelSpec &spec = spec_;
  BufferSide inSide = kernelInputSide(spec.op);
  BufferSide outSide = kernelOutputSide(spec.op);

  Call call{.input = ArrayView::of(x, ArrayView::Use::Read, "the input"),
            .parameters = CallParameters::read(spec, scales, zeroPoints)};
  const ArrayView &input = call.input;
  Dtype inDtype = sideDtype(spec, inSide);
  if (!dtypeFits(input.dtype(), inDtype))
    invalidArgument("the input is " + std::string(dtypeName(input.dtype())) +
                    "; " + std::string(kernelOpName(spec.op)) +
                    " of this "
                    "kernel reads " +
                    dtypeWanted(inDtype));
  std::vector<int64_t> shape = elementShape(input.shape(), input.bytes());
  call.n = product(shape);
  call.inBytes = unwrap(bufferBytes(spec, inSide, call.n));
  if (call.inBytes != input.bytes())
    invalidArgument("the input has " + std::to_string(input.bytes()) +
                    " bytes; " + std::to_string(call.n) + " elements take " +
                    std::to_string(call.inBytes));
  if (dynamicLayout_)
    call.extents = unwrap(lowerCallExtents(type_, lowering_, shape));
  call.params = call.parameters.params(call.extents);
  call.lengths = call.parameters.lengths(call.extents);

  call.outBytes = unwrap(bufferBytes(spec, outSide, call.n));
  Dtype outDtype = sideDtype(spec, outSide);
  std::vector<int64_t> outShape =
      outSide == BufferSide::Storage && spec.storage.packed
          ? tool::packedFileShape(shape, spec.storage.bits, call.outBytes)
          : shape;
  if (out.is_none()) {
    call.result =
        newResult(outDtype, outShape, input.fromDlpack() && isTorchTensor(x),
                  call.outData);
    return call;
  }
  call.out.emplace(ArrayView::of(out, ArrayView::Use::Write, "out="));
  if (!dtypeFits(call.out->dtype(), outDtype))
    invalidArgument("out= is " + std::string(dtypeName(call.out->dtype())) +
                    "; the kernel writes " + dtypeWanted(outDtype));
  if (call.out->shape() != outShape)
    invalidArgument("out= has shape " + shapeText(call.out->shape()) +
                    "; the result's shape is " + shapeText(outShape));
  call.outData = call.out->data();
  if (overlaps(input.data(), call.inBytes, call.outData, call.outBytes))
    invalidArgument("out= overlaps the input; kernels do not work in place");
  call.result = py::reinterpret_borrow<py::object>(out);
  return call;
}

py::object PyKernel::operator()(py::handle x, py::handle out, py::handle scales,
                                py::handle zeroPoints, size_t threads) const {
  Call call = prepare(x, out, scales, zeroPoints);
  const DefaultThreadPool *pool =
      threads == 1 ? nullptr : &defaultPool(threads);
  Status ran;
  {
    py::gil_scoped_release release;
    ran =
        pool ? kernel_->runParallel(pool->pool(), call.input.data(),
                                    call.inBytes, call.outData, call.outBytes,
                                    call.n, &call.params, &call.lengths)
             : kernel_->run(call.input.data(), call.inBytes, call.outData,
                            call.outBytes, call.n, &call.params, &call.lengths);
  }
  if (!ran)
    raise(ran);
  return std::move(call.result);
}

double PyKernel::kernelNanoseconds(py::handle x, py::handle out,
                                   size_t iterations, size_t repeats) const {
  Call call = prepare(x, out, py::none(), py::none());
  double best = std::numeric_limits<double>::infinity();
  Status ran;
  {
    py::gil_scoped_release release;
    for (size_t r = 0; r < repeats && ran; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < iterations && ran; ++i)
        ran = kernel_->run(call.input.data(), call.inBytes, call.outData,
                           call.outBytes, call.n, &call.params, &call.lengths);
      std::chrono::duration<double, std::nano> took =
          std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count() / double(iterations));
    }
  }
  if (!ran)
    raise(ran);
  return best;
}

py::dtype PyKernel::inputDtype() const {
  return numpyDtype(sideDtype(spec_, kernelInputSide(spec_.op)));
}

py::dtype PyKernel::outputDtype() const {
  return numpyDtype(sideDtype(spec_, kernelOutputSide(spec_.op)));
}

std::string PyKernel::assembly(const AsmOptions &options) const {
  Expected<std::string> text = [&] {
    py::gil_scoped_release release;
    return kernel_->assembly(options);
  }();
  return unwrap(std::move(text));
}

} // namespace qjit::python
