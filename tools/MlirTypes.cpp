//===- MlirTypes.cpp - The quant types an .mlir file uses -----------------===//
#include "MlirTypes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace qjit::tool {

namespace {

/// Aliases may name aliases; deeper chains (or a cycle) are left unexpanded
/// and the parser reports the alias name it does not know.
constexpr unsigned kMaxAliasDepth = 16;

/// Every use of an alias is a copy of its body, so nested aliases could
/// make a small file expand without bound. One scan may make as many
/// copies as the file has bytes (aliases that use no alias never make
/// more), or this many, and copy 8 bytes per byte of the file, or this
/// many.
constexpr size_t kMinExpansions = size_t{1} << 16;
constexpr size_t kMinExpansionBytes = size_t{256} << 20;

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// The text with comments and string literals blanked (same length, line
/// breaks kept), so that offsets stay those of the source.
std::string codeOf(std::string_view text) {
  std::string code(text);
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '/' && i + 1 < code.size() && code[i + 1] == '/') {
      for (; i < code.size() && code[i] != '\n'; ++i)
        code[i] = ' ';
    } else if (code[i] == '"') {
      code[i] = ' ';
      for (++i; i < code.size() && code[i] != '"' && code[i] != '\n'; ++i) {
        if (code[i] == '\\' && i + 1 < code.size() && code[i + 1] != '\n')
          code[i++] = ' ';
        code[i] = ' ';
      }
      if (i < code.size() && code[i] == '"')
        code[i] = ' ';
    }
  }
  return code;
}

class Scanner {
public:
  explicit Scanner(std::shared_ptr<const TypeSource> source)
      : source_(std::move(source)), code_(codeOf(source_->text)),
        expansionsLeft_(std::max(kMinExpansions, code_.size())),
        bytesLeft_(std::max(kMinExpansionBytes, 8 * code_.size())) {}

  Expected<std::vector<TypeText>> run() {
    findAliases();
    std::vector<TypeText> types;
    size_t at = 0;
    while (at < code_.size()) {
      char c = code_[at];
      if (c == '!') {
        at = bangToken(at, types);
      } else if (c == '%' || c == '@' || c == '#' || c == '^') {
        at = identifierEnd(at + 1); // SSA values, symbols, attributes, blocks
      } else if (isIdentifierChar(c)) {
        size_t end = identifierEnd(at);
        if (std::string_view(code_).substr(at, end - at) == "tensor")
          end = tensorToken(at, end, types);
        at = end;
      } else {
        ++at;
      }
      if (overBudget_)
        return Status::error(
            ErrorCode::InvalidArgument,
            source_->name + ": its type aliases expand to more than " +
                std::to_string(std::max(kMinExpansions, code_.size())) +
                " copies or " +
                std::to_string(std::max(kMinExpansionBytes, 8 * code_.size()) >>
                               20) +
                " MiB (qjit copies an alias at each use)");
    }
    return types;
  }

private:
  struct Alias {
    size_t nameBegin = 0;
    size_t bodyBegin = 0;
    size_t bodyEnd = 0;
    /// Whether it names a quant type or a tensor of one; known once asked.
    mutable std::optional<bool> quant;
  };

  /// The definition of `name` that a use at `at` sees: the last one before
  /// it (files of `// -----` splits redefine aliases), or null.
  const Alias *aliasAt(std::string_view name, size_t at) const {
    auto found = aliases_.find(name);
    if (found == aliases_.end())
      return nullptr;
    const Alias *seen = nullptr;
    for (const Alias &alias : found->second)
      if (alias.nameBegin < at)
        seen = &alias;
    return seen;
  }

  bool isDefinition(size_t at) const { return definitions_.count(at) != 0; }

  size_t identifierEnd(size_t at) const {
    while (at < code_.size() && isIdentifierChar(code_[at]))
      ++at;
    return at;
  }

  size_t skipBlanks(size_t at) const {
    while (at < code_.size() && isBlank(code_[at]))
      ++at;
    return at;
  }

  /// Just past the bracket that closes the one at `open`; npos when the
  /// text ends first.
  size_t closing(size_t open) const {
    int depth = 0;
    for (size_t at = open; at < code_.size(); ++at) {
      char c = code_[at];
      if (c == '<' || c == '{' || c == '(' || c == '[')
        ++depth;
      else if (c == '>' || c == '}' || c == ')' || c == ']')
        if (--depth == 0)
          return at + 1;
    }
    return std::string::npos;
  }

  /// The end of a type starting at `at` that is cut short: its line.
  size_t lineEnd(size_t at) const {
    size_t end = code_.find('\n', at);
    return end == std::string::npos ? code_.size() : end;
  }

  /// `!name = TYPE` at the start of a line: TYPE runs to the first line
  /// break outside brackets.
  void findAliases() {
    for (size_t line = 0; line < code_.size(); line = lineEnd(line) + 1) {
      size_t at = line;
      while (at < code_.size() && (code_[at] == ' ' || code_[at] == '\t'))
        ++at;
      if (at >= code_.size() || code_[at] != '!')
        continue;
      size_t nameEnd = identifierEnd(at + 1);
      size_t equals = skipBlanks(nameEnd);
      if (nameEnd == at + 1 || equals >= code_.size() || code_[equals] != '=')
        continue;
      Alias alias;
      alias.nameBegin = at;
      alias.bodyBegin = skipBlanks(equals + 1);
      int depth = 0;
      size_t end = alias.bodyBegin;
      for (; end < code_.size(); ++end) {
        char c = code_[end];
        if (c == '\n' && depth == 0)
          break;
        if (c == '<' || c == '{' || c == '(' || c == '[')
          ++depth;
        else if ((c == '>' || c == '}' || c == ')' || c == ']') && depth > 0)
          --depth;
      }
      while (end > alias.bodyBegin && isBlank(code_[end - 1]))
        --end;
      alias.bodyEnd = end;
      aliases_[code_.substr(at, nameEnd - at)].push_back(alias);
      definitions_.insert(at);
      line = end;
    }
  }

  /// Appends code[from, to) to `type`, aliases expanded.
  void append(TypeText &type, size_t from, size_t to, unsigned depth) {
    size_t copied = from;
    for (size_t at = from; at < to; ++at) {
      if (code_[at] != '!')
        continue;
      size_t end = identifierEnd(at + 1);
      const Alias *alias =
          aliasAt(std::string_view(code_).substr(at, end - at), at);
      if (!alias || depth >= kMaxAliasDepth) {
        at = end - 1;
        continue;
      }
      copy(type, copied, at);
      if (expansionsLeft_ == 0) {
        overBudget_ = true;
        return;
      }
      --expansionsLeft_;
      append(type, alias->bodyBegin, alias->bodyEnd, depth + 1);
      copied = end;
      at = end - 1;
    }
    copy(type, copied, to);
  }

  void copy(TypeText &type, size_t from, size_t to) {
    if (to <= from || overBudget_)
      return;
    if (to - from > bytesLeft_) {
      overBudget_ = true;
      return;
    }
    bytesLeft_ -= to - from;
    type.pieces.push_back({type.text.size(), from, to - from});
    type.text.append(code_, from, to - from);
  }

  TypeText expand(size_t from, size_t to) {
    TypeText type;
    type.source = source_;
    type.written = from;
    append(type, from, to, 0);
    return type;
  }

  static bool isQuantName(std::string_view name) {
    return name == "!quant" || name.starts_with("!quant.");
  }

  /// The element of `tensor<` whose `<` is at `open`: where its `!` name
  /// starts, or npos when the element is not a `!` type.
  size_t tensorElement(size_t open) const {
    size_t element = open + 1;
    while (element < code_.size() &&
           (isBlank(code_[element]) || code_[element] == 'x' ||
            code_[element] == '?' || code_[element] == '*' ||
            (code_[element] >= '0' && code_[element] <= '9')))
      ++element;
    return element < code_.size() && code_[element] == '!' ? element
                                                           : std::string::npos;
  }

  /// Whether the `!` name at [at, end) is a quant type, or a use of an
  /// alias of a quant type or of a tensor of one.
  bool namesQuantType(size_t at, size_t end, unsigned depth) const {
    std::string_view name = std::string_view(code_).substr(at, end - at);
    if (isQuantName(name))
      return true;
    const Alias *alias = aliasAt(name, at);
    if (!alias || isDefinition(at) || depth >= kMaxAliasDepth)
      return false;
    if (!alias->quant)
      alias->quant = aliasBodyIsQuant(*alias, depth + 1);
    return *alias->quant;
  }

  bool aliasBodyIsQuant(const Alias &alias, unsigned depth) const {
    size_t at = alias.bodyBegin;
    if (at >= alias.bodyEnd)
      return false;
    if (code_[at] == '!')
      return namesQuantType(at, identifierEnd(at + 1), depth);
    size_t end = identifierEnd(at);
    if (std::string_view(code_).substr(at, end - at) != "tensor")
      return false;
    size_t open = skipBlanks(end);
    if (open >= alias.bodyEnd || code_[open] != '<')
      return false;
    size_t element = tensorElement(open);
    return element < alias.bodyEnd &&
           namesQuantType(element, identifierEnd(element + 1), depth);
  }

  size_t bangToken(size_t at, std::vector<TypeText> &types) {
    size_t end = identifierEnd(at + 1);
    std::string_view name = std::string_view(code_).substr(at, end - at);
    if (isQuantName(name)) {
      size_t typeEnd =
          end < code_.size() && code_[end] == '<' ? closing(end) : end;
      if (typeEnd == std::string::npos)
        typeEnd = lineEnd(at);
      types.push_back(expand(at, typeEnd));
      return typeEnd;
    }
    if (namesQuantType(at, end, 0))
      types.push_back(expand(at, end));
    return end;
  }

  /// `tensor` at [at, end): the whole tensor type when its element is a
  /// quant type; otherwise only the keyword is consumed, and its contents
  /// are scanned as any text.
  size_t tensorToken(size_t at, size_t end, std::vector<TypeText> &types) {
    size_t open = skipBlanks(end);
    if (open >= code_.size() || code_[open] != '<')
      return end;
    size_t element = tensorElement(open);
    if (element == std::string::npos ||
        !namesQuantType(element, identifierEnd(element + 1), 0))
      return end;
    size_t typeEnd = closing(open);
    if (typeEnd == std::string::npos)
      typeEnd = lineEnd(at);
    types.push_back(expand(at, typeEnd));
    return typeEnd;
  }

  std::shared_ptr<const TypeSource> source_;
  std::string code_;
  std::map<std::string, std::vector<Alias>, std::less<>> aliases_;
  std::set<size_t> definitions_; ///< Where each alias name is defined.
  size_t expansionsLeft_;        ///< Alias copies the scan may still make.
  size_t bytesLeft_;             ///< Bytes the copies may still take.
  bool overBudget_ = false;
};

} // namespace

Expected<std::vector<TypeText>>
findMlirTypes(std::shared_ptr<const TypeSource> source) {
  return Scanner(std::move(source)).run();
}

} // namespace qjit::tool
