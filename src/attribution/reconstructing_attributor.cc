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
  // exec handle -> graph id, valid while cache_generation_ equals the engine's generation.
  static constexpr int kCacheSize = 8;
  uint64_t cache_handle_[kCacheSize] = {};
  uint32_t cache_id_[kCacheSize] = {};
  int cache_next_ = 0;
  uint64_t cache_generation_ = 0;

 private:
  uint32_t next_seq_ = 0;
  std::unique_ptr<std::atomic<LaunchSlot*>[]> chunks_;
};

ReconstructingAttributor::ReconstructingAttributor()
    : threads_(new std::atomic<ThreadState*>[kMaxThreads + 1]) {
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

uint32_t ReconstructingAttributor::NewFreshId() {
  if (next_fresh_ <= max_low_ + 1u)
    return 0;  // would meet the low ids: no id rather than a shared one
  return next_fresh_--;
}

uint32_t ReconstructingAttributor::NewLowId(uint64_t native_id, uint64_t exec_handle) {
  uint64_t id = native_id != 0 ? native_id : next_low_++;
  if (id >= next_fresh_) {
    if (oversized_execs_.fetch_add(1) == 0) {
      std::fprintf(stderr,
                   "nodescope: warning: graph exec 0x%llx has id %llu, too large to pack into a "
                   "graph node id; its work is written without graph keys\n",
                   static_cast<unsigned long long>(exec_handle),
                   static_cast<unsigned long long>(id));
    }
    return 0;
  }
  auto low = static_cast<uint32_t>(id);
  if (low > max_low_) max_low_ = low;
  return low;
}

void ReconstructingAttributor::OnExecCreated(uint64_t exec_handle, uint64_t native_id) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  // A reused address is a new exec: it inherits nothing from the one destroyed before.
  exec_ids_[exec_handle] = NewLowId(native_id, exec_handle);
  generation_.fetch_add(1, std::memory_order_release);
}

void ReconstructingAttributor::OnExecDestroyed(uint64_t exec_handle) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  exec_ids_.erase(exec_handle);
  generation_.fetch_add(1, std::memory_order_release);
}

void ReconstructingAttributor::OnExecChanged(uint64_t exec_handle) {
  std::lock_guard<std::mutex> lock(exec_mu_);
  exec_ids_[exec_handle] = NewFreshId();
  generation_.fetch_add(1, std::memory_order_release);
}

uint32_t ReconstructingAttributor::GraphIdFor(ThreadState* t, uint64_t exec_handle) {
  uint64_t gen = generation_.load(std::memory_order_acquire);
  if (t->cache_generation_ == gen) [[likely]] {
    for (int i = 0; i < ThreadState::kCacheSize; ++i) {
      if (t->cache_handle_[i] == exec_handle && exec_handle != 0) return t->cache_id_[i];
    }
  } else {
    for (uint64_t& h : t->cache_handle_) h = 0;
    t->cache_generation_ = gen;
  }
  uint32_t id;
  {
    std::lock_guard<std::mutex> lock(exec_mu_);
    auto it = exec_ids_.find(exec_handle);
    if (it == exec_ids_.end()) {
      // Instantiated before tracing began: a new exec as far as we can know.
      it = exec_ids_.emplace(exec_handle, NewLowId(0, exec_handle)).first;
    }
    id = it->second;
  }
  int slot = t->cache_next_++ % ThreadState::kCacheSize;
  t->cache_handle_[slot] = exec_handle;
  t->cache_id_[slot] = id;
  return id;
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
  if (slot != nullptr) slot->graph_id.store(GraphIdFor(t, exec_handle), std::memory_order_release);
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
  expected_[graph_id] = count;
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
    withheld_.Add(WithheldReason::kExecIdTooLarge);
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
  uint32_t count = slot->dispatches.load(std::memory_order_relaxed);
  auto [it, first] =
      expected_.try_emplace(graph_id, count);  // unreported: the first launch sets it
  (void)first;
  if (count != it->second || ordinal >= count) {
    withheld_.Add(WithheldReason::kDispatchCountMismatch);
    return;
  }
  if (!identities_.CheckOrLearn(graph_id, ordinal, IdentityOf(a))) {
    withheld_.Add(WithheldReason::kIdentityMismatch);
    return;
  }
  a.graph_id = graph_id;
  a.graph_node_id = (uint64_t{graph_id} << 32) | ordinal;
}

}  // namespace nodescope
