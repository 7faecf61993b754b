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

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace qjit::tool {

namespace {

constexpr std::string_view kCommand = "bench";
constexpr int64_t kDefaultElements = int64_t(1) << 20;

void printUsage() {
  // The shared kernel flags, less scast, which bench does not measure.
  std::string kernelFlags = kKernelFlagsHelp;
  const std::string allOps = "--op=qcast|dcast|scast      ";
  if (size_t at = kernelFlags.find(allOps); at != std::string::npos)
    kernelFlags.replace(at, allOps.size(), "--op=qcast|dcast            ");
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
      "                              scripts such as bench/model.py);\n"
      "                              a case with a preset reads\n"
      "                              baked,semantics=PRESET\n"
      "  --n=N                       elements (default: the tensor's, or "
      "%lld)\n"
      "  --runtime-params            pass scales at call time (KernelParams)\n"
      "  --dynamic=SCHEME            qcast: time the dynamic qcast too (the\n"
      "                              *_dynamic rows); the other rows read its\n"
      "                              parameters (a TYPE with '?' scales: the\n"
      "                              reference's choice) at call time\n"
      "  --min-time=SECONDS          time per row (default 0.25)\n"
      "  --format=table|json|csv     output format (default table)\n"
      "%s",
      static_cast<long long>(kDefaultElements), kernelFlags.c_str());
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
    // Second field: "runtime" or "baked", then ",semantics=P" for a case
    // with a preset.
    std::string parameters = c.runtimeParameters ? "runtime" : "baked";
    if (c.preset != SemanticsPreset::Default)
      parameters += ",semantics=" + std::string(semanticsPresetName(c.preset));
    std::printf("%s %s %s\n", std::string(c.name).c_str(), parameters.c_str(),
                text->c_str());
  }
  return kExitSuccess;
}

/// The type text and element count the command line asks for.
struct Target {
  std::string name;
  std::string typeText;
  int64_t n = 0;
  bool runtimeParameters = false;
  /// A case's own scale format (MXFP4's E8M0), over --scale-format.
  std::optional<ScaleFormat> scaleFormat;
  /// A case's preset's knobs (XNNPACK's formula), over the knob flags.
  std::optional<QuantKnobs> knobs;
};

Expected<Target> readTarget(const CommandLine &flags) {
  auto n = readNumber<int64_t>(flags, "n", 0);
  if (!n)
    return n.status();
  Target target;
  target.runtimeParameters = flags.has("runtime-params");
  bool typeGiven = !flags.positional().empty() || flags.has("type-file") ||
                   flags.has("mlir");
  if (std::optional<std::string> name = flags.get("case")) {
    if (typeGiven)
      return usage("TYPE and --case exclude each other");
    const bench::BenchCase *c = bench::findBenchCase(*name);
    if (!c)
      return usage("unknown case '" + *name + "' (see --list)");
    target.name = *name;
    target.n = *n ? *n : kDefaultElements;
    target.runtimeParameters |= c->runtimeParameters;
    if (c->scaleFormat != ScaleFormat::Expressed)
      target.scaleFormat = c->scaleFormat;
    if (c->preset != SemanticsPreset::Default)
      target.knobs = knobsForPreset(c->preset);
    auto text = bench::caseTypeText(*c, target.n);
    if (!text)
      return text.status();
    target.typeText = std::move(*text);
    return target;
  }
  if (!typeGiven)
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
  flags.value("case").value("n").value("min-time").value("format");
  flags.flag("runtime-params");
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

struct BenchHeader {
  std::string op, name;
  size_t n = 0, inputBytes = 0, outputBytes = 0;
};

/// One row as every format prints it; `skipped` is empty for a timed row.
struct BenchResult {
  std::string row, detail;
  bench::Throughput throughput;
  std::string check, skipped;
};

void printTable(const BenchHeader &header,
                const std::vector<BenchResult> &results, double reference,
                double best) {
  std::printf("%s %s: n = %zu, %zu bytes in, %zu bytes out\n",
              header.op.c_str(), header.name.substr(0, 120).c_str(), header.n,
              header.inputBytes, header.outputBytes);
  // Columns as wide as their longest entry ("asmjit_dynamic", "avx512
  // absmax").
  int rowWidth = 11, detailWidth = 8;
  for (const BenchResult &r : results) {
    rowWidth = std::max(rowWidth, static_cast<int>(r.row.size()));
    if (r.skipped.empty())
      detailWidth = std::max(detailWidth, static_cast<int>(r.detail.size()));
  }
  std::printf("%-*s %-*s %9s %8s %8s %8s  %s\n", rowWidth, "row", detailWidth,
              "detail", "el/ns", "GB/s", "vs ref", "vs best", "check");
  for (const BenchResult &r : results) {
    if (!r.skipped.empty()) {
      std::printf("%-*s skipped: %s\n", rowWidth, r.row.c_str(),
                  r.skipped.c_str());
      continue;
    }
    const bench::Throughput &t = r.throughput;
    std::printf("%-*s %-*s %9.3f %8.2f %8s %8s  %s\n", rowWidth, r.row.c_str(),
                detailWidth, r.detail.c_str(), t.elementsPerNs,
                t.gigabytesPerSecond, ratio(t.elementsPerNs, reference).c_str(),
                ratio(t.elementsPerNs, best).c_str(), r.check.c_str());
  }
  std::printf("(vs best: against the fastest row that converts; memory rows "
              "only move the bytes)\n");
}

/// Ratios as numbers, null where there is no base (a skipped row).
nlohmann::json ratioValue(double value, double base) {
  return value > 0 && base > 0 ? nlohmann::json(value / base) : nullptr;
}

void printJson(const BenchHeader &header,
               const std::vector<BenchResult> &results, double reference,
               double best) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchResult &r : results) {
    nlohmann::json row = {{"row", r.row}};
    if (!r.skipped.empty()) {
      row["skipped"] = r.skipped;
    } else {
      double rate = r.throughput.elementsPerNs;
      row["detail"] = r.detail;
      row["elements_per_ns"] = rate;
      row["gigabytes_per_second"] = r.throughput.gigabytesPerSecond;
      row["vs_reference"] = ratioValue(rate, reference);
      row["vs_best"] = ratioValue(rate, best);
      row["check"] = r.check;
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json document = {{"op", header.op},
                             {"type", header.name},
                             {"n", header.n},
                             {"input_bytes", header.inputBytes},
                             {"output_bytes", header.outputBytes},
                             {"rows", std::move(rows)}};
  std::printf("%s\n", document.dump(2).c_str());
}

/// RFC 4180: a field with a comma, quote or newline is quoted, its quotes
/// doubled.
std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void printCsv(const std::vector<BenchResult> &results, double reference,
              double best) {
  std::printf("row,detail,elements_per_ns,gigabytes_per_second,vs_reference,"
              "vs_best,check,skipped\n");
  auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return std::string(text);
  };
  for (const BenchResult &r : results) {
    double rate = r.throughput.elementsPerNs;
    bool timed = r.skipped.empty();
    std::printf("%s,%s,%s,%s,%s,%s,%s,%s\n", csvField(r.row).c_str(),
                csvField(r.detail).c_str(), timed ? number(rate).c_str() : "",
                timed ? number(r.throughput.gigabytesPerSecond).c_str() : "",
                timed && reference > 0 ? number(rate / reference).c_str() : "",
                timed && best > 0 ? number(rate / best).c_str() : "",
                csvField(r.check).c_str(), csvField(r.skipped).c_str());
  }
}

int runBench(const Target &target, KernelRequest request, double minSeconds,
             const std::string &format) {
  bench::WorkloadRequest workloadRequest;
  workloadRequest.name = target.name;
  workloadRequest.typeText = target.typeText;
  workloadRequest.op = request.op;
  workloadRequest.lowering = request.lowering;
  workloadRequest.lowering.runtimeParameters = target.runtimeParameters;
  if (target.scaleFormat)
    workloadRequest.lowering.scaleFormat = *target.scaleFormat;
  if (target.knobs)
    workloadRequest.lowering.knobs = *target.knobs;
  workloadRequest.n = target.n;
  // --dynamic: the dynamic rows compute the scheme; the others read the
  // parameters it chooses (or the type's) at call time.
  LoweringOptions &lowering = workloadRequest.lowering;
  if (lowering.dynamicScheme != DynamicScheme::None) {
    workloadRequest.dynamic = bench::DynamicRequest{
        lowering.dynamicScheme, lowering.dynamicRule, lowering.scaleRounding};
    if (lowering.dynamicScheme == DynamicScheme::Mx)
      lowering.scaleFormat = ScaleFormat::E8M0;
    lowering.dynamicScheme = DynamicScheme::None;
    lowering.dynamicRule = DynamicRule::Default;
    lowering.scaleRounding = ScaleRounding::Floor;
    lowering.runtimeParameters = true;
  }
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

  BenchHeader header{std::string(kernelOpName(w.spec().op)), target.name,
                     w.size(), w.inputBytes(), w.outputBytes()};
  std::vector<BenchResult> results;
  for (const Row &row : rows) {
    const bench::PreparedRow &p = row.prepared;
    BenchResult result{p.name, {}, {}, p.checkNote, p.status.message()};
    if (p.status) {
      result.detail = p.implementation->detail();
      result.throughput = row.throughput;
    }
    results.push_back(std::move(result));
  }
  if (format == "json")
    printJson(header, results, reference, best);
  else if (format == "csv")
    printCsv(results, reference, best);
  else
    printTable(header, results, reference, best);
  return kExitSuccess;
}

} // namespace

int benchCommand(int argc, char **argv) {
  CommandLine flags;
  addKernelFlags(flags);
  flags.value("case").value("n").value("min-time").value("format");
  flags.flag("runtime-params");
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
  std::string format = flags.getOr("format", "table");
  if (format != "table" && format != "json" && format != "csv")
    return reportUsageError(
        kCommand,
        usage("--format must be table, json or csv, not '" + format + "'"));
  return runBench(*target, std::move(*request), *minSeconds, format);
}

} // namespace qjit::tool
