// A thread's range log in ring mode and in streaming mode (issue 14): a fixed number of slots
// reused oldest-first, with names interned in the process-wide table (range_names.h), so memory
// stays flat however long the program runs.
//
//   owner thread: Record() takes the next slot; a slot whose range is still open (a push not yet
//       popped, a Start not yet ended) is skipped and kept, never overwritten. A slot is written
//       under its sequence number (odd while written, release stores), so a reader never mixes
//       two ranges; reusing a slot counts the range it held as released when a streaming part
//       wrote it or it ended before the last part's end, else as unwritten (never silently
//       lost). Which of the two is decided by one atomic exchange on the sequence number, against
//       the part's compare-and-swap that marks the range written (kWrittenBit): exactly one of
//       them sees the other, so a range is never both written and counted unwritten.
//   any thread: End() claims a Start/End range by its id (a compare-and-swap on the id, so an
//       End for a range whose slot was since reused fails); ForEachCollecting() reads every whole
//       range.
// The owner may change: a log whose thread ended is taken over by the next new thread (each
// range keeps the tid of the thread that recorded it).
// No lock and no allocation per range: slots are mapped a chunk of kChunkSlots at a time, as the
// ring first fills (a thread that records few ranges maps one chunk), and reused after that.
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

// One range as ForEachCollecting() read it (a whole range: its fields come from one write).
struct RingRange {
  uint64_t id = 0;
  uint32_t tid = 0;  // the thread that recorded it
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
  static constexpr uint32_t kChunkSlots = 4096;

  // ---- Owner thread ----
  // Records a range started now by thread `tid`; returns its id, or 0 when the next slots are
  // all open or cannot be mapped (the range is then not recorded: the caller counts it as
  // dropped). A range whose slot it takes counts as released if it ended before
  // `written_until_ns` (~0 outside streaming), else as unwritten.
  uint64_t Record(uint64_t thread_bits, uint32_t tid, std::string_view name, uint32_t domain,
                  uint64_t parent, uint8_t flags, uint64_t start_ns, uint64_t written_until_ns);
  // Ends a push/pop range of this thread.
  void EndOwn(uint64_t id, uint32_t tid, uint64_t end_ns);

  // ---- Any thread ----
  // Ends a Start/End range; false if `id` is not an open Start/End range of this ring.
  bool EndStarted(uint64_t id, uint32_t tid, uint64_t end_ns);
  // Calls f(const RingRange&) for every whole range held, oldest first; a slot being rewritten
  // meanwhile is skipped (its range was released). For a streaming part that writes the ranges
  // ended by `until_ns` (0: not a part), each range it hands f that ended by then is first
  // marked written, so that reusing its slot later counts it as released, not unwritten. A
  // capture may read while a part marks (the mark changes no field of the range); two parts at
  // once would each skip what the other marked, and process_session.cc's g_capture_mu runs one
  // collect at a time.
  template <typename F>
  void ForEachCollecting(uint64_t until_ns, F&& f);
  uint32_t capacity() const { return mask_ + 1; }
  uint64_t released() const { return released_.load(std::memory_order_relaxed); }
  uint64_t unnamed() const { return unnamed_.load(std::memory_order_relaxed); }
  uint64_t unwritten() const { return unwritten_.load(std::memory_order_relaxed); }
  // Streaming: Mark() after a part collected the ring; unmarked() ranges recorded since.
  void Mark() { marked_.store(next_.load(std::memory_order_acquire), std::memory_order_relaxed); }
  uint64_t unmarked() const {
    return next_.load(std::memory_order_acquire) - marked_.load(std::memory_order_relaxed);
  }

  // What a range gets as its name once the process-wide name table is full (range_names.h).
  static constexpr std::string_view kUnnamed = "(name not kept: range name table full)";

 private:
  // In a slot's sequence number: a streaming part wrote its range (set by the part's reader).
  static constexpr uint32_t kWrittenBit = 1u << 31;
  struct Slot {
    std::atomic<uint32_t> seq;  // 0: never written; odd: being written; | kWrittenBit
    std::atomic<uint32_t> tid;
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

  RangeRing(std::atomic<Slot*>* chunks, uint32_t mask, uint32_t chunk_shift)
      : chunks_(chunks),
        mask_(mask),
        chunk_shift_(chunk_shift),
        chunk_mask_((1u << chunk_shift) - 1) {}
  // The slot of a position; nullptr while its chunk is not mapped.
  Slot* SlotAt(uint64_t position) const {
    const uint64_t index = position & mask_;
    Slot* chunk = chunks_[index >> chunk_shift_].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[index & chunk_mask_];
  }
  Slot* SlotOf(uint64_t id) const { return SlotAt(id & kPositionMask); }
  Slot* MapChunk(uint64_t position);  // owner thread only

  std::atomic<Slot*>* const chunks_;  // (capacity / chunk slots) pointers, mapped as needed
  const uint32_t mask_;
  const uint32_t chunk_shift_;  // chunks of 2^chunk_shift_ slots (a shift: no division per range)
  const uint32_t chunk_mask_;
  std::atomic<uint64_t> next_{1};  // position of the next range; written by the owner only
  std::atomic<uint64_t> released_{0};
  std::atomic<uint64_t> unnamed_{0};
  std::atomic<uint64_t> unwritten_{0};
  std::atomic<uint64_t> marked_{1};  // next_ when a part last collected the ring
};

template <typename F>
void RangeRing::ForEachCollecting(uint64_t until_ns, F&& f) {
  const uint64_t next = next_.load(std::memory_order_acquire);
  for (uint64_t k = 0; k <= mask_; ++k) {
    Slot* slot = SlotAt(next + k);
    if (slot == nullptr) continue;  // (a chunk not mapped yet)
    Slot& s = *slot;
    const uint32_t seq = s.seq.load(std::memory_order_acquire);
    if (seq == 0 || (seq & 1) != 0) continue;
    RingRange r;
    r.id = s.id.load(std::memory_order_acquire);
    r.tid = s.tid.load(std::memory_order_acquire);
    r.parent = s.parent.load(std::memory_order_acquire);
    r.start_ns = s.start_ns.load(std::memory_order_acquire);
    r.domain = s.domain.load(std::memory_order_acquire);
    r.flags = s.flags.load(std::memory_order_acquire);
    const char* name = s.name.load(std::memory_order_acquire);
    const uint32_t name_len = s.name_len.load(std::memory_order_acquire);
    r.end_ns = s.end_ns.load(std::memory_order_acquire);
    r.end_tid = s.end_tid.load(std::memory_order_acquire);
    // A field read from a later write makes this load (or the exchange) see that write's odd
    // number or later. A part marks what it writes with its end: if the owner reuses the slot
    // first, the compare-and-swap fails and the range, counted by the owner, is not handed on.
    const bool written = until_ns != 0 && r.end_ns != 0 && r.end_ns <= until_ns;
    if (written && (seq & kWrittenBit) == 0) {
      uint32_t expected = seq;
      if (!s.seq.compare_exchange_strong(expected, seq | kWrittenBit, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        continue;
      }
    } else if (((s.seq.load(std::memory_order_acquire) ^ seq) & ~kWrittenBit) != 0) {
      continue;
    }
    r.name = std::string_view(name, name_len);  // interned before `seq` was published
    f(r);
  }
}

}  // namespace nodescope
