// Per-thread launch stacks, launch logs and the decode-time checks of reconstructed attribution.
#include "attribution/reconstructing_attributor.h"

#include <algorithm>

#include "base/diagnostics.h"

namespace nodescope {
namespace {

// Tag layout: [thread index:12][launch sequence:32][ordinal:19][wrong-launch flag:1].
constexpr int kOrdinalBits = 19;
constexpr uint64_t kOrdinalMax = (uint64_t{1} << kOrdinalBits) - 1;

uint64_t MakeTag(uint32_t thread, uint32_t seq, uint32_t ordinal, bool wrong) {
  uint64_t ord = ordinal < kOrdinalMax ? ordinal : kOrdinalMax;
  return (uint64_t{thread} << 52) | (uint64_t{seq} << 20) | (ord << 1) | (wrong ? 1u : 0u);
}

}  // namespace

class ReconstructingAttributor::ThreadState {
 public:
  explicit ThreadState(uint32_t index) : index_(index) {}

  struct Frame {
    LaunchSlot* slot;
    uint32_t seq;
    uint32_t ordinal;
    uint64_t correlation;
  };
  uint32_t index_;
  // (seq + 1) of the outermost launch open on this thread, 0 when none: what peers look for.
  std::atomic<uint64_t> current_{0};
  Frame frames_[kMaxDepth] = {};
  int depth_ = 0;
  int overflow_ = 0;  // launches nested deeper than kMaxDepth: their work is unattributed
  // exec handle -> graph id and version, valid while cache_generation_ equals the engine's.
  static constexpr int kCacheSize = 8;
  uint64_t cache_handle_[kCacheSize] = {};
  Exec cache_exec_[kCacheSize] = {};
  int cache_next_ = 0;
  uint64_t cache_generation_ = 0;
  LaunchLog log_;  // this thread's launches (bounded: launch_log.h)
};

ReconstructingAttributor::ReconstructingAttributor(KeySpace space)
    : space_(space),
      threads_(new std::atomic<ThreadState*>[kMaxThreads + 1]),
      keys_(space.top_ordinal) {
  for (uint32_t i = 0; i <= kMaxThreads; ++i) threads_[i].store(nullptr);
}

ReconstructingAttributor::~ReconstructingAttributor() {
  for (uint32_t i = 0; i <= kMaxThreads; ++i) delete threads_[i].load();
}

ReconstructingAttributor::ThreadState* ReconstructingAttributor::RegisterThread() {
  std::lock_guard<std::mutex> lock(threads_mu_);
  uint32_t index = thread_count_.load() + 1;
  if (index > kMaxThreads) return nullptr;
  auto* t = new ThreadState(index);
  threads_[index].store(t, std::memory_order_release);
  thread_count_.store(index);
  return t;
}

uint32_t ReconstructingAttributor::NewGraphId(uint64_t exec_handle, uint64_t native_id) {
  if (next_graph_id_ < space_.graph_id_limit) return next_graph_id_++;
  past_limit_.fetch_add(1);
  NODESCOPE_WARN_ONCE("graph_exec_past_id_limit",
                      "graph exec 0x%llx (SDK id %llu) is past the %u graph ids whose node ids "
                      "stay exact (below 2^53); the work of such execs is written without graph "
                      "keys",
                      static_cast<unsigned long long>(exec_handle),
                      static_cast<unsigned long long>(native_id), space_.graph_id_limit - 1);
  return 0;
}

void ReconstructingAttributor::OnExecCreated(uint64_t exec_handle, uint64_t native_id) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  // A reused address is a new exec: it inherits nothing from the one destroyed before.
  execs_[exec_handle] = Exec{NewGraphId(exec_handle, native_id), 0};
  generation_.fetch_add(1, std::memory_order_release);
}

void ReconstructingAttributor::OnExecDestroyed(uint64_t exec_handle) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  execs_.erase(exec_handle);
  generation_.fetch_add(1, std::memory_order_release);
}

void ReconstructingAttributor::OnExecChanged(uint64_t exec_handle) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  auto it = execs_.find(exec_handle);
  if (it == execs_.end()) {
    // Instantiated before tracing began: a new exec as far as we can know.
    it = execs_.emplace(exec_handle, Exec{NewGraphId(exec_handle, 0), 0}).first;
  }
  ++it->second.version;
  generation_.fetch_add(1, std::memory_order_release);
}

uint32_t ReconstructingAttributor::ExecNow(uint64_t exec_handle, uint32_t* version) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  auto it = execs_.find(exec_handle);
  if (it == execs_.end()) return 0;
  *version = it->second.version;
  return it->second.graph_id;
}

LaunchSlot* ReconstructingAttributor::DecoderSlot(uint64_t tag, LaunchLog** log,
                                                  LaunchLog::Chunk** chunk) const {
  const auto thread = static_cast<uint32_t>(tag >> 52);
  ThreadState* t = tag != 0 && thread <= kMaxThreads
                       ? threads_[thread].load(std::memory_order_acquire)
                       : nullptr;
  if (log != nullptr) *log = t != nullptr ? &t->log_ : nullptr;
  LaunchLog::Chunk* unused = nullptr;
  return t != nullptr ? t->log_.Find(static_cast<uint32_t>(tag >> 20), chunk ? chunk : &unused)
                      : nullptr;
}

bool ReconstructingAttributor::LaunchOf(uint64_t tag, uint32_t* ordinal, uint32_t* version,
                                        uint32_t* dispatches) {
  LaunchSlot* slot = DecoderSlot(tag);
  if (slot == nullptr || slot->ended.load(std::memory_order_acquire) == 0) return false;
  *ordinal = static_cast<uint32_t>((tag >> 1) & kOrdinalMax);
  *version = slot->version.load(std::memory_order_relaxed);
  *dispatches = slot->dispatches.load(std::memory_order_relaxed);
  return true;
}

ReconstructingAttributor::Exec ReconstructingAttributor::ExecFor(ThreadState* t,
                                                                 uint64_t exec_handle) {
  uint64_t gen = generation_.load(std::memory_order_acquire);
  if (t->cache_generation_ == gen) [[likely]] {
    for (int i = 0; i < ThreadState::kCacheSize; ++i) {
      if (t->cache_handle_[i] == exec_handle && exec_handle != 0) return t->cache_exec_[i];
    }
  } else {
    for (uint64_t& h : t->cache_handle_) h = 0;
    t->cache_generation_ = gen;
  }
  Exec exec;
  {
    std::lock_guard<std::mutex> lock(exec_mu_);
    auto it = execs_.find(exec_handle);
    if (it == execs_.end()) {
      // Instantiated before tracing began: a new exec as far as we can know.
      it = execs_.emplace(exec_handle, Exec{NewGraphId(exec_handle, 0), 0}).first;
    }
    exec = it->second;
  }
  int slot = t->cache_next_++ % ThreadState::kCacheSize;
  t->cache_handle_[slot] = exec_handle;
  t->cache_exec_[slot] = exec;
  return exec;
}

void ReconstructingAttributor::LaunchBegin(ThreadState* t, uint64_t exec_handle,
                                           uint64_t correlation, uint64_t stream) {
  OpenFrame(t, /*plain=*/false, exec_handle, correlation, stream);
}

void ReconstructingAttributor::PlainBegin(ThreadState* t, uint64_t correlation, uint64_t stream) {
  OpenFrame(t, /*plain=*/true, 0, correlation, stream);
}

void ReconstructingAttributor::OpenFrame(ThreadState* t, bool plain, uint64_t exec_handle,
                                         uint64_t correlation, uint64_t stream) {
  if (t == nullptr) return;
  if (t->depth_ == kMaxDepth) {
    ++t->overflow_;
    return;
  }
  uint32_t seq = 0;
  LaunchSlot* slot = t->log_.NewSlot(&seq);
  if (slot != nullptr) {
    const Exec exec = plain ? Exec{0, 0} : ExecFor(t, exec_handle);
    slot->orphans_at_begin.store(foreign_.load(std::memory_order_seq_cst),
                                 std::memory_order_relaxed);
    if (plain) {
      slot->plain.store(1, std::memory_order_relaxed);
    } else {
      slot->version.store(exec.version, std::memory_order_relaxed);
    }
    slot->stream.store(stream, std::memory_order_seq_cst);           // LaunchLog::StreamOf reads it
    slot->graph_id.store(exec.graph_id, std::memory_order_release);  // 0: a plain call
    if (t->depth_ == 0) RecordPeers(t, slot, seq, false);
  }
  t->frames_[t->depth_++] = ThreadState::Frame{slot, seq, 0, correlation};
}

bool ReconstructingAttributor::LaunchOpen(const ThreadState* t) {
  return t != nullptr && (t->depth_ > 0 || t->overflow_ > 0);
}

void ReconstructingAttributor::LaunchEnd(ThreadState* t) {
  if (t == nullptr) return;
  if (t->overflow_ > 0) {
    --t->overflow_;
    return;
  }
  if (t->depth_ == 0) return;  // unbalanced exit: nothing to close
  ThreadState::Frame& f = t->frames_[--t->depth_];
  if (f.slot != nullptr) {
    if (t->depth_ == 0) RecordPeers(t, f.slot, f.seq, true);
    f.slot->dispatches.store(f.ordinal, std::memory_order_relaxed);
    f.slot->ended.store(1, std::memory_order_release);
  }
}

uint64_t ReconstructingAttributor::OnDispatch(ThreadState* t, uint64_t dispatch_correlation) {
  if (t == nullptr || t->depth_ == 0 || t->overflow_ > 0) return 0;
  ThreadState::Frame& f = t->frames_[t->depth_ - 1];
  if (f.slot == nullptr) return 0;
  bool wrong =
      dispatch_correlation != 0 && f.correlation != 0 && dispatch_correlation != f.correlation;
  return MakeTag(t->index_, f.seq, f.ordinal++, wrong);
}

void ReconstructingAttributor::SetExpectedDispatches(uint32_t graph_id, uint32_t count) {
  GraphOf(graph_id).reported = count;
}

ReconstructingAttributor::TwoVersions::Verdict ReconstructingAttributor::TwoVersions::CheckSlow(
    uint32_t v, uint32_t x, uint32_t** slot) {
  if (value == kNone || v > version) {  // a version newer than any seen: learn it
    prev_version = version;
    prev_value = value;
    prev_key = key;
    version = v;
    value = x;
    key = kNone;
    *slot = &key;
    return kOk;
  }
  if (prev_value != kNone && v == prev_version) {
    *slot = &prev_key;
    return x == prev_value ? kOk : kMismatch;
  }
  if (prev_value == kNone || v > prev_version) {  // an older version seen late, first sight
    prev_version = v;
    prev_value = x;
    prev_key = kNone;
    *slot = &prev_key;
    return kOk;
  }
  return kStale;
}

inline void ReconstructingAttributor::Verify(GpuActivity& a, uint64_t tag, LaunchSlot* slot,
                                             bool thread_known, Hazard hazard) {
  const auto ordinal = static_cast<uint32_t>((tag >> 1) & kOrdinalMax);
  const bool wrong = (tag & 1u) != 0;
  a.graph_id = 0;
  a.graph_node_id = 0;
  if (tag == 0) return;  // not launched from a graph (or from a thread we could not follow)
  if (slot == nullptr) {
    // Its launch's entry went (the log is bounded); or a tag we never issued.
    withheld_.Add(thread_known ? WithheldReason::kLaunchReleased : WithheldReason::kWrongLaunch);
    return;
  }
  if (slot->plain.load(std::memory_order_relaxed) != 0) {
    // A plain call's dispatch: never keyed. Its correlation id (so its user range) stands only
    // where its writer is proven: no foreign writer, no unproven peer, exactly one dispatch.
    if (wrong || hazard == Hazard::kWithheld || slot->foreign == 2 ||
        slot->ended.load(std::memory_order_acquire) == 0 ||
        slot->dispatches.load(std::memory_order_relaxed) != 1) {
      a.correlation_id = 0;
      ++plain_unproven_;
    }
    return;
  }
  uint32_t graph_id = slot->graph_id.load(std::memory_order_acquire);
  if (graph_id == 0) {
    withheld_.Add(WithheldReason::kGraphIdTooLarge);
    return;
  }
  if (wrong) {
    withheld_.Add(WithheldReason::kWrongLaunch);
    return;
  }
  if (slot->ended.load(std::memory_order_acquire) == 0) {
    withheld_.Add(WithheldReason::kLaunchInProgress);
    return;
  }
  if (slot->foreign == 2) {
    withheld_.Add(WithheldReason::kForeignWriter);
    return;
  }
  if (hazard == Hazard::kWithheld) {
    withheld_.Add(WithheldReason::kHazardUnproven);
    return;
  }
  const uint32_t count = slot->dispatches.load(std::memory_order_relaxed);
  const uint32_t version = slot->version.load(std::memory_order_relaxed);
  GraphState& g = GraphOf(graph_id);
  uint32_t* unused = nullptr;
  TwoVersions::Verdict counted =
      g.reported != TwoVersions::kNone
          ? (count == g.reported ? TwoVersions::kOk : TwoVersions::kMismatch)
          : g.count.Check(version, count, &unused);  // unreported: a version's first launch
  if (counted == TwoVersions::kStale) [[unlikely]] {
    withheld_.Add(WithheldReason::kStaleExecVersion);
    return;
  }
  if (counted != TwoVersions::kOk || ordinal >= count) [[unlikely]] {
    withheld_.Add(WithheldReason::kDispatchCountMismatch);
    return;
  }
  const uint32_t identity = ReconstructedIdentityOf(a);
  if (ordinal >= g.nodes.size()) g.nodes.resize(size_t{ordinal} + 1);
  uint32_t* key = nullptr;
  switch (g.nodes[ordinal].Check(version, identity, &key)) {
    case TwoVersions::kOk:
      break;
    case TwoVersions::kMismatch:
      withheld_.Add(WithheldReason::kIdentityMismatch);
      return;
    case TwoVersions::kStale:
      withheld_.Add(WithheldReason::kStaleExecVersion);
      return;
  }
  if (*key == TwoVersions::kNone && !keys_.Key(graph_id, ordinal, identity, key)) [[unlikely]] {
    withheld_.Add(WithheldReason::kOrdinalSpaceExhausted);
    return;
  }
  a.graph_id = graph_id;
  a.graph_node_id = (uint64_t{graph_id} << 32) | *key;
  return;
}

bool ReconstructingAttributor::Resolve(GpuActivity& a, uint64_t tag, uint64_t queue, bool final) {
  LaunchLog* log = nullptr;
  LaunchLog::Chunk* chunk = nullptr;
  LaunchSlot* slot = tag != 0 ? DecoderSlot(tag, &log, &chunk) : nullptr;
  // The hazard first, before anything is learned from a launch that may hold another's work.
  Hazard hazard = Hazard::kProven;
  if (slot != nullptr) {
    if (slot->ended.load(std::memory_order_acquire) == 0) {
      // Decoded before its launch returned: decided again after later batches, withheld as
      // launch_in_progress only if it is still open at the end (Finish).
      if (!final) return false;
    } else {
      // Foreign writers: judged once per launch, after it ended. A thread with no launch open
      // that processed packets while this launch was open (or since: its packets may have been
      // left pending past its end) may hold some of its packets, unseen by any count.
      if (slot->foreign == 0) {
        const Foreign f = ForeignVerdict(slot, final);
        if (f == Foreign::kUndecided) return false;
        slot->foreign = f == Foreign::kClean ? 1 : 2;
      }
      if (slot->peer_count.load(std::memory_order_acquire) != 0) {
        hazard = HazardVerdict(slot, queue, final);
        if (hazard == Hazard::kUndecided) return false;
      }
    }
  }
  const uint32_t correlation = a.correlation_id;
  Verify(a, tag, slot, log != nullptr, hazard);
  // Work withheld from its graph key is withheld from its user range too: its correlation id is
  // that of the thread that wrote the packet, which may be another thread's call (issue 29).
  if (a.graph_id == 0 && (slot == nullptr || slot->plain.load(std::memory_order_relaxed) == 0)) {
    a.correlation_id = 0;
  } else if (a.graph_id != 0) {
    a.correlation_id = correlation;
  }
  if (slot != nullptr) log->Decided(slot, chunk);
  return true;
}

// ---- The hazard: peers (launching threads) and their proof (decoder). ----

// Called as the thread's outermost launch begins (after publishing it in current_) and as it ends
// (after clearing current_), before `ended` is set: the stream of every other thread's launch open
// at any moment of this one is then in this slot's peers, and this one's in each of theirs
// (seq_cst: of two launches that overlap, at least one sees the other open and writes both slots;
// one seen only by this end scan was added by it, and one that saw this launch but ended first
// wrote its entry before this scan found it closed). Peers are streams, not launches: a long
// launch overlaps many short ones of the same few streams.
void ReconstructingAttributor::RecordPeers(ThreadState* t, LaunchSlot* slot, uint32_t seq,
                                           bool at_end) {
  const uint64_t mine = slot->stream.load(std::memory_order_relaxed);
  if (at_end) {
    t->current_.store(0, std::memory_order_seq_cst);
  } else {
    t->current_.store(uint64_t{seq} + 1, std::memory_order_seq_cst);
  }
  const uint32_t n = thread_count_.load(std::memory_order_seq_cst);
  for (uint32_t i = 1; i <= n; ++i) {
    if (i == t->index_) continue;
    ThreadState* other = threads_[i].load(std::memory_order_acquire);
    if (other == nullptr) continue;
    const uint64_t cur = other->current_.load(std::memory_order_seq_cst);
    if (cur == 0) continue;
    // That launch may have ended since, and its slot been reused: its stream is read under its
    // sequence number (unknown if it changed) and a peer written there only adds one.
    const auto their_seq = static_cast<uint32_t>(cur - 1);
    LaunchSlot* ps = other->log_.SlotAt(their_seq);
    LaunchLog::AddPeer(
        slot, ps != nullptr ? LaunchLog::StreamOf(ps, their_seq) : LaunchSlot::kUnknownStream);
    if (ps != nullptr) LaunchLog::AddPeer(ps, mine != 0 ? mine : LaunchSlot::kUnknownStream);
  }
}

void ReconstructingAttributor::Report(AttributionInfo* info) const {
  info->new_node_ids = new_node_ids_issued();
  info->graph_ids_past_limit = graph_ids_past_limit();
  info->withheld.clear();
  for (size_t r = 0; r < kWithheldReasonName.size(); ++r) {
    info->withheld.emplace_back(kWithheldReasonName[r], withheld_.by_reason[r]);
  }
}

void ReconstructingAttributor::SweepLaunchLog() {
  const uint32_t n = thread_count_.load(std::memory_order_acquire);
  for (uint32_t i = 1; i <= n; ++i) {
    if (ThreadState* t = threads_[i].load(std::memory_order_acquire)) t->log_.Sweep();
  }
}

uint64_t ReconstructingAttributor::launch_log_bytes() const {
  uint64_t bytes = 0;
  const uint32_t n = thread_count_.load(std::memory_order_acquire);
  for (uint32_t i = 1; i <= n; ++i) {
    if (ThreadState* t = threads_[i].load(std::memory_order_acquire)) {
      bytes +=
          t->log_.chunks_allocated() * LaunchLog::kChunkBytes + LaunchLog::kRing * sizeof(void*);
    }
  }
  return bytes;
}

uint64_t ReconstructingAttributor::launches_released() const {
  uint64_t released = 0;
  const uint32_t n = thread_count_.load(std::memory_order_acquire);
  for (uint32_t i = 1; i <= n; ++i) {
    if (ThreadState* t = threads_[i].load(std::memory_order_acquire)) {
      released += t->log_.launches_released();
    }
  }
  return released;
}

}  // namespace nodescope
