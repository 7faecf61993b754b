//===- TypeTextMemo.h - Specs already lowered from type text ----*- C++ -*-===//
//
// compile(typeText, op, options) would parse and lower the text on every
// call, which costs microseconds to milliseconds for types with many
// scales. The memo maps (text, op, lowering options) to the spec they
// lowered to, with its SpecKey hash, so a repeated call goes straight to
// the kernel cache. Bounded LRU; thread-safe; lookups never wait behind a
// parse (the caller parses outside the lock and inserts the result).
//
//===----------------------------------------------------------------------===//
#ifndef QJIT_RUNTIME_TYPETEXTMEMO_H
#define QJIT_RUNTIME_TYPETEXTMEMO_H

#include "qjit/KernelSpec.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace qjit {

/// A spec shared between the memo and the kernel cache, with its
/// structuralHash.
struct LoweredSpec {
  std::shared_ptr<const KernelSpec> spec;
  size_t hash = 0;
};

class TypeTextMemo {
public:
  /// Keeps at most `capacity` specs (0: keeps none).
  explicit TypeTextMemo(size_t capacity);
  ~TypeTextMemo();
  TypeTextMemo(const TypeTextMemo &) = delete;
  TypeTextMemo &operator=(const TypeTextMemo &) = delete;

  /// The spec lowered from exactly this text, op and options, if known.
  /// Counts a hit when found.
  std::shared_ptr<const LoweredSpec> find(std::string_view text, KernelOp op,
                                          const LoweringOptions &options);
  /// Remembers what the text lowered to (evicting the least recently used
  /// entry when full) and returns what is remembered: the first of two
  /// racing inserts, so that both callers share one spec object.
  std::shared_ptr<const LoweredSpec>
  insert(std::string_view text, KernelOp op, const LoweringOptions &options,
         std::shared_ptr<const LoweredSpec> lowered);
  void clear();
  /// find() calls that found a spec.
  uint64_t hits() const;
  /// hits() summed over every memo of the process.
  static uint64_t processHits();

private:
  /// A lookup key; an entry's key points into the entry.
  struct TextKey {
    std::string_view text;
    KernelOp op;
    const LoweringOptions *options;
    size_t hash;
    TextKey(std::string_view text, KernelOp op, const LoweringOptions &options);
    static bool sameOptions(const LoweringOptions &a, const LoweringOptions &b);
    friend bool operator==(const TextKey &a, const TextKey &b) {
      return a.hash == b.hash && a.op == b.op && a.text == b.text &&
             sameOptions(*a.options, *b.options);
    }
  };
  struct TextKeyHash {
    size_t operator()(const TextKey &key) const noexcept { return key.hash; }
  };
  struct Entry;
  using LruList = std::list<TextKey>;
  using EntryMap =
      std::unordered_map<TextKey, std::unique_ptr<Entry>, TextKeyHash>;

  const size_t capacity_;
  mutable std::mutex mutex_;
  EntryMap entries_;
  LruList lru_; ///< Most recently used first.
  uint64_t hits_ = 0;
};

} // namespace qjit

#endif // QJIT_RUNTIME_TYPETEXTMEMO_H
