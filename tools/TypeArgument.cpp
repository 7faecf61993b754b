//===- TypeArgument.cpp - Where a command's TYPE comes from ---------------===//
#include "TypeArgument.h"

#include "FileIO.h"
#include "MlirTypes.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace qjit::tool {

namespace {

Status usage(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

std::optional<unsigned> readPositive(std::string_view text) {
  unsigned value = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0)
    return std::nullopt;
  return value;
}

/// --pick's value: an index or where the type starts.
struct Pick {
  unsigned index = 0; ///< 1-based; 0 when a position is given.
  SourcePosition position;
};

std::optional<Pick> readPick(std::string_view text) {
  Pick pick;
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    std::optional<unsigned> index = readPositive(text);
    if (!index)
      return std::nullopt;
    pick.index = *index;
    return pick;
  }
  std::optional<unsigned> line = readPositive(text.substr(0, colon));
  std::optional<unsigned> column = readPositive(text.substr(colon + 1));
  if (!line || !column)
    return std::nullopt;
  pick.position = {*line, *column};
  return pick;
}

Expected<TypeText> pickMlirType(const TypeArgument &argument,
                                std::shared_ptr<const TypeSource> source) {
  Expected<std::vector<TypeText>> found = findMlirTypes(source);
  if (!found)
    return found.status();
  std::vector<TypeText> &types = *found;
  const std::string &path = source->name;
  if (types.empty())
    return usage(path + " uses no quant type");
  std::string listing =
      " (qjit parse --mlir=" + argument.value + " lists them)";
  if (argument.pick.empty()) {
    if (types.size() == 1)
      return types[0];
    return usage(path + " uses " + std::to_string(types.size()) +
                 " quant types: choose one with --pick=N or --pick=LINE:COL" +
                 listing);
  }
  std::optional<Pick> pick = readPick(argument.pick);
  if (!pick)
    return usage("invalid --pick '" + argument.pick +
                 "' (expected N or LINE:COL, 1-based)");
  if (pick->index != 0) {
    if (pick->index > types.size())
      return usage("--pick=" + argument.pick + ", but " + path + " uses " +
                   std::to_string(types.size()) + " quant types" + listing);
    return types[pick->index - 1];
  }
  for (const TypeText &type : types) {
    SourcePosition at = positionOf(*source, type.written);
    if (at.line == pick->position.line && at.column == pick->position.column)
      return type;
  }
  return usage("no quant type starts at " + path + ":" + argument.pick +
               listing);
}

} // namespace

void addTypeFlags(CommandLine &flags) {
  flags.value("type-file").value("mlir").value("pick");
}

TypeArgument typeArgumentOf(const std::string &positional) {
  if (positional == "-")
    return {TypeArgument::Kind::Stdin, "", ""};
  if (positional.starts_with('@'))
    return {TypeArgument::Kind::File, positional.substr(1), ""};
  return {TypeArgument::Kind::Text, positional, ""};
}

Expected<TypeArgument> readTypeArgument(const CommandLine &flags) {
  const std::vector<std::string> &positional = flags.positional();
  std::optional<std::string> typeFile = flags.get("type-file");
  std::optional<std::string> mlir = flags.get("mlir");
  if (flags.has("pick") && !mlir)
    return usage("--pick chooses a type of --mlir=FILE");
  if (positional.size() > 1)
    return usage("expected one TYPE, got " + std::to_string(positional.size()) +
                 " arguments (quote a type that contains spaces)");
  unsigned sources = static_cast<unsigned>(positional.size()) +
                     (typeFile ? 1 : 0) + (mlir ? 1 : 0);
  if (sources == 0)
    return usage("missing TYPE (an argument, @FILE, -, --type-file=FILE or "
                 "--mlir=FILE)");
  if (sources > 1)
    return usage("give TYPE once: an argument, --type-file or --mlir");
  if (typeFile)
    return *typeFile == "-"
               ? TypeArgument{TypeArgument::Kind::Stdin, "", ""}
               : TypeArgument{TypeArgument::Kind::File, *typeFile, ""};
  if (mlir)
    return TypeArgument{TypeArgument::Kind::Mlir, *mlir,
                        flags.getOr("pick", "")};
  return typeArgumentOf(positional[0]);
}

Expected<std::shared_ptr<const TypeSource>>
readTypeSource(const TypeArgument &argument) {
  auto source = std::make_shared<TypeSource>();
  if (argument.kind == TypeArgument::Kind::Text) {
    source->name = "<input>";
    source->text = argument.value;
    return std::shared_ptr<const TypeSource>(std::move(source));
  }
  bool fromStdin =
      argument.kind == TypeArgument::Kind::Stdin ||
      (argument.kind == TypeArgument::Kind::Mlir && argument.value == "-");
  Expected<std::vector<uint8_t>> bytes =
      fromStdin ? readStandardInput() : readFile(argument.value);
  if (!bytes)
    return bytes.status();
  source->name = fromStdin ? "<stdin>" : argument.value;
  source->text.assign(bytes->begin(), bytes->end());
  return std::shared_ptr<const TypeSource>(std::move(source));
}

Expected<TypeText> loadType(const TypeArgument &argument) {
  Expected<std::shared_ptr<const TypeSource>> source = readTypeSource(argument);
  if (!source)
    return source.status();
  if (argument.kind == TypeArgument::Kind::Mlir)
    return pickMlirType(argument, std::move(*source));
  return wholeSourceType(std::move(*source));
}

} // namespace qjit::tool
