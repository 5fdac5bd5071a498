// Building the columns of the Python package's tables: numbers in std::vectors handed to NumPy
// without a copy (the array owns the vector through a capsule), text as integer codes into one
// list of distinct strings (pandas.Categorical.from_codes on the Python side).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nodescope::python {

// The column itself, moved into the array's owner: no copy.
template <typename T, typename Alloc>
pybind11::array_t<T> MoveArray(std::vector<T, Alloc>&& v) {
  using Vector = std::vector<T, Alloc>;
  auto* held = new Vector(std::move(v));
  pybind11::capsule owner(held, [](void* p) { delete static_cast<Vector*>(p); });
  return pybind11::array_t<T>(static_cast<pybind11::ssize_t>(held->size()), held->data(), owner);
}

// A bool column (std::vector<bool> is packed: NumPy needs bytes).
inline pybind11::array BoolArray(std::vector<uint8_t>&& v) {
  return MoveArray(std::move(v)).attr("view")("bool");
}

// Each distinct text once, by code.
class StringCodes {
 public:
  uint32_t Of(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const auto code = static_cast<uint32_t>(texts_.size());
    texts_.emplace_back(s);  // a deque: the views in index_ stay valid
    index_.emplace(texts_.back(), code);
    return code;
  }
  pybind11::list List() const {
    pybind11::list out;
    for (const std::string& s : texts_) out.append(pybind11::str(s));
    return out;
  }

 private:
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, uint32_t> index_;
};

}  // namespace nodescope::python
