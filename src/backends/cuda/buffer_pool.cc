// The bounded activity-buffer pool.
#include "backends/cuda/buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace nodescope::cupti {

BufferPool::BufferPool(size_t buffer_bytes, size_t max_buffers, uint32_t cupti_version)
    : buffer_bytes_((buffer_bytes + 7) & ~size_t{7}),
      max_buffers_(max_buffers),
      refusal_allowed_(cupti_version >= kFirstCuptiVersionThatAcceptsRefusal) {}

BufferPool::~BufferPool() {
  for (uint8_t* b : pooled_) std::free(b);
  for (uint8_t* b : overflow_) std::free(b);
}

BufferPool::Buffer BufferPool::Request() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      uint8_t* b = free_.back();
      free_.pop_back();
      return {b, buffer_bytes_};
    }
    if (pooled_.size() < max_buffers_) {
      auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes_));
      if (b != nullptr) {
        pooled_.push_back(b);
        return {b, buffer_bytes_};
      }
    } else if (!refusal_allowed_) {
      auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes_));
      if (b != nullptr) {
        overflow_.push_back(b);
        overflowed_.fetch_add(1, std::memory_order_relaxed);
        return {b, buffer_bytes_};
      }
    }
  }
  // Exhausted (or out of memory): refused. Before version 27 only out of memory gets here.
  refused_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

void BufferPool::Complete(uint8_t* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find(overflow_.begin(), overflow_.end(), buffer);
  if (it == overflow_.end()) {
    free_.push_back(buffer);
    return;
  }
  overflow_.erase(it);
  std::free(buffer);
}

size_t BufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pooled_.size();
}

}  // namespace nodescope::cupti
