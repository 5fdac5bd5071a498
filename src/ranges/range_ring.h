// A thread's range log in ring mode (issue 14): a fixed number of slots reused oldest-first, with
// names interned in a fixed per-thread table, so memory stays flat however long the program runs.
//
//   owner thread: Record() takes the next slot; a slot whose range is still open (a push not yet
//       popped, a Start not yet ended) is skipped and kept, never overwritten. A slot is written
//       under its sequence number (odd while written, release stores), so a reader never mixes
//       two ranges; reusing a slot counts the range it held as released (never as dropped).
//   any thread: End() claims a Start/End range by its id (a compare-and-swap on the id, so an
//       End for a range whose slot was since reused fails); ForEach() reads every whole range.
// No lock and no allocation per range: the slots and the name table are mapped once per thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nodescope {

// Memory for range logs, faulted in with one call: touching fresh pages one by one on the hot path
// costs far more than the record itself (measured: 19 000 first-touch faults for 1 M ranges).
// Counted in MappedBytes(); kept until exit, like the logs.
namespace ranges_internal {
void* AllocatePopulated(size_t bytes);
uint64_t MappedBytes();
}  // namespace ranges_internal

// One range as ForEach() read it (a whole range: its fields come from one write).
struct RingRange {
  uint64_t id = 0;
  uint64_t parent = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;  // 0: still open
  uint32_t end_tid = 0;
  uint32_t domain = 0;
  uint8_t flags = 0;
  std::string_view name;
};

class RangeRing {
 public:
  // Ids of ring ranges: (thread index << 32) | kIdBit | (position & kPositionMask); full-mode ids
  // have slot numbers below 2^24, so the two never meet. Positions repeat after 2^31 ranges on
  // one thread, far more than a ring holds.
  static constexpr uint64_t kIdBit = 1ull << 31;
  static constexpr uint64_t kPositionMask = kIdBit - 1;
  static bool IsRingId(uint64_t id) { return (id & kIdBit) != 0; }

  // A ring of `slots` (a power of two); nullptr when the memory cannot be mapped.
  static RangeRing* Create(uint32_t slots);

  // ---- Owner thread ----
  // Records a range started now; returns its id, or 0 when the next slots are all open (the
  // range is then not recorded: the caller counts it as dropped).
  uint64_t Record(uint64_t thread_bits, std::string_view name, uint32_t domain, uint64_t parent,
                  uint8_t flags, uint64_t start_ns);
  // Ends a push/pop range of this thread.
  void EndOwn(uint64_t id, uint32_t tid, uint64_t end_ns);

  // ---- Any thread ----
  // Ends a Start/End range; false if `id` is not an open Start/End range of this ring.
  bool EndStarted(uint64_t id, uint32_t tid, uint64_t end_ns);
  // Calls f(const RingRange&) for every whole range held, oldest first; a slot being rewritten
  // meanwhile is skipped (its range was released).
  template <typename F>
  void ForEach(F&& f) const;
  uint32_t capacity() const { return mask_ + 1; }
  uint64_t released() const { return released_.load(std::memory_order_relaxed); }
  uint64_t unnamed() const { return unnamed_.load(std::memory_order_relaxed); }

  // What a range gets as its name once the thread's name table is full.
  static constexpr std::string_view kUnnamed = "(name not kept: per-thread name table full)";
  static constexpr uint32_t kNameEntries = 1024;
  static constexpr size_t kNameArenaBytes = 256 * 1024;

 private:
  struct Slot {
    std::atomic<uint32_t> seq;  // 0: never written; odd: being written
    std::atomic<uint32_t> end_tid;
    std::atomic<uint64_t> id;
    std::atomic<uint64_t> open_id;  // a Start/End range's id until End() claims it
    std::atomic<uint64_t> parent;
    std::atomic<uint64_t> start_ns;
    std::atomic<uint64_t> end_ns;
    std::atomic<const char*> name;
    std::atomic<uint32_t> name_len;
    std::atomic<uint32_t> domain;
    std::atomic<uint8_t> flags;
  };
  struct NameEntry {
    uint64_t hash;
    const char* text;
    uint32_t size;
  };

  RangeRing(Slot* slots, uint32_t mask, NameEntry* names, char* arena)
      : slots_(slots), mask_(mask), names_(names), arena_(arena) {}
  std::string_view Intern(std::string_view name);
  Slot* SlotOf(uint64_t id) const { return &slots_[id & kPositionMask & mask_]; }

  Slot* const slots_;
  const uint32_t mask_;
  std::atomic<uint64_t> next_{1};  // position of the next range; written by the owner only
  std::atomic<uint64_t> released_{0};
  std::atomic<uint64_t> unnamed_{0};
  // Owner thread only; the bytes of an entry never change once it is made.
  NameEntry* const names_;
  char* const arena_;
  size_t arena_used_ = 0;
};

template <typename F>
void RangeRing::ForEach(F&& f) const {
  const uint64_t next = next_.load(std::memory_order_acquire);
  for (uint64_t k = 0; k <= mask_; ++k) {
    const Slot& s = slots_[(next + k) & mask_];
    const uint32_t seq = s.seq.load(std::memory_order_acquire);
    if (seq == 0 || (seq & 1) != 0) continue;
    RingRange r;
    r.id = s.id.load(std::memory_order_acquire);
    r.parent = s.parent.load(std::memory_order_acquire);
    r.start_ns = s.start_ns.load(std::memory_order_acquire);
    r.domain = s.domain.load(std::memory_order_acquire);
    r.flags = s.flags.load(std::memory_order_acquire);
    const char* name = s.name.load(std::memory_order_acquire);
    const uint32_t name_len = s.name_len.load(std::memory_order_acquire);
    r.end_ns = s.end_ns.load(std::memory_order_acquire);
    r.end_tid = s.end_tid.load(std::memory_order_acquire);
    // A field read from a later write makes this load see that write's odd number or later.
    if (s.seq.load(std::memory_order_acquire) != seq) continue;
    r.name = std::string_view(name, name_len);  // interned before `seq` was published
    f(r);
  }
}

}  // namespace nodescope
