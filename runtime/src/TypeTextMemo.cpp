//===- TypeTextMemo.cpp - Specs already lowered from type text ------------===//
#include "TypeTextMemo.h"

#include "WordHash.h"

#include <atomic>

namespace qjit {

namespace {

std::atomic<uint64_t> processHitCount;

} // namespace

struct TypeTextMemo::Entry {
  std::string text;
  LoweringOptions options;
  std::shared_ptr<const LoweredSpec> lowered;
  LruList::iterator lruPosition;
};

TypeTextMemo::TextKey::TextKey(std::string_view text, KernelOp op,
                               const LoweringOptions &options)
    : text(text), op(op), options(&options) {
  using wordhash::mix;
  uint64_t state = wordhash::mixBytes(0, text);
  for (uint64_t word :
       {uint64_t(op), uint64_t(options.knobs.scaleOp),
        uint64_t(options.knobs.zeroPoint), uint64_t(options.knobs.rounding),
        uint64_t(options.knobs.saturate),
        uint64_t(options.perAxisDequantizeInF64), uint64_t(options.unpacked),
        uint64_t(options.runtimeParameters), uint64_t(options.dynamicScheme),
        uint64_t(options.dynamicRule), uint64_t(options.scaleRounding),
        uint64_t(options.scaleFormat)})
    state = mix(state, word);
  state = wordhash::mixWords(state, options.shape.size(), [&](size_t i) {
    return static_cast<uint64_t>(options.shape[i]);
  });
  hash = static_cast<size_t>(wordhash::finish(state));
}

bool TypeTextMemo::TextKey::sameOptions(const LoweringOptions &a,
                                        const LoweringOptions &b) {
  return a.knobs == b.knobs &&
         a.perAxisDequantizeInF64 == b.perAxisDequantizeInF64 &&
         a.unpacked == b.unpacked &&
         a.runtimeParameters == b.runtimeParameters &&
         a.dynamicScheme == b.dynamicScheme && a.dynamicRule == b.dynamicRule &&
         a.scaleRounding == b.scaleRounding && a.scaleFormat == b.scaleFormat &&
         a.shape == b.shape;
}

TypeTextMemo::TypeTextMemo(size_t capacity) : capacity_(capacity) {}
TypeTextMemo::~TypeTextMemo() = default;

std::shared_ptr<const LoweredSpec>
TypeTextMemo::find(std::string_view text, KernelOp op,
                   const LoweringOptions &options) {
  TextKey key(text, op, options);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end())
    return nullptr;
  ++hits_;
  processHitCount.fetch_add(1, std::memory_order_relaxed);
  lru_.splice(lru_.begin(), lru_, it->second->lruPosition);
  return it->second->lowered;
}

std::shared_ptr<const LoweredSpec>
TypeTextMemo::insert(std::string_view text, KernelOp op,
                     const LoweringOptions &options,
                     std::shared_ptr<const LoweredSpec> lowered) {
  if (capacity_ == 0)
    return lowered;
  // Built outside the lock: copying a long text or shape takes a while.
  auto entry = std::make_unique<Entry>();
  entry->text = text;
  entry->options = options;
  entry->lowered = lowered;
  TextKey key(entry->text, op, entry->options);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end())
    return it->second->lowered;
  entry->lruPosition = lru_.insert(lru_.begin(), key);
  entries_.emplace(key, std::move(entry));
  if (entries_.size() > capacity_) {
    // Erased by iterator: the key in the list points into the entry.
    entries_.erase(entries_.find(lru_.back()));
    lru_.pop_back();
  }
  return lowered;
}

void TypeTextMemo::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  lru_.clear();
}

uint64_t TypeTextMemo::processHits() {
  return processHitCount.load(std::memory_order_relaxed);
}

uint64_t TypeTextMemo::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

} // namespace qjit
