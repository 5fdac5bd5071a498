// Per-thread launch stacks, launch logs and the decode-time checks of reconstructed attribution.
#include "attribution/reconstructing_attributor.h"

#include <cstdio>

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
  struct LaunchSlot {
    std::atomic<uint32_t> graph_id{0};
    std::atomic<uint32_t> version{0};
    std::atomic<uint32_t> dispatches{0};
    std::atomic<uint32_t> ended{0};
  };
  static constexpr uint32_t kChunk = 4096;
  static constexpr uint32_t kMaxChunks = 1u << 14;  // 67 M launches per thread

  explicit ThreadState(uint32_t index)
      : index_(index), chunks_(new std::atomic<LaunchSlot*>[kMaxChunks]) {
    for (uint32_t i = 0; i < kMaxChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  }
  ~ThreadState() {
    for (uint32_t i = 0; i < kMaxChunks; ++i) delete[] chunks_[i].load();
  }

  // Owner thread: a new slot (allocates once per kChunk launches).
  LaunchSlot* NewSlot(uint32_t* seq) {
    *seq = next_seq_++;
    uint32_t chunk = *seq / kChunk;
    if (chunk >= kMaxChunks) return nullptr;
    LaunchSlot* c = chunks_[chunk].load(std::memory_order_relaxed);
    if (c == nullptr) {
      c = new LaunchSlot[kChunk];
      chunks_[chunk].store(c, std::memory_order_release);
    }
    return &c[*seq % kChunk];
  }
  // Any thread: the slot of launch `seq`, or null if it was never created.
  LaunchSlot* SlotAt(uint32_t seq) const {
    uint32_t chunk = seq / kChunk;
    if (chunk >= kMaxChunks) return nullptr;
    LaunchSlot* c = chunks_[chunk].load(std::memory_order_acquire);
    return c == nullptr ? nullptr : &c[seq % kChunk];
  }

  struct Frame {
    LaunchSlot* slot;
    uint32_t seq;
    uint32_t ordinal;
    uint64_t correlation;
  };
  uint32_t index_;
  Frame frames_[kMaxDepth] = {};
  int depth_ = 0;
  int overflow_ = 0;  // launches nested deeper than kMaxDepth: their work is unattributed
  // exec handle -> graph id and version, valid while cache_generation_ equals the engine's.
  static constexpr int kCacheSize = 8;
  uint64_t cache_handle_[kCacheSize] = {};
  Exec cache_exec_[kCacheSize] = {};
  int cache_next_ = 0;
  uint64_t cache_generation_ = 0;

 private:
  uint32_t next_seq_ = 0;
  std::unique_ptr<std::atomic<LaunchSlot*>[]> chunks_;
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
  if (thread_count_ >= kMaxThreads) return nullptr;
  uint32_t index = ++thread_count_;
  auto* t = new ThreadState(index);
  threads_[index].store(t, std::memory_order_release);
  return t;
}

uint32_t ReconstructingAttributor::NewGraphId(uint64_t exec_handle, uint64_t native_id) {
  if (next_graph_id_ < space_.graph_id_limit) return next_graph_id_++;
  if (past_limit_.fetch_add(1) == 0) {
    std::fprintf(stderr,
                 "nodescope: warning: graph exec 0x%llx (SDK id %llu) is past the %u graph ids "
                 "whose node ids stay exact (below 2^53); the work of such execs is written "
                 "without graph keys\n",
                 static_cast<unsigned long long>(exec_handle),
                 static_cast<unsigned long long>(native_id), space_.graph_id_limit - 1);
  }
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
                                           uint64_t correlation) {
  if (t == nullptr) return;
  if (t->depth_ == kMaxDepth) {
    ++t->overflow_;
    return;
  }
  uint32_t seq = 0;
  ThreadState::LaunchSlot* slot = t->NewSlot(&seq);
  if (slot != nullptr) {
    const Exec exec = ExecFor(t, exec_handle);
    slot->version.store(exec.version, std::memory_order_relaxed);
    slot->graph_id.store(exec.graph_id, std::memory_order_release);
  }
  t->frames_[t->depth_++] = ThreadState::Frame{slot, seq, 0, correlation};
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

void ReconstructingAttributor::Resolve(GpuActivity& a, uint64_t tag) {
  a.graph_id = 0;
  a.graph_node_id = 0;
  if (tag == 0) return;  // not launched from a graph (or from a thread we could not follow)
  auto thread = static_cast<uint32_t>(tag >> 52);
  auto seq = static_cast<uint32_t>(tag >> 20);
  auto ordinal = static_cast<uint32_t>((tag >> 1) & kOrdinalMax);
  bool wrong = (tag & 1u) != 0;
  ThreadState* t =
      thread <= kMaxThreads ? threads_[thread].load(std::memory_order_acquire) : nullptr;
  ThreadState::LaunchSlot* slot = t != nullptr ? t->SlotAt(seq) : nullptr;
  if (slot == nullptr) {
    withheld_.Add(WithheldReason::kWrongLaunch);  // a tag we never issued
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
  const uint32_t identity = IdentityOf(a);
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
}

void ReconstructingAttributor::Report(AttributionInfo* info) const {
  info->new_node_ids = new_node_ids_issued();
  info->graph_ids_past_limit = graph_ids_past_limit();
  info->withheld.clear();
  for (size_t r = 0; r < kWithheldReasonName.size(); ++r) {
    info->withheld.emplace_back(kWithheldReasonName[r], withheld_.by_reason[r]);
  }
}

}  // namespace nodescope
