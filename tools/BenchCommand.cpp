//===- BenchCommand.cpp - qjit bench: compare rows on one type ------------===//
//
// `qjit bench TYPE --op=...` (or `--case=NAME` from the harness's case
// list) runs every core row of the benchmark harness on one workload: each
// qjit backend, the scalar reference, the plain -O3 loop and the
// memory-bound copies, and prints elements/ns, GB/s and ratios. Rows are
// prepared, checked and timed by bench/core, exactly as in qjit_bench.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "KernelOptions.h"
#include "Report.h"

#include "BenchCases.h"
#include "Measure.h"

#include "qjit/TypeParser.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "bench";
constexpr int64_t kDefaultElements = int64_t(1) << 20;

void printUsage() {
  std::printf(
      "usage: qjit bench TYPE --op=qcast|dcast [options]\n"
      "       qjit bench --case=NAME --op=qcast|dcast [options]\n"
      "       qjit bench --list\n"
      "       qjit bench --list-types [--n=N]\n\n"
      "Times every qjit backend, the scalar reference, a plain C++ loop\n"
      "(g++ -O3 -march=native) and memory-bound copies on one workload and\n"
      "prints elements/ns, GB/s and ratios. Peers (XNNPACK, oneDNN) are in\n"
      "the qjit_bench harness.\n\n"
      "options:\n"
      "  --case=NAME                 a case of the harness (see --list)\n"
      "  --list                      print the harness's cases\n"
      "  --list-types                print each case as NAME baked|runtime "
      "TYPE,\n"
      "                              the full type at --n elements (for\n"
      "                              scripts such as bench/model.py)\n"
      "  --n=N                       elements (default: the tensor's, or "
      "%lld)\n"
      "  --runtime-params            pass scales at call time (KernelParams)\n"
      "  --min-time=SECONDS          time per row (default 0.25)\n"
      "%s",
      static_cast<long long>(kDefaultElements), kKernelFlagsHelp);
}

Status usage(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

template <typename T>
Expected<T> readNumber(const CommandLine &flags, const std::string &flag,
                       T fallback) {
  std::optional<std::string> text = flags.get(flag);
  if (!text)
    return fallback;
  T value{};
  auto [end, error] =
      std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() ||
      !(value > 0))
    return usage("invalid --" + flag + " '" + *text + "'");
  return value;
}

void listCases() {
  for (const bench::BenchCase &c : bench::benchCases()) {
    auto text = bench::caseTypeText(c, bench::kBenchSizes[0]);
    std::printf("%-20s %s\n", std::string(c.name).c_str(),
                text ? text->substr(0, 100).c_str() : "?");
  }
}

/// One line per case, the type in full: scripts (bench/model.py) run
/// other commands on the harness's cases without a copy of the table.
int listCaseTypes(const CommandLine &flags) {
  auto n = readNumber<int64_t>(flags, "n", kDefaultElements);
  if (!n)
    return reportUsageError(kCommand, n.status());
  for (const bench::BenchCase &c : bench::benchCases()) {
    auto text = bench::caseTypeText(c, *n);
    if (!text)
      return reportUsageError(kCommand, text.status());
    std::printf("%s %s %s\n", std::string(c.name).c_str(),
                c.runtimeParameters ? "runtime" : "baked", text->c_str());
  }
  return kExitSuccess;
}

/// The type text and element count the command line asks for.
struct Target {
  std::string name;
  std::string typeText;
  int64_t n = 0;
  bool runtimeParameters = false;
};

Expected<Target> readTarget(const CommandLine &flags) {
  auto n = readNumber<int64_t>(flags, "n", 0);
  if (!n)
    return n.status();
  Target target;
  target.runtimeParameters = flags.has("runtime-params");
  if (std::optional<std::string> name = flags.get("case")) {
    const bench::BenchCase *c = bench::findBenchCase(*name);
    if (!c)
      return usage("unknown case '" + *name + "' (see --list)");
    target.name = *name;
    target.n = *n ? *n : kDefaultElements;
    target.runtimeParameters |= c->runtimeParameters;
    auto text = bench::caseTypeText(*c, target.n);
    if (!text)
      return text.status();
    target.typeText = std::move(*text);
    return target;
  }
  if (flags.positional().empty() && !flags.has("type-file") &&
      !flags.has("mlir"))
    return usage("give one TYPE or --case=NAME");
  Expected<TypeArgument> argument = readTypeArgument(flags);
  if (!argument)
    return argument.status();
  Expected<TypeText> text = loadType(*argument);
  if (!text)
    return text.status();
  target.typeText = text->text;
  target.name =
      argument->kind == TypeArgument::Kind::Text ? text->text : argument->value;
  target.n = *n;
  // Diagnostics located in the file the type came from.
  auto type = parseTypeTextOrError(*text);
  if (!type)
    return type.status();
  if (!target.n) {
    // A type without a static tensor shape gets the default count.
    bool sized = type && type->tensor && type->tensor->ranked &&
                 !type->tensor->dims.empty();
    if (!sized && !flags.has("shape"))
      target.n = kDefaultElements;
  }
  return target;
}

/// readKernelRequest wants the type as the positional argument; a case
/// supplies it instead.
Expected<KernelRequest>
readRequest(int argc, char **argv, const std::string &typeText, bool fromCase) {
  std::vector<char *> args(argv, argv + argc);
  std::string positional = typeText;
  if (fromCase)
    args.push_back(positional.data());
  CommandLine flags;
  addKernelFlags(flags);
  flags.value("case").value("n").value("min-time").flag("runtime-params");
  if (Status parsed =
          flags.parse(static_cast<int>(args.size()), args.data(), 2);
      !parsed)
    return parsed;
  return readKernelRequest(flags);
}

std::string ratio(double value, double base) {
  if (value <= 0 || base <= 0)
    return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", value / base);
  return text;
}

struct Row {
  bench::PreparedRow prepared;
  bench::Throughput throughput;
};

int runBench(const Target &target, KernelRequest request, double minSeconds) {
  bench::WorkloadRequest workloadRequest;
  workloadRequest.name = target.name;
  workloadRequest.typeText = target.typeText;
  workloadRequest.op = request.op;
  workloadRequest.lowering = request.lowering;
  workloadRequest.lowering.runtimeParameters = target.runtimeParameters;
  workloadRequest.n = target.n;
  auto workload = bench::Workload::create(std::move(workloadRequest));
  if (!workload)
    return reportFailure(kCommand, workload.status());
  bench::Workload &w = **workload;

  std::vector<Row> rows;
  for (const bench::ImplementationFactory &factory :
       bench::coreImplementations()) {
    Row row{bench::prepareRow(factory, w), {}};
    if (row.prepared.status)
      row.throughput =
          bench::timeRow(*row.prepared.implementation, w, minSeconds);
    rows.push_back(std::move(row));
  }
  double best = 0, reference = 0;
  for (const Row &row : rows) {
    if (row.prepared.name.rfind("memory", 0) != 0)
      best = std::max(best, row.throughput.elementsPerNs);
    if (row.prepared.name == "reference")
      reference = row.throughput.elementsPerNs;
  }

  std::printf("%s %s: n = %zu, %zu bytes in, %zu bytes out\n",
              std::string(kernelOpName(w.spec().op)).c_str(),
              target.name.substr(0, 120).c_str(), w.size(), w.inputBytes(),
              w.outputBytes());
  std::printf("%-11s %-8s %9s %8s %8s %8s  %s\n", "row", "detail", "el/ns",
              "GB/s", "vs ref", "vs best", "check");
  for (const Row &row : rows) {
    const bench::PreparedRow &p = row.prepared;
    if (!p.status) {
      std::printf("%-11s skipped: %s\n", p.name.c_str(),
                  p.status.message().c_str());
      continue;
    }
    const bench::Throughput &t = row.throughput;
    std::printf("%-11s %-8s %9.3f %8.2f %8s %8s  %s\n", p.name.c_str(),
                p.implementation->detail().c_str(), t.elementsPerNs,
                t.gigabytesPerSecond, ratio(t.elementsPerNs, reference).c_str(),
                ratio(t.elementsPerNs, best).c_str(), p.checkNote.c_str());
  }
  std::printf("(vs best: against the fastest row that converts; memory rows "
              "only move the bytes)\n");
  return kExitSuccess;
}

} // namespace

int benchCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.value("case").value("n").value("min-time").flag("runtime-params");
  flags.flag("list").flag("list-types").flag("help");
  if (std::optional<int> done =
          parseCommandFlags(flags, argc, argv, kCommand, printUsage))
    return *done;
  if (flags.has("list")) {
    listCases();
    return kExitSuccess;
  }
  if (flags.has("list-types"))
    return listCaseTypes(flags);
  auto minSeconds = readNumber<double>(flags, "min-time", 0.25);
  if (!minSeconds)
    return reportUsageError(kCommand, minSeconds.status());
  Expected<Target> target = readTarget(flags);
  if (!target)
    return target.status().code() == ErrorCode::InvalidArgument
               ? reportUsageError(kCommand, target.status())
               : reportFailure(kCommand, target.status());
  Expected<KernelRequest> request =
      readRequest(argc, argv, target->typeText, flags.has("case"));
  if (!request)
    return reportUsageError(kCommand, request.status());
  if (request->op == KernelOp::SCast)
    return reportUsageError(kCommand, usage("bench measures qcast and dcast"));
  return runBench(*target, std::move(*request), *minSeconds);
}

} // namespace qjit::tool
