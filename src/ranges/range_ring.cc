// Ring-mode range logs: fixed slots written under a sequence number, interned names.
#include "ranges/range_ring.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "model/trace.h"
#include "ranges/range_names.h"

namespace nodescope {
namespace ranges_internal {
namespace {
std::atomic<uint64_t> g_mapped_bytes{0};
}  // namespace

void* AllocatePopulated(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  g_mapped_bytes.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

uint64_t MappedBytes() { return g_mapped_bytes.load(std::memory_order_relaxed); }

}  // namespace ranges_internal

namespace {

// Slots looked at for one range before it is given up (every one of them holding an open range).
constexpr int kMaxSkips = 16;

void Bump(std::atomic<uint64_t>& counter) {  // owner thread only: no read-modify-write needed
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace

RangeRing* RangeRing::Create(uint32_t slots) {
  const uint32_t chunk_slots = slots < kChunkSlots ? slots : kChunkSlots;
  const uint32_t chunks = slots / chunk_slots;
  uint32_t chunk_shift = 0;
  while ((1u << chunk_shift) < chunk_slots) ++chunk_shift;
  void* mem =
      ranges_internal::AllocatePopulated(sizeof(RangeRing) + sizeof(std::atomic<Slot*>) * chunks);
  if (mem == nullptr) return nullptr;
  auto* table = reinterpret_cast<std::atomic<Slot*>*>(static_cast<char*>(mem) + sizeof(RangeRing));
  for (uint32_t i = 0; i < chunks; ++i) new (&table[i]) std::atomic<Slot*>(nullptr);
  return new (mem) RangeRing(table, slots - 1, chunk_shift);
}

RangeRing::Slot* RangeRing::MapChunk(uint64_t position) {
  const uint32_t chunk_slots = chunk_mask_ + 1;
  void* mem = ranges_internal::AllocatePopulated(sizeof(Slot) * chunk_slots);
  if (mem == nullptr) return nullptr;
  auto* chunk = static_cast<Slot*>(mem);
  for (uint32_t i = 0; i < chunk_slots; ++i) new (&chunk[i]) Slot();
  chunks_[(position & mask_) >> chunk_shift_].store(chunk, std::memory_order_release);
  return &chunk[position & chunk_mask_];
}

uint64_t RangeRing::Record(uint64_t thread_bits, uint32_t tid, std::string_view name,
                           uint32_t domain, uint64_t parent, uint8_t flags, uint64_t start_ns,
                           uint64_t written_until_ns) {
  uint64_t position = next_.load(std::memory_order_relaxed);
  for (int skips = 0; skips < kMaxSkips; ++skips, ++position) {
    Slot* slot = SlotAt(position);
    if (slot == nullptr) [[unlikely]] {  // the ring's first pass: once per chunk
      slot = MapChunk(position);
      if (slot == nullptr) break;
    }
    Slot& s = *slot;
    // This thread (or the log's previous owner, before it handed the log over under a lock)
    // wrote the number; a part's reader may have set kWrittenBit since.
    const uint32_t seq = s.seq.load(std::memory_order_relaxed) & ~kWrittenBit;
    const uint64_t end_ns = seq != 0 ? s.end_ns.load(std::memory_order_acquire) : 0;
    if (seq != 0 && end_ns == 0) continue;  // open: kept
    // Taken from here on: after this exchange no reader marks the old range written.
    const uint32_t was = s.seq.exchange((seq + 1) & ~kWrittenBit, std::memory_order_acq_rel);
    if (seq != 0) {
      Bump((was & kWrittenBit) != 0 || end_ns < written_until_ns ? released_ : unwritten_);
    }
    std::string_view interned;
    if (!ranges_internal::InternRangeName(name, &interned)) [[unlikely]] {
      Bump(unnamed_);
      interned = kUnnamed;
    }
    const uint64_t id = thread_bits | kIdBit | (position & kPositionMask);
    s.tid.store(tid, std::memory_order_release);
    // Release stores: a reader that sees any of these values then sees the odd number above.
    s.id.store(id, std::memory_order_release);
    s.open_id.store((flags & kRangeStartEnd) != 0 ? id : 0, std::memory_order_release);
    s.parent.store(parent, std::memory_order_release);
    s.start_ns.store(start_ns, std::memory_order_release);
    s.end_tid.store(0, std::memory_order_release);
    s.end_ns.store(0, std::memory_order_release);
    s.name.store(interned.data(), std::memory_order_release);
    s.name_len.store(static_cast<uint32_t>(interned.size()), std::memory_order_release);
    s.domain.store(domain, std::memory_order_release);
    s.flags.store(flags, std::memory_order_release);
    s.seq.store((seq + 2) & ~kWrittenBit, std::memory_order_release);
    next_.store(position + 1, std::memory_order_release);
    return id;
  }
  next_.store(position, std::memory_order_release);
  return 0;
}

void RangeRing::EndOwn(uint64_t id, uint32_t tid, uint64_t end_ns) {
  Slot* s = SlotOf(id);
  if (s == nullptr || s->id.load(std::memory_order_relaxed) != id)
    return;  // (open ranges are never reused)
  s->end_tid.store(tid, std::memory_order_relaxed);
  s->end_ns.store(end_ns, std::memory_order_release);
}

bool RangeRing::EndStarted(uint64_t id, uint32_t tid, uint64_t end_ns) {
  Slot* s = SlotOf(id);
  uint64_t expected = id;
  if (s == nullptr) return false;
  // Until end_ns is stored the slot still counts as open, so the owner cannot reuse it.
  if (!s->open_id.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return false;
  s->end_tid.store(tid, std::memory_order_relaxed);
  s->end_ns.store(end_ns, std::memory_order_release);
  return true;
}

}  // namespace nodescope
