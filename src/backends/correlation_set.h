// A set of correlation ids written by application threads and read by the decoding thread, with
// no lock and no allocation after construction: slot = id mod 2^20, so an id is forgotten once
// another id 2^20 later lands in its slot (about a million API calls later). Holds the picked
// launches of sampled tracing, the only ones whose records are kept (launch_sampler.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace nodescope {

class CorrelationSet {
 public:
  static constexpr uint32_t kSlots = 1u << 20;

  CorrelationSet() : slots_(new std::atomic<uint32_t>[kSlots]()) {}

  void Add(uint32_t id) { slots_[id & (kSlots - 1)].store(id, std::memory_order_release); }
  bool Contains(uint32_t id) const {
    return id != 0 && slots_[id & (kSlots - 1)].load(std::memory_order_acquire) == id;
  }

 private:
  std::unique_ptr<std::atomic<uint32_t>[]> slots_;
};

}  // namespace nodescope
