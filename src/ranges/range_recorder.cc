// Per-thread range logs, name arenas, and collection into a Trace.
#include "ranges/range_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "ranges/range_ring.h"

namespace nodescope {
namespace {

constexpr uint32_t kMaxThreads = 1u << 16;
constexpr uint32_t kSlotsPerChunk = 4096;
constexpr uint32_t kMaxChunks = 1u << 12;  // 16 M ranges per thread
constexpr int kMaxDepth = 256;
constexpr size_t kArenaChunk = 256 * 1024;
// The end tid of a push/pop range closed because its thread ended inside it (no thread has -1).
constexpr uint32_t kThreadExitTid = ~0u;

struct Slot {
  uint64_t id;
  uint64_t parent;
  uint64_t start_ns;
  std::atomic<uint64_t> end_ns;
  std::atomic<uint32_t> end_tid;
  uint32_t tid;  // the thread that recorded it (a log may change owners)
  const char* name;
  uint32_t name_len;
  uint32_t domain;
  uint8_t flags;
};

std::mutex g_threads_mu;
std::atomic<RangeRecorder::ThreadLog*> g_threads[kMaxThreads];
std::atomic<uint32_t> g_thread_count{0};
// Logs whose thread ended, taken over by the next new thread (under g_threads_mu). Never freed:
// their ranges stay collectable and Start/End ids made on them stay valid.
std::vector<RangeRecorder::ThreadLog*>* g_free_logs = nullptr;
std::atomic<uint64_t> g_logs_taken_over{0};

// The calling thread's log: set at its first range, handed back when the thread ends.
thread_local RangeRecorder::ThreadLog* t_log = nullptr;
thread_local bool t_exited = false;  // after the hand-back: nothing more is recorded

std::mutex g_domains_mu;
std::vector<std::string> g_domains = {""};

uint32_t Gettid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

using ranges_internal::AllocatePopulated;

}  // namespace

class RangeRecorder::ThreadLog {
 public:
  explicit ThreadLog(uint32_t index) : index_(index), tid_(Gettid()) {
    for (auto& c : chunks_) c.store(nullptr, std::memory_order_relaxed);
  }

  // Owner thread only.
  Slot* Reserve(uint32_t* slot_index) {
    uint32_t n = count_.load(std::memory_order_relaxed);
    uint32_t chunk = n / kSlotsPerChunk;
    if (chunk >= kMaxChunks) return nullptr;
    Slot* c = chunks_[chunk].load(std::memory_order_relaxed);
    if (c == nullptr) {
      void* mem = AllocatePopulated(sizeof(Slot) * kSlotsPerChunk);
      if (mem == nullptr) return nullptr;
      c = static_cast<Slot*>(mem);
      for (uint32_t i = 0; i < kSlotsPerChunk; ++i) new (&c[i]) Slot();
      chunks_[chunk].store(c, std::memory_order_release);
    }
    *slot_index = n;
    return &c[n % kSlotsPerChunk];
  }
  void Publish() { count_.fetch_add(1, std::memory_order_release); }
  const char* CopyName(std::string_view name) {
    if (name.size() > arena_left_) {
      size_t size = name.size() > kArenaChunk ? name.size() : kArenaChunk;
      auto* mem = static_cast<char*>(AllocatePopulated(size));
      if (mem == nullptr) return "";
      arena_cur_ = mem;
      arena_left_ = size;
    }
    char* out = arena_cur_;
    if (!name.empty()) std::memcpy(out, name.data(), name.size());
    arena_cur_ += name.size();
    arena_left_ -= name.size();
    return out;
  }

  // Any thread.
  Slot* At(uint32_t slot_index) const {
    uint32_t chunk = slot_index / kSlotsPerChunk;
    if (chunk >= kMaxChunks) return nullptr;
    Slot* c = chunks_[chunk].load(std::memory_order_acquire);
    return c == nullptr ? nullptr : &c[slot_index % kSlotsPerChunk];
  }
  uint32_t published() const { return count_.load(std::memory_order_acquire); }

  // A new thread takes over the log of one that ended (under g_threads_mu): the owner-only
  // state starts afresh; the ranges recorded stay where they are.
  void TakeOver() {
    tid_ = Gettid();
    depth_ = 0;
    overflow_ = 0;
    listener_generation_ = 0;
  }
  // Ends a push/pop range of this log (owner thread).
  void EndPushed(uint64_t id, uint32_t end_tid, uint64_t end_ns) {
    if (id == 0) return;
    if (RangeRing::IsRingId(id)) {
      ring_.load(std::memory_order_relaxed)->EndOwn(id, end_tid, end_ns);
    } else if (Slot* slot = At(static_cast<uint32_t>(id & 0xffffffffu) - 1)) {
      slot->end_tid.store(end_tid, std::memory_order_relaxed);
      slot->end_ns.store(end_ns, std::memory_order_release);
    }
  }

  const uint32_t index_;
  uint32_t tid_;  // the owner's, owner thread only
  // Push/pop stack of slot ids (0 for ranges pushed while disarmed), owner thread only.
  uint64_t stack_[kMaxDepth] = {};
  bool notified_[kMaxDepth] = {};  // this range was announced to the listener
  uint64_t listener_generation_ = 0;
  int depth_ = 0;
  int overflow_ = 0;
  // Ring mode: made by the owner at its first range in ring mode, read by End() and Collect.
  std::atomic<RangeRing*> ring_{nullptr};
  bool ring_failed_ = false;  // owner thread only

 private:
  std::atomic<Slot*> chunks_[kMaxChunks];
  std::atomic<uint32_t> count_{0};
  char* arena_cur_ = nullptr;
  size_t arena_left_ = 0;
};

RangeRecorder& RangeRecorder::Get() {
  static RangeRecorder* recorder = new RangeRecorder();  // never destroyed: used until exit
  return *recorder;
}

namespace {
// Push/pop ranges a thread ends inside can never be popped: they end at its exit, marked so,
// rather than stay open to the trace's end (and, in ring mode, pin their slots in the log the next
// thread takes over). Not on the main thread: its exit is the process's ("open at end").
void EndRangesAtThreadExit(RangeRecorder::ThreadLog* log) {
  if (log->tid_ == static_cast<uint32_t>(getpid())) return;
  const uint64_t now = NowNs();
  for (int i = log->depth_ - 1; i >= 0; --i) log->EndPushed(log->stack_[i], kThreadExitTid, now);
  log->depth_ = 0;
}

// Hands the thread's log back when the thread ends (made on the slow path only, so the hot path
// reads a plain thread_local pointer).
struct LogReturner {
  ~LogReturner() {
    RangeRecorder::ThreadLog* log = t_log;
    t_log = nullptr;
    t_exited = true;
    if (log == nullptr) return;
    EndRangesAtThreadExit(log);
    std::lock_guard<std::mutex> lock(g_threads_mu);
    if (g_free_logs == nullptr) g_free_logs = new std::vector<RangeRecorder::ThreadLog*>();
    g_free_logs->push_back(log);
  }
};
}  // namespace

RangeRecorder::ThreadLog* RangeRecorder::ThisThread() {
  if (t_log != nullptr) [[likely]]
    return t_log;
  return AttachThisThread();
}

RangeRecorder::ThreadLog* RangeRecorder::AttachThisThread() {
  if (t_exited) return nullptr;  // a range in a thread_local destructor after ours ran
  thread_local LogReturner returner;
  (void)returner;
  std::lock_guard<std::mutex> lock(g_threads_mu);
  if (g_free_logs != nullptr && !g_free_logs->empty()) {
    t_log = g_free_logs->back();
    g_free_logs->pop_back();
    t_log->TakeOver();
    g_logs_taken_over.fetch_add(1, std::memory_order_relaxed);
    return t_log;
  }
  uint32_t index = g_thread_count.load();
  if (index + 1 >= kMaxThreads) return nullptr;
  t_log = new ThreadLog(index + 1);  // kept until exit: Start/End ids may outlive the thread
  g_threads[index + 1].store(t_log, std::memory_order_release);
  g_thread_count.store(index + 1, std::memory_order_release);
  return t_log;
}

RangeRecorder::LogCounts RangeRecorder::log_counts() {
  return {g_thread_count.load(std::memory_order_acquire),
          g_logs_taken_over.load(std::memory_order_relaxed)};
}

// Range id = (thread index << 32) | (slot index + 1): End() finds the slot without a lock (in
// ring mode, range_ring.h).
uint64_t RangeRecorder::Record(ThreadLog* log, std::string_view name, uint32_t domain,
                               uint64_t parent, uint8_t flags) {
  if (const uint32_t ring_slots = ring_slots_.load(std::memory_order_relaxed); ring_slots != 0) {
    RangeRing* ring = log->ring_.load(std::memory_order_relaxed);
    if (ring == nullptr && !log->ring_failed_) [[unlikely]] {
      ring = RangeRing::Create(ring_slots);
      log->ring_.store(ring, std::memory_order_release);
      log->ring_failed_ = ring == nullptr;  // not tried again on every range
    }
    uint64_t id = ring == nullptr ? 0
                                  : ring->Record(uint64_t{log->index_} << 32, log->tid_, name,
                                                 domain, parent, flags, NowNs(),
                                                 written_until_ns_.load(std::memory_order_relaxed));
    if (id == 0) counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    // Streaming: the part is due now, not at the service's next poll (exactly half: once).
    if (StreamWake wake = stream_wake_.load(std::memory_order_relaxed); wake != nullptr) {
      if (ring != nullptr && ring->unmarked() == ring->capacity() / 2) wake();
    }
    return id;
  }
  uint32_t index = 0;
  Slot* slot = log->Reserve(&index);
  if (slot == nullptr) {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  uint64_t id = (uint64_t{log->index_} << 32) | (uint64_t{index} + 1);
  slot->id = id;
  slot->parent = parent;
  slot->start_ns = NowNs();
  slot->tid = log->tid_;
  slot->end_ns.store(0, std::memory_order_relaxed);
  slot->end_tid.store(0, std::memory_order_relaxed);
  slot->name = log->CopyName(name);
  slot->name_len = static_cast<uint32_t>(name.size());
  slot->domain = domain;
  slot->flags = flags;
  log->Publish();
  return id;
}

uint64_t RangeRecorder::Push(std::string_view name, uint32_t domain) {
  ThreadLog* log = ThisThread();
  if (log == nullptr) [[unlikely]] {
    if (armed()) counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (log->depth_ == kMaxDepth) {
    ++log->overflow_;
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  uint64_t id = 0;
  bool notified = false;
  if (armed()) {
    uint64_t parent = log->depth_ > 0 ? log->stack_[log->depth_ - 1] : 0;
    id = Record(log, name, domain, parent, 0);
    if (id != 0) {
      if (const Listener* l = listener_.load(std::memory_order_acquire)) {
        if (log->listener_generation_ != listener_generation_.load(std::memory_order_relaxed))
            [[unlikely]] {
          Sync(log, l);
        }
        l->on_push(id);
        notified = true;
      }
    }
  }
  log->notified_[log->depth_] = notified;
  log->stack_[log->depth_++] = id;
  return id;
}

void RangeRecorder::Pop() {
  ThreadLog* log = ThisThread();
  if (log == nullptr) return;
  if (log->overflow_ > 0) {
    --log->overflow_;
    return;
  }
  if (log->depth_ == 0) {
    counters_.unbalanced_pops.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  uint64_t id = log->stack_[--log->depth_];
  if (id == 0) return;
  log->EndPushed(id, log->tid_, NowNs());
  if (log->notified_[log->depth_]) {
    if (const Listener* l = listener_.load(std::memory_order_acquire)) l->on_pop(id);
  }
}

void RangeRecorder::Sync(ThreadLog* log, const Listener* l) {
  for (int i = 0; i < log->depth_; ++i) {
    if (log->stack_[i] != 0 && !log->notified_[i]) {
      l->on_push(log->stack_[i]);
      log->notified_[i] = true;
    }
  }
  log->listener_generation_ = listener_generation_.load(std::memory_order_relaxed);
}

void RangeRecorder::SyncThisThread() {
  const Listener* l = listener_.load(std::memory_order_acquire);
  ThreadLog* log = ThisThread();
  if (l != nullptr && log != nullptr) Sync(log, l);
}

uint64_t RangeRecorder::Start(std::string_view name, uint32_t domain) {
  if (!armed()) return 0;
  ThreadLog* log = ThisThread();
  if (log == nullptr) [[unlikely]] {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  return Record(log, name, domain, 0, kRangeStartEnd);
}

void RangeRecorder::End(uint64_t id) {
  auto thread = static_cast<uint32_t>(id >> 32);
  auto slot_index = static_cast<uint32_t>(id & 0xffffffffu);
  ThreadLog* owner = (thread > 0 && thread < kMaxThreads)
                         ? g_threads[thread].load(std::memory_order_acquire)
                         : nullptr;
  if (RangeRing::IsRingId(id)) {
    if (!EndRing(owner, id)) counters_.unknown_ends.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Slot* slot = (owner != nullptr && slot_index > 0 && slot_index <= owner->published())
                   ? owner->At(slot_index - 1)
                   : nullptr;
  uint64_t expected = 0;
  if (slot == nullptr || (slot->flags & kRangeStartEnd) == 0 ||
      !slot->end_ns.compare_exchange_strong(expected, NowNs(), std::memory_order_acq_rel)) {
    counters_.unknown_ends.fetch_add(1, std::memory_order_relaxed);  // unknown id, or ended twice
    return;
  }
  slot->end_tid.store(Gettid(), std::memory_order_release);
}

bool RangeRecorder::EndRing(ThreadLog* owner, uint64_t id) {
  RangeRing* ring = owner != nullptr ? owner->ring_.load(std::memory_order_acquire) : nullptr;
  return ring != nullptr && ring->EndStarted(id, Gettid(), NowNs());
}

uint32_t RangeRecorder::RingSlotsFor(uint64_t max_records) {
  if (max_records == 0 || max_records >= kMaxRingSlots) return kMaxRingSlots;
  uint32_t slots = kMinRingSlots;
  while (slots < max_records) slots *= 2;
  return slots;
}

uint32_t RangeRecorder::StreamSlotsFor(uint64_t part_records) {
  if (part_records == 0 || part_records >= kMaxStreamSlots) return kMaxStreamSlots;
  uint32_t slots = kMaxRingSlots;
  while (slots < part_records) slots *= 2;
  return slots;
}

void RangeRecorder::MarkWritten(uint64_t until_ns) {
  const uint32_t threads = g_thread_count.load(std::memory_order_acquire);
  for (uint32_t t = 1; t <= threads; ++t) {
    const ThreadLog* log = g_threads[t].load(std::memory_order_acquire);
    RangeRing* ring = log != nullptr ? log->ring_.load(std::memory_order_acquire) : nullptr;
    if (ring != nullptr) ring->Mark();
  }
  written_until_ns_.store(until_ns, std::memory_order_release);
}

bool RangeRecorder::RangesAwaitAPart() const {
  const uint32_t threads = g_thread_count.load(std::memory_order_acquire);
  for (uint32_t t = 1; t <= threads; ++t) {
    const ThreadLog* log = g_threads[t].load(std::memory_order_acquire);
    const RangeRing* ring = log != nullptr ? log->ring_.load(std::memory_order_acquire) : nullptr;
    if (ring != nullptr && ring->unmarked() >= ring->capacity() / 2) return true;
  }
  return false;
}

uint64_t RangeRecorder::MappedBytes() { return ranges_internal::MappedBytes(); }

uint64_t RangeRecorder::CurrentRange() {
  ThreadLog* log = ThisThread();
  if (log == nullptr) return 0;
  for (int i = log->depth_ - 1; i >= 0; --i) {
    if (log->stack_[i] != 0) return log->stack_[i];
  }
  return 0;
}

uint32_t RangeRecorder::RegisterDomain(std::string_view name) {
  std::lock_guard<std::mutex> lock(g_domains_mu);
  for (size_t i = 1; i < g_domains.size(); ++i) {
    if (g_domains[i] == name) return static_cast<uint32_t>(i);
  }
  g_domains.emplace_back(name);
  return static_cast<uint32_t>(g_domains.size() - 1);
}

void RangeRecorder::Collect(Trace& trace, uint64_t since_ns, uint64_t until_ns,
                            const CounterValues& baseline, bool part) {
  std::vector<StringId> domain_ids;
  {
    std::lock_guard<std::mutex> lock(g_domains_mu);
    for (const std::string& d : g_domains) domain_ids.push_back(trace.strings.Intern(d));
  }
  const uint32_t pid = static_cast<uint32_t>(getpid());
  uint32_t threads = g_thread_count.load(std::memory_order_acquire);
  for (uint32_t t = 1; t <= threads; ++t) {
    ThreadLog* log = g_threads[t].load(std::memory_order_acquire);
    if (log == nullptr) continue;
    auto add = [&](const RingRange& s) {
      if (s.start_ns > until_ns || (s.end_ns != 0 && s.end_ns < since_ns)) return;
      UserRange r{};
      r.id = s.id;
      const uint32_t tid = s.tid;
      r.parent_id = s.parent;
      r.start_ns = s.start_ns;
      r.name = trace.strings.Intern(s.name);
      r.domain = s.domain < domain_ids.size() ? domain_ids[s.domain] : kNoString;
      r.pid = pid;
      r.tid = tid;
      r.flags = s.flags;
      if (s.end_ns == 0 || s.end_ns > until_ns) {
        r.end_ns = until_ns;
        r.end_tid = tid;
        r.flags |= kRangeOpenAtEnd;
        ++trace.range_counters.open_at_end;
      } else {
        r.end_ns = s.end_ns;
        r.end_tid = s.end_tid;
        if (r.end_tid == kThreadExitTid) {
          r.end_tid = tid;
          r.flags |= kRangeThreadExited;
          ++trace.range_counters.ended_at_thread_exit;
        } else if (r.end_tid != 0 && r.end_tid != r.tid) {
          r.flags |= kRangeCrossThread;
          ++trace.range_counters.ended_on_other_thread;
        }
      }
      trace.ranges.push_back(r);
    };
    uint32_t n = log->published();
    for (uint32_t i = 0; i < n; ++i) {
      const Slot* s = log->At(i);
      if (s == nullptr) break;
      RingRange r;
      r.end_ns = s->end_ns.load(std::memory_order_acquire);
      // (end_tid is read only for a range that ended, after its end: as before ring mode)
      r.end_tid = r.end_ns != 0 ? s->end_tid.load(std::memory_order_acquire) : 0;
      r.id = s->id;
      r.tid = s->tid;
      r.parent = s->parent;
      r.start_ns = s->start_ns;
      r.name = std::string_view(s->name, s->name_len);
      r.domain = s->domain;
      r.flags = s->flags;
      add(r);
    }
    if (RangeRing* ring = log->ring_.load(std::memory_order_acquire)) {
      ring->ForEachCollecting(part ? until_ns : 0, add);
    }
  }
  const CounterValues now = counter_values();
  trace.range_counters.unbalanced_pops += now.unbalanced_pops - baseline.unbalanced_pops;
  trace.range_counters.unknown_ends += now.unknown_ends - baseline.unknown_ends;
  trace.range_counters.dropped += now.dropped - baseline.dropped;
  trace.range_counters.ring_released += now.ring_released - baseline.ring_released;
  trace.range_counters.ring_unnamed += now.ring_unnamed - baseline.ring_unnamed;
  trace.range_counters.unwritten += now.unwritten - baseline.unwritten;
}

RangeRecorder::CounterValues RangeRecorder::counter_values() const {
  CounterValues v{counters_.unbalanced_pops.load(), counters_.unknown_ends.load(),
                  counters_.dropped.load()};
  const uint32_t threads = g_thread_count.load(std::memory_order_acquire);
  for (uint32_t t = 1; t <= threads; ++t) {
    const ThreadLog* log = g_threads[t].load(std::memory_order_acquire);
    const RangeRing* ring = log != nullptr ? log->ring_.load(std::memory_order_acquire) : nullptr;
    if (ring == nullptr) continue;
    v.ring_released += ring->released();
    v.ring_unnamed += ring->unnamed();
    v.unwritten += ring->unwritten();
  }
  return v;
}

}  // namespace nodescope
