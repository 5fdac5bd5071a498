// Interned names within a byte budget.
#include "analysis/stats/name_pool.h"

#include <cstring>
#include <functional>

namespace nodescope::analysis {

std::pair<uint64_t, uint32_t> NamePool::Locate(std::string_view s) const {
  uint64_t h = MixBits(std::hash<std::string_view>()(s));
  for (;;) {
    const uint32_t id = by_hash_.Find(h);
    if (id == FlatIndexMap<uint64_t>::kAbsent || names_[id] == s) return {h, id};
    h = MixBits(h + 1);  // another name with this hash: the next in the chain
  }
}

std::optional<uint32_t> NamePool::Find(std::string_view s) const {
  const uint32_t id = Locate(s).second;
  if (id == FlatIndexMap<uint64_t>::kAbsent) return std::nullopt;
  return id;
}

std::optional<uint32_t> NamePool::Intern(std::string_view s) {
  const auto [h, found] = Locate(s);
  if (found != FlatIndexMap<uint64_t>::kAbsent) return found;
  const size_t cost = s.size() + kPerNameBytes;
  if (bytes_ + cost > max_bytes_ || names_.size() >= FlatIndexMap<uint64_t>::kAbsent - 1) {
    return std::nullopt;
  }
  bytes_ += cost;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(Store(s));
  by_hash_.FindOrInsert(h, id);
  return id;
}

std::string_view NamePool::Store(std::string_view s) {
  if (s.empty()) return {};
  char* at;
  if (s.size() > kBlockBytes / 16) {  // a long name gets a block of its own
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(s.size()));
    at = blocks_.back().get();
  } else {
    if (block_left_ < s.size()) {
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockBytes));
      current_ = blocks_.back().get();
      block_left_ = kBlockBytes;
    }
    at = current_ + (kBlockBytes - block_left_);
    block_left_ -= s.size();
  }
  std::memcpy(at, s.data(), s.size());
  return {at, s.size()};
}

}  // namespace nodescope::analysis
