// Building the columns of the Python package's tables: numbers in std::vectors handed to NumPy
// without a copy (the array owns the vector through a capsule), text as integer codes into one
// list of distinct strings (pandas.Categorical.from_codes on the Python side).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/stats/string_index.h"

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

// Each distinct text once, by code; List() gives the codes' texts to Python.
class StringCodes : public analysis::StringIndex {
 public:
  pybind11::list List() const {
    pybind11::list out;
    for (const std::string& s : texts()) out.append(pybind11::str(s));
    return out;
  }
};

}  // namespace nodescope::python
