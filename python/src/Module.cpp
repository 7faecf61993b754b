//===- Module.cpp - The qjit._qjit extension module -----------------------===//
//
// Bindings over the C++ API (qjit/Runtime.h, qjit/TypeParser.h); the
// package's __init__.py re-exports them. docs/python.md documents the API.
//
//===----------------------------------------------------------------------===//
#include "CallSlot.h"
#include "Errors.h"
#include "PyKernel.h"

#include "qjit/Version.h"

#include <pybind11/stl.h>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include <array>

namespace py = pybind11;
using namespace qjit;
using namespace qjit::python;

namespace {

std::string parse(const std::string &text, bool normalize) {
  TypeDescriptor type = unwrap(parseTypeOrError(text));
  return printType(normalize ? normalizeType(type) : type);
}

void setLogLevel(const std::string &name) {
  static const std::array<std::pair<const char *, spdlog::level::level_enum>, 8>
      levels = {{{"trace", spdlog::level::trace},
                 {"debug", spdlog::level::debug},
                 {"info", spdlog::level::info},
                 {"warn", spdlog::level::warn},
                 {"warning", spdlog::level::warn},
                 {"error", spdlog::level::err},
                 {"critical", spdlog::level::critical},
                 {"off", spdlog::level::off}}};
  for (const auto &[levelName, level] : levels)
    if (name == levelName) {
      // The registry's level: every qjit logger now and those made later.
      spdlog::set_level(level);
      return;
    }
  invalidArgument("log level '" + name +
                  "' is not one of trace, debug, info, warning, error, "
                  "critical, off");
}

py::dict cacheStats() {
  CacheStats stats = processCacheStats();
  py::dict d;
  d["hits"] = stats.hits;
  d["misses"] = stats.misses;
  d["compiles"] = stats.compiles;
  d["failures"] = stats.failures;
  d["evictions"] = stats.evictions;
  d["compile_nanoseconds"] = stats.compileNanoseconds;
  d["kernels"] = stats.kernels;
  d["code_bytes"] = stats.codeBytes;
  return d;
}

AsmSyntax parseSyntax(const std::string &name) {
  if (name == "default")
    return AsmSyntax::Default;
  if (name == "att")
    return AsmSyntax::Att;
  if (name == "intel")
    return AsmSyntax::Intel;
  invalidArgument("syntax '" + name + "' is not one of default, att, intel");
}

std::string kernelRepr(const PyKernel &kernel) {
  const Kernel &k = kernel.kernel();
  return "<qjit.Kernel " + k.name() +
         " backend=" + std::string(backendKindName(k.backend())) +
         " isa=" + std::string(isaLevelName(k.isa())) + ">";
}

} // namespace

PYBIND11_MODULE(_qjit, m) {
  m.doc() = "qjit: JIT-compiled quantization kernels (see docs/python.md)";
  m.attr("__version__") = QJIT_VERSION_STRING;
  registerErrors(m);
  // SPDLOG_LEVEL works from Python as from the qjit tool.
  spdlog::cfg::load_env_levels();

  m.def("parse", &parse, py::arg("text"), py::arg("normalize") = false,
        "Parses and verifies a quant type; returns its canonical text (as "
        "mlir-opt 22 prints it). Raises InvalidTypeError with the caret "
        "diagnostic.");
  m.def(
      "compile",
      [](std::string type, std::string op, std::string backend,
         std::string semantics, std::optional<std::string> isa,
         std::optional<std::vector<int64_t>> shape, bool unpacked,
         std::optional<bool> runtimeParams, std::string scaleFormat) {
        CompileRequest request{std::move(type),
                               std::move(op),
                               std::move(backend),
                               std::move(semantics),
                               std::move(isa),
                               shape.value_or(std::vector<int64_t>{}),
                               unpacked,
                               runtimeParams,
                               std::move(scaleFormat)};
        return PyKernel::compile(request);
      },
      py::arg("type"), py::arg("op"), py::kw_only(),
      py::arg("backend") = "auto", py::arg("semantics") = "default",
      py::arg("isa") = py::none(), py::arg("shape") = py::none(),
      py::arg("unpacked") = false, py::arg("runtime_params") = py::none(),
      py::arg("scale_format") = "expressed",
      "Compiles (or finds in the process's kernel cache) the kernel of op "
      "'qcast', 'dcast' or 'scast' for a quant type.");
  m.def("set_log_level", &setLogLevel, py::arg("level"),
        "Sets the level of qjit's loggers: trace, debug, info, warning, "
        "error, critical or off.");
  m.def("cache_stats", &cacheStats,
        "Kernel cache counters summed over the process's runtimes.");

  py::class_<PyKernel, std::shared_ptr<PyKernel>> kernel(m, "Kernel",
                                                         "A compiled kernel.");
  kernel
      .def("__call__", &PyKernel::operator(), py::arg("x"),
           py::arg("out") = py::none(), py::kw_only(),
           py::arg("scales") = py::none(), py::arg("zero_points") = py::none(),
           py::arg("threads") = 1,
           "Runs the kernel on x; returns out, or a new array (a torch "
           "tensor for a torch input). threads=N splits the call over the "
           "process's pool of N threads (0: one per core), bit for bit "
           "what one thread writes.")
      .def_property_readonly(
          "spec", [](const PyKernel &k) { return k.spec().canonicalString(); })
      .def_property_readonly(
          "name", [](const PyKernel &k) { return k.kernel().name(); })
      .def_property_readonly("op",
                             [](const PyKernel &k) {
                               return std::string(kernelOpName(k.spec().op));
                             })
      .def_property_readonly("backend",
                             [](const PyKernel &k) {
                               return std::string(
                                   backendKindName(k.kernel().backend()));
                             })
      .def_property_readonly("isa",
                             [](const PyKernel &k) {
                               return std::string(
                                   isaLevelName(k.kernel().isa()));
                             })
      .def_property_readonly("input_dtype", &PyKernel::inputDtype)
      .def_property_readonly("output_dtype", &PyKernel::outputDtype)
      .def_property_readonly(
          "runtime_params",
          [](const PyKernel &k) { return k.spec().params.runtime; })
      .def_property_readonly(
          "scale_format",
          [](const PyKernel &k) {
            return std::string(scaleFormatName(k.spec().params.scaleFormat));
          })
      .def_property_readonly(
          "parameter_count",
          [](const PyKernel &k) { return k.spec().layout.parameterCount(); })
      .def_property_readonly("parameter_shape",
                             [](const PyKernel &k) {
                               return py::tuple(
                                   py::cast(parameterShape(k.spec())));
                             })
      .def(
          "assembly",
          [](const PyKernel &k, const std::string &syntax, std::string triple,
             std::string cpu, std::string features) {
            AsmOptions options;
            options.syntax = parseSyntax(syntax);
            options.triple = std::move(triple);
            options.cpu = std::move(cpu);
            options.features = std::move(features);
            return k.assembly(options);
          },
          py::kw_only(), py::arg("syntax") = "default", py::arg("triple") = "",
          py::arg("cpu") = "", py::arg("features") = "",
          "The kernel's assembly listing; syntax 'default', 'att' or 'intel' "
          "(x86; asmjit prints Intel only). UnsupportedError for reference "
          "kernels.")
      .def("__repr__", &kernelRepr)
      .def("_kernel_ns", &PyKernel::kernelNanoseconds, py::arg("x"),
           py::arg("out"), py::arg("iterations"), py::arg("repeats"),
           "bench/python_overhead.py: the kernel alone on these arrays, "
           "best ns per run, timed in C++.");
  installCallSlot(kernel);
}
