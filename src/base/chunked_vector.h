// Append-only storage in fixed-size chunks: appending never moves or copies earlier elements and
// allocates once per chunk, never per element.
//
// Indices are absolute: size() is one past the last element ever appended. ReleaseBefore() frees
// whole chunks at the front (a ring window, backends/ring_window.h) while every index stays what
// it was; first_index() is then the first element still held and held() how many are. Released
// chunks are kept and reused by later appends, so a window that keeps releasing allocates nothing
// once it is full (chunks_allocated() stays flat).
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
  static constexpr size_t kChunkSize = kChunkElems;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;

  void push_back(const T& v) {
    if (size_ % kChunkElems == 0) AddChunk();
    chunks_.back()[size_ % kChunkElems] = v;
    ++size_;
  }
  // One past the last element appended (absolute; unchanged by ReleaseBefore()).
  size_t size() const { return size_; }
  bool empty() const { return held() == 0; }
  // The first element still held, and how many are.
  size_t first_index() const { return base_chunk_ * kChunkElems + front_skip_; }
  size_t held() const { return size_ - first_index(); }
  // Absolute indices in [first_index(), size()).
  T& operator[](size_t i) { return chunks_[i / kChunkElems - base_chunk_][i % kChunkElems]; }
  const T& operator[](size_t i) const {
    return chunks_[i / kChunkElems - base_chunk_][i % kChunkElems];
  }
  void clear() {
    chunks_.clear();
    spare_.clear();
    size_ = 0;
    base_chunk_ = 0;
    front_skip_ = 0;
  }

  // Releases the whole chunks holding only elements before `index` (never the chunk being
  // filled); returns how many elements left. Their memory is kept for reuse.
  size_t ReleaseBefore(size_t index) {
    index = std::min(index, size_);
    const size_t before = first_index();
    size_t n = 0;  // whole chunks entirely below index, not the one appends go to
    while (n + 1 < chunks_.size() && (base_chunk_ + n + 1) * kChunkElems <= index) ++n;
    if (n == 0) return 0;
    for (size_t c = 0; c < n; ++c) spare_.push_back(std::move(chunks_[c]));
    chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(n));
    base_chunk_ += n;
    front_skip_ = 0;
    return first_index() - before;
  }
  // Releases every element held (streaming: the window was written); appends go on at size().
  // Returns how many were released.
  size_t ReleaseAll() {
    const size_t released = held();
    if (released == 0) return 0;
    const bool partial = size_ % kChunkElems != 0;
    const size_t keep = partial ? 1 : 0;  // the chunk being filled stays where appends go
    const size_t n = chunks_.size() - keep;
    for (size_t c = 0; c < n; ++c) spare_.push_back(std::move(chunks_[c]));
    chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(n));
    base_chunk_ += n;
    front_skip_ = partial ? size_ % kChunkElems : 0;
    return released;
  }
  // Chunks ever allocated (held + spare): flat once a window is full.
  size_t chunks_allocated() const { return chunks_.size() + spare_.size(); }
  size_t chunks_held() const { return chunks_.size(); }

  // The first and last element of held chunk `c` (0 = the oldest), for window decisions.
  const T& chunk_front(size_t c) const { return chunks_[c][c == 0 ? front_skip_ : 0]; }
  const T& chunk_back(size_t c) const {
    const bool last = c + 1 == chunks_.size() && size_ % kChunkElems != 0;
    return chunks_[c][last ? size_ % kChunkElems - 1 : kChunkElems - 1];
  }

  // Visits every held element in order; cheaper than operator[] in a loop.
  template <typename F>
  void ForEach(F&& f) const {
    size_t i = first_index();
    for (const auto& chunk : chunks_) {
      const size_t end = std::min(size_, (i / kChunkElems + 1) * kChunkElems);
      for (; i < end; ++i) f(chunk[i % kChunkElems]);
    }
  }
  // Visits elements [first, size()) in order, mutably (e.g. the records one buffer added);
  // elements already released are skipped.
  template <typename F>
  void ForEachFrom(size_t first, F&& f) {
    first = std::max(first, first_index());
    for (size_t c = first / kChunkElems; first < size_; ++c) {
      const size_t end = std::min(size_, (c + 1) * kChunkElems);
      T* chunk = chunks_[c - base_chunk_].get();
      for (size_t i = first; i < end; ++i) f(chunk[i % kChunkElems]);
      first = end;
    }
  }
  // Appends the held elements of `other` from `first` on (a snapshot of a window; this starts
  // at index 0 when empty).
  void AppendFrom(const ChunkedVector& other, size_t first = 0) {
    first = std::max(first, other.first_index());
    while (first < other.size_) {
      const size_t end = std::min(other.size_, (first / kChunkElems + 1) * kChunkElems);
      const T* src = other.chunks_[first / kChunkElems - other.base_chunk_].get();
      for (size_t i = first; i < end; ++i) push_back(src[i % kChunkElems]);
      first = end;
    }
  }

 private:
  void AddChunk() {
    if (!spare_.empty()) {
      chunks_.push_back(std::move(spare_.back()));
      spare_.pop_back();
      return;
    }
    chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunkElems));
  }

  std::vector<std::unique_ptr<T[]>> chunks_;  // chunks_[0] holds index base_chunk_ * kChunkElems
  std::vector<std::unique_ptr<T[]>> spare_;   // released, reused by AddChunk
  size_t size_ = 0;
  size_t base_chunk_ = 0;
  size_t front_skip_ = 0;  // elements of chunks_[0] released by ReleaseAll
};

}  // namespace nodescope
