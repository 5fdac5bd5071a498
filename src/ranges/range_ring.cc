// Ring-mode range logs: fixed slots written under a sequence number, interned names.
#include "ranges/range_ring.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "model/trace.h"

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
// Probes of the name table before a name is given up.
constexpr uint32_t kMaxProbes = 16;

// Eight bytes a step (a byte-at-a-time hash made a 64-character name cost more than copying it).
uint64_t HashName(std::string_view name) {
  constexpr uint64_t kMul = 0xff51afd7ed558ccdull;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, name.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, name.data() + i, name.size() - i);
  h = (h ^ tail) * kMul;
  return h ^ (h >> 29);
}

void Bump(std::atomic<uint64_t>& counter) {  // owner thread only: no read-modify-write needed
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace

RangeRing* RangeRing::Create(uint32_t slots) {
  void* slot_mem = ranges_internal::AllocatePopulated(sizeof(Slot) * slots);
  void* name_mem = ranges_internal::AllocatePopulated(sizeof(NameEntry) * kNameEntries);
  void* arena = ranges_internal::AllocatePopulated(kNameArenaBytes);
  void* ring_mem = ranges_internal::AllocatePopulated(sizeof(RangeRing));
  if (slot_mem == nullptr || name_mem == nullptr || arena == nullptr || ring_mem == nullptr) {
    return nullptr;  // (what was mapped stays mapped: this happens once per thread at most)
  }
  auto* s = static_cast<Slot*>(slot_mem);
  for (uint32_t i = 0; i < slots; ++i) new (&s[i]) Slot();
  auto* names = static_cast<NameEntry*>(name_mem);
  for (uint32_t i = 0; i < kNameEntries; ++i) new (&names[i]) NameEntry();
  return new (ring_mem) RangeRing(s, slots - 1, names, static_cast<char*>(arena));
}

std::string_view RangeRing::Intern(std::string_view name) {
  if (name.empty()) return {};
  const uint64_t h = HashName(name);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    NameEntry& e = names_[(h + probe) & (kNameEntries - 1)];
    if (e.text == nullptr) {
      if (name.size() > kNameArenaBytes - arena_used_) break;
      char* text = arena_ + arena_used_;
      std::memcpy(text, name.data(), name.size());
      arena_used_ += name.size();
      e = {h, text, static_cast<uint32_t>(name.size())};
      return {e.text, e.size};
    }
    if (e.hash == h && e.size == name.size() && std::memcmp(e.text, name.data(), e.size) == 0) {
      return {e.text, e.size};
    }
  }
  Bump(unnamed_);
  return kUnnamed;
}

uint64_t RangeRing::Record(uint64_t thread_bits, std::string_view name, uint32_t domain,
                           uint64_t parent, uint8_t flags, uint64_t start_ns) {
  uint64_t position = next_.load(std::memory_order_relaxed);
  for (int skips = 0; skips < kMaxSkips; ++skips, ++position) {
    Slot& s = slots_[position & mask_];
    const uint32_t seq = s.seq.load(std::memory_order_relaxed);  // this thread wrote it
    if (seq != 0 && s.end_ns.load(std::memory_order_acquire) == 0) continue;  // open: kept
    if (seq != 0) Bump(released_);
    const std::string_view interned = Intern(name);
    const uint64_t id = thread_bits | kIdBit | (position & kPositionMask);
    s.seq.store(seq + 1, std::memory_order_relaxed);
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
    s.seq.store(seq + 2, std::memory_order_release);
    next_.store(position + 1, std::memory_order_release);
    return id;
  }
  next_.store(position, std::memory_order_release);
  return 0;
}

void RangeRing::EndOwn(uint64_t id, uint32_t tid, uint64_t end_ns) {
  Slot* s = SlotOf(id);
  if (s->id.load(std::memory_order_relaxed) != id) return;  // (open ranges are never reused)
  s->end_tid.store(tid, std::memory_order_relaxed);
  s->end_ns.store(end_ns, std::memory_order_release);
}

bool RangeRing::EndStarted(uint64_t id, uint32_t tid, uint64_t end_ns) {
  Slot* s = SlotOf(id);
  uint64_t expected = id;
  // Until end_ns is stored the slot still counts as open, so the owner cannot reuse it.
  if (!s->open_id.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return false;
  s->end_tid.store(tid, std::memory_order_relaxed);
  s->end_ns.store(end_ns, std::memory_order_release);
  return true;
}

}  // namespace nodescope
