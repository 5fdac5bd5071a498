// The activity buffers handed to CUPTI: a bounded pool, safe to call from any thread, with the
// refusal policy that depends on the CUPTI version. No CUPTI header: unit-tested without a GPU.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace nodescope::cupti {

// CUPTI API versions before 27 (CUDA 12.9) can crash when a buffer request is refused (kineto
// never refuses for that reason); from 27 a refusal makes CUPTI drop records and count them.
constexpr uint32_t kFirstCuptiVersionThatAcceptsRefusal = 27;

// A fixed number of equal buffers. When all are in flight a request is refused if the CUPTI
// version allows it (CUPTI then drops records and counts them); otherwise an overflow buffer is
// handed out, counted, and freed when it completes, so the pool keeps at most count * size.
// Request() and Complete() run on CUPTI's threads: one mutex per buffer (megabytes), none per
// record, and no call into CUPTI or back into the tracer.
class BufferPool {
 public:
  BufferPool(size_t buffer_bytes, size_t max_buffers, uint32_t cupti_version);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  struct Buffer {
    uint8_t* data = nullptr;  // nullptr: refused
    size_t size = 0;
  };
  Buffer Request();
  // Takes back a buffer from Request() once its records are read: an overflow buffer is freed.
  void Complete(uint8_t* buffer);

  size_t buffer_bytes() const { return buffer_bytes_; }
  bool refusal_allowed() const { return refusal_allowed_; }
  size_t allocated() const;  // pooled buffers ever allocated (at most max_buffers)
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  uint64_t overflowed() const { return overflowed_.load(std::memory_order_relaxed); }

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  const bool refusal_allowed_;
  mutable std::mutex mu_;
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> pooled_;    // every pooled buffer, in flight or free
  std::vector<uint8_t*> overflow_;  // overflow buffers in flight
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> overflowed_{0};
};

}  // namespace nodescope::cupti
