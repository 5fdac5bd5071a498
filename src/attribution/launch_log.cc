// The bounded launch log of reconstructed attribution (launch_log.h).
#include "attribution/launch_log.h"

namespace nodescope {
static_assert((uint64_t{1} << 32) % (uint64_t{LaunchLog::kChunk} * LaunchLog::kRing) == 0);

LaunchLog::LaunchLog() : ring_(new std::atomic<Chunk*>[kRing]) {
  for (uint32_t i = 0; i < kRing; ++i) ring_[i].store(nullptr, std::memory_order_relaxed);
}

LaunchLog::~LaunchLog() {
  for (uint32_t i = 0; i < kRing; ++i) delete ring_[i].load();
  for (Chunk* c : free_) delete c;
}

LaunchSlot* LaunchLog::NewSlot(uint32_t* seq) {
  const uint64_t s = next_seq_++;
  *seq = static_cast<uint32_t>(s);
  if (s % kChunk == 0) {  // a new chunk: a released one if any (once per kChunk launches)
    const uint64_t number = s / kChunk;
    std::atomic<Chunk*>& at = ring_[number % kRing];
    chunk_slots_ = nullptr;
    if (at.load(std::memory_order_acquire) == nullptr) {
      Chunk* c = nullptr;
      {
        std::lock_guard<std::mutex> lock(free_mu_);
        if (!free_.empty()) {
          c = free_.back();
          free_.pop_back();
        }
      }
      if (c == nullptr) {
        c = new Chunk;
        allocated_.fetch_add(1, std::memory_order_relaxed);
      }
      c->number = number;
      at.store(c, std::memory_order_release);
      chunk_slots_ = c->slots;
    }
    owner_chunk_.store(number + 1, std::memory_order_release);
  }
  if (chunk_slots_ == nullptr) return nullptr;
  LaunchSlot* slot = &chunk_slots_[s % kChunk];
  // The sequence number first: a thread reading this slot for an earlier launch (StreamOf) sees
  // it changed. Sequentially consistent, as every write of `stream` (no fence: ThreadSanitizer
  // does not model them): a StreamOf that reads a stream written after it also reads the new
  // number. `ended`, `resolved` and `verdict` were reset by the decoder's Release.
  slot->seq.store(*seq, std::memory_order_seq_cst);
  slot->stream.store(0, std::memory_order_seq_cst);
  slot->graph_id.store(0, std::memory_order_relaxed);
  slot->version.store(0, std::memory_order_relaxed);
  slot->dispatches.store(0, std::memory_order_relaxed);
  slot->plain.store(0, std::memory_order_relaxed);
  slot->orphans_at_begin.store(0, std::memory_order_relaxed);
  for (std::atomic<uint64_t>& p : slot->peers) p.store(0, std::memory_order_relaxed);
  slot->peer_count.store(0, std::memory_order_release);
  return slot;
}

LaunchSlot* LaunchLog::SlotAt(uint32_t seq) const {
  Chunk* c = ring_[(seq / kChunk) % kRing].load(std::memory_order_acquire);
  return c == nullptr ? nullptr : &c->slots[seq % kChunk];
}

uint64_t LaunchLog::StreamOf(const LaunchSlot* slot, uint32_t seq) {
  const uint32_t before = slot->seq.load(std::memory_order_seq_cst);
  const uint64_t stream = slot->stream.load(std::memory_order_seq_cst);
  const uint32_t after = slot->seq.load(std::memory_order_seq_cst);
  if (before != seq || after != seq || stream == 0) return LaunchSlot::kUnknownStream;
  return stream;
}

void LaunchLog::AddPeer(LaunchSlot* slot, uint64_t stream) {
  const uint32_t n = slot->peer_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n && i < LaunchSlot::kMaxPeers; ++i) {
    if (slot->peers[i].load(std::memory_order_acquire) == stream) return;
  }
  for (;;) {
    const uint32_t at = slot->peer_count.fetch_add(1, std::memory_order_acq_rel);
    if (at >= LaunchSlot::kMaxPeers) return;  // past 8: never proven
    uint64_t empty = 0;
    // Taken (a write meant for the launch this slot held before): the next one.
    if (slot->peers[at].compare_exchange_strong(empty, stream, std::memory_order_acq_rel)) return;
  }
}

void LaunchLog::Discover() {
  const uint64_t end = owner_chunk_.load(std::memory_order_acquire);
  if (end > discovered_to_ + kRing) discovered_to_ = end - kRing;
  for (; discovered_to_ < end; ++discovered_to_) {
    Chunk* c = ring_[discovered_to_ % kRing].load(std::memory_order_acquire);
    if (c != nullptr && c->number == discovered_to_) held_.push_back(c);
  }
}

LaunchSlot* LaunchLog::FindSlow(uint32_t seq, Chunk** chunk) {
  const uint64_t low = seq / kChunk;
  for (int pass = 0; pass < 2; ++pass) {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
      if (((*it)->number & kNumberMask) == low) {
        last_ = *chunk = *it;
        return &(*it)->slots[seq % kChunk];
      }
    }
    if (pass == 0) Discover();
  }
  return nullptr;
}

void LaunchLog::Sweep() {
  const uint64_t owner = owner_chunk_.load(std::memory_order_acquire);
  if (!sweep_due_ && owner == swept_owner_) return;
  // Launches checked one by one once per chunk the owner starts (a launch that made no dispatch,
  // one whose dispatch was lost, or an aged chunk); else only chunks counted complete.
  const bool scan = owner != swept_owner_;
  swept_owner_ = owner;
  sweep_due_ = false;
  Discover();
  for (size_t i = 0; i < held_.size();) {
    Chunk* c = held_[i];
    bool go = c->done == kChunk;
    if (!go && scan) {
      const bool aged = c->number + kAgeChunks <= newest_decoded_;
      go = true;
      for (const LaunchSlot& s : c->slots) {
        if (s.ended.load(std::memory_order_acquire) == 0 ||
            (!aged && s.resolved < s.dispatches.load(std::memory_order_relaxed))) {
          go = false;
          break;
        }
      }
    }
    if (go) {
      Release(i);
    } else {
      ++i;
    }
  }
}

void LaunchLog::Release(size_t at) {
  Chunk* c = held_[at];
  for (LaunchSlot& s : c->slots) {
    s.ended.store(0, std::memory_order_relaxed);
    s.resolved = 0;
    s.verdict = 0;
    s.foreign = 0;
    s.foreign_scanned = 0;
  }
  c->done = 0;
  released_launches_ += kChunk;
  ring_[c->number % kRing].store(nullptr, std::memory_order_release);
  if (last_ == c) last_ = nullptr;
  held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(at));
  std::lock_guard<std::mutex> lock(free_mu_);  // the owner's reuse sees the reset
  free_.push_back(c);
}

}  // namespace nodescope
