// Each distinct text once, by a code (its position): the text columns of the Python package's
// tables (pandas categories) and of GpuActivityTable. Looked up without a copy.
#pragma once

#include <cstdint>
#include <deque>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nodescope::analysis {

class StringIndex {
 public:
  uint32_t Of(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const auto code = static_cast<uint32_t>(texts_.size());
    texts_.emplace_back(s);  // a deque: the views in index_ stay valid
    index_.emplace(texts_.back(), code);
    return code;
  }
  // The text's code, compared first with `last`, the code of the text asked for before (a
  // category or scope repeats from one event to the next: no hash then); updates `last`.
  uint32_t OfRepeated(std::string_view s, uint32_t& last) {
    if (last < texts_.size() && texts_[last] == s) return last;
    last = Of(s);
    return last;
  }
  const std::deque<std::string>& texts() const { return texts_; }
  std::vector<std::string> Take() {
    index_.clear();
    std::vector<std::string> out(std::make_move_iterator(texts_.begin()),
                                 std::make_move_iterator(texts_.end()));
    texts_.clear();
    return out;
  }

 private:
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, uint32_t> index_;
};

}  // namespace nodescope::analysis
