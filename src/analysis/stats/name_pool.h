// Interned names within a byte budget, for the analysis commands: about 40 bytes per distinct
// name beside its text (a std::string and a hash-map node per name would cost over 100), and
// views that stay valid while the pool lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "base/flat_index_map.h"

namespace nodescope::analysis {

class NamePool {
 public:
  // What a name costs besides its text: its view and its share of the hash index.
  static constexpr size_t kPerNameBytes = 40;

  explicit NamePool(size_t max_bytes) : max_bytes_(max_bytes) {}
  NamePool(const NamePool&) = delete;
  NamePool& operator=(const NamePool&) = delete;

  // The id of `s`, adding it when new; nullopt when adding it would pass max_bytes.
  std::optional<uint32_t> Intern(std::string_view s);
  // The id of `s` if it was added; never adds it.
  std::optional<uint32_t> Find(std::string_view s) const;
  std::string_view Get(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }
  size_t bytes() const { return bytes_; }  // text and kPerNameBytes per name

 private:
  // Where `s` is or would go: the slot key of the first hash in its probe chain that is free or
  // holds `s`, and the id found there (FlatIndexMap<uint64_t>::kAbsent when free).
  std::pair<uint64_t, uint32_t> Locate(std::string_view s) const;
  std::string_view Store(std::string_view s);

  static constexpr size_t kBlockBytes = size_t{1} << 20;
  size_t max_bytes_;
  size_t bytes_ = 0;
  FlatIndexMap<uint64_t> by_hash_;  // a hash of the text (rehashed on collision) -> id
  std::vector<std::string_view> names_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_ = nullptr;  // the block short names go to
  size_t block_left_ = 0;    // bytes free at its end
};

}  // namespace nodescope::analysis
