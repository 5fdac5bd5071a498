// Records user ranges (nodescope's API, NVTX) into per-thread logs: no lock and no allocation per
// range on the hot path (names are copied into a per-thread arena that grows in 64 KiB chunks).
// Protocol per thread: reserve a slot -> fill it -> publish with a release store of the count;
// the collector reads published slots only.
// Ring mode (SetRingSlots, issue 14): each thread records instead into a ring of fixed capacity
// with interned names (range_ring.h), so memory stays flat however long the program runs.
// Streaming (SetStreaming) records into the same rings, sized from the part, and counts a range
// that leaves its ring before a part collected it as unwritten.
// A thread's log is handed back when the thread ends and taken over by the next new thread, so
// the memory for logs follows the threads alive at once, not every thread the program ever had.
// Push/pop ranges a thread (other than the main one) ends inside are closed at its end and
// marked kRangeThreadExited: no one can pop them later.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "model/trace.h"

namespace nodescope {

// RangeRecorder's counters at one time (outside the class: a default argument below needs it
// complete).
struct RangeCounterValues {
  uint64_t unbalanced_pops = 0;
  uint64_t unknown_ends = 0;
  uint64_t dropped = 0;
  uint64_t ring_released = 0;  // ring mode: ranges whose slot was reused for a newer one
  uint64_t ring_unnamed = 0;   // ring mode: ranges recorded without their name (name table full)
  uint64_t unwritten = 0;      // streaming: released from a ring before a part collected them
};

class RangeRecorder {
 public:
  // What a backend does on push/pop (CUPTI: push the range id as an external correlation id so
  // the GPU work launched inside can be linked back to it).
  struct Listener {
    void (*on_push)(uint64_t range_id);
    void (*on_pop)(uint64_t range_id);
  };

  static RangeRecorder& Get();

  // Recording happens only while armed (a session is tracing, or `nodescope run` injected us);
  // disarmed, push/pop only keep the thread's depth so a later pop is not miscounted.
  void Arm() { armed_.store(true, std::memory_order_release); }
  void Disarm() { armed_.store(false, std::memory_order_release); }
  bool armed() const { return armed_.load(std::memory_order_relaxed); }
  // Set once by a backend and left set (its pushes must be popped even after a session ends).
  // Ranges already open on a thread are announced to it at that thread's next push, or at once
  // for the calling thread through SyncThisThread().
  void SetListener(const Listener* listener) {
    listener_.store(listener);
    listener_generation_.fetch_add(1);
  }
  void SyncThisThread();

  // Ring mode: ranges recorded from now on go to a ring of `slots` per thread (rounded up to a
  // power of two, within [kMinRingSlots, kMaxRingSlots]; a thread's ring keeps the capacity it
  // was created with); 0 returns to the full log. Ranges already recorded stay collectable.
  static constexpr uint32_t kMinRingSlots = 1024;
  static constexpr uint32_t kMaxRingSlots = 65536;
  void SetRingSlots(uint32_t slots) {
    written_until_ns_.store(~uint64_t{0}, std::memory_order_release);  // a release is no loss
    ring_slots_.store(slots == 0 ? 0 : RingSlotsFor(slots), std::memory_order_release);
  }
  // The per-thread capacity for a ring window of `max_records` GPU + API records (0: a window by
  // time only, kMaxRingSlots).
  static uint32_t RingSlotsFor(uint64_t max_records);
  // Streaming (a part written each time `part_records` GPU + API records are held): rings of
  // StreamSlotsFor(part_records) (at least kMaxRingSlots: ranges are not part of the records),
  // mapped a chunk at a time as they fill. A range whose slot is reused counts as released if
  // it ended before the last MarkWritten() time, else as unwritten.
  static constexpr uint32_t kMaxStreamSlots = 1u << 20;
  void SetStreaming(uint64_t part_records) {
    written_until_ns_.store(0, std::memory_order_release);
    ring_slots_.store(StreamSlotsFor(part_records), std::memory_order_release);
  }
  static uint32_t StreamSlotsFor(uint64_t part_records);
  // A streaming part collected the ranges that ended up to `until_ns` (and every earlier part
  // those before it); call it after that Collect. (A range whose slot is reused during that
  // Collect counts as released once the Collect has read its slot, else as unwritten.)
  void MarkWritten(uint64_t until_ns);
  // Streaming: some thread's ring holds half its capacity or more of ranges recorded since the
  // last part (a part should be cut before it wraps).
  bool RangesAwaitAPart() const;
  // Streaming: called on the recording thread when its ring reaches half its capacity of ranges
  // no part holds yet (once per part), so the part is cut then, not at the next poll. It must
  // be async-signal-safe in spirit: no lock, no allocation (a write to a pipe).
  using StreamWake = void (*)();
  void SetStreamWake(StreamWake wake) { stream_wake_.store(wake, std::memory_order_release); }
  // Bytes mapped for range logs, rings and names, all threads (they are kept until exit).
  static uint64_t MappedBytes();
  // Logs made (one per thread alive at once at most) and logs taken over from ended threads.
  struct LogCounts {
    uint32_t made = 0;
    uint64_t taken_over = 0;
  };
  static LogCounts log_counts();

  // Push/pop ranges nest per thread. Push returns the range id (0 when not recorded).
  uint64_t Push(std::string_view name, uint32_t domain = 0);
  void Pop();
  // Start/End ranges may overlap and end on any thread. Start returns the id End takes.
  uint64_t Start(std::string_view name, uint32_t domain = 0);
  void End(uint64_t id);
  // The innermost open push/pop range on the calling thread; 0 if none.
  uint64_t CurrentRange();

  // NVTX domains: registered once by name, referred to by a small id (0 = default domain).
  uint32_t RegisterDomain(std::string_view name);

  // The counters kept across sessions (they count since the process started).
  using CounterValues = RangeCounterValues;
  CounterValues counter_values() const;

  // Copies every range that overlaps [since_ns, until_ns] into `trace` (names interned), closing
  // ranges still open at until_ns, and adds the counters counted since `baseline` (taken with
  // counter_values() when the session started). Safe while other threads record. `part`: the
  // copy is a streaming part or the trace at exit (what it read counts as written, see
  // MarkWritten), not a capture beside the parts.
  void Collect(Trace& trace, uint64_t since_ns, uint64_t until_ns,
               const CounterValues& baseline = {}, bool part = false);

  struct Counters {
    std::atomic<uint64_t> unbalanced_pops{0};
    std::atomic<uint64_t> unknown_ends{0};
    std::atomic<uint64_t> dropped{0};
  };

  class ThreadLog;

 private:
  RangeRecorder() = default;
  ThreadLog* ThisThread();
  ThreadLog* AttachThisThread();
  uint64_t Record(ThreadLog* log, std::string_view name, uint32_t domain, uint64_t parent,
                  uint8_t flags);
  bool EndRing(ThreadLog* owner, uint64_t id);

  std::atomic<bool> armed_{false};
  std::atomic<uint32_t> ring_slots_{0};
  std::atomic<uint64_t> written_until_ns_{~uint64_t{0}};
  std::atomic<StreamWake> stream_wake_{nullptr};
  void Sync(ThreadLog* log, const Listener* l);

  std::atomic<const Listener*> listener_{nullptr};
  std::atomic<uint64_t> listener_generation_{0};
  Counters counters_;
};

}  // namespace nodescope
