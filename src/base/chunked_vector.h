// Append-only storage in fixed-size chunks: appending never moves or copies earlier elements and
// allocates once per chunk, never per element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace nodescope {

template <typename T, size_t kChunkElems = 4096>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T>, "records are plain data");

 public:
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;

  void push_back(const T& v) {
    if (size_ % kChunkElems == 0) AddChunk();
    chunks_.back()[size_ % kChunkElems] = v;
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i / kChunkElems][i % kChunkElems]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunkElems][i % kChunkElems]; }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

  // Visits every element in order; cheaper than operator[] in a loop.
  template <typename F>
  void ForEach(F&& f) const {
    size_t left = size_;
    for (const auto& chunk : chunks_) {
      size_t n = left < kChunkElems ? left : kChunkElems;
      for (size_t i = 0; i < n; ++i) f(chunk[i]);
      left -= n;
    }
  }
  // Visits elements [first, size()) in order, mutably (e.g. the records one buffer added).
  template <typename F>
  void ForEachFrom(size_t first, F&& f) {
    for (size_t c = first / kChunkElems; first < size_; ++c) {
      const size_t end = std::min(size_, (c + 1) * kChunkElems);
      T* chunk = chunks_[c].get();
      for (size_t i = first; i < end; ++i) f(chunk[i % kChunkElems]);
      first = end;
    }
  }

 private:
  void AddChunk() { chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunkElems)); }

  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace nodescope
