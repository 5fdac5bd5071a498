#include "backends/launch_sampler.h"

#include <limits>

namespace nodescope {
namespace {

std::atomic<uint64_t> g_generation{0};
std::atomic<uint64_t> g_thread_counter{0};

// splitmix64: seeds each thread's generator from (seed, thread ordinal).
uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct ThreadState {
  uint64_t generation = 0;
  uint64_t x = 0;  // xorshift64* state, never 0
};
thread_local ThreadState t_state;

void Bump(std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

LaunchSampler::LaunchSampler(uint32_t every, uint64_t seed, uint32_t burst)
    : every_(every <= 1 ? 1 : every),
      burst_(burst <= 1 ? 1 : (burst > kMaxBurst ? kMaxBurst : burst)),
      threshold_(every_ == 1 ? std::numeric_limits<uint64_t>::max()
                             : std::numeric_limits<uint64_t>::max() / every_),
      graph_threshold_(every_ == 1
                           ? std::numeric_limits<uint64_t>::max()
                           : std::numeric_limits<uint64_t>::max() / (uint64_t{every_} * burst_)),
      seed_(seed),
      generation_(g_generation.fetch_add(1, std::memory_order_relaxed) + 1),
      seen_(every_ == 1 ? nullptr : new std::atomic<uint64_t>[kTrackedExecIds / 64]()),
      owed_(every_ == 1 ? nullptr : new std::atomic<uint64_t>[kTrackedExecIds / 16]()) {}

// A plain load first: most launches find the bit as they want it and need no RMW.
bool LaunchSampler::TestAndSet(std::atomic<uint64_t>* bits, uint32_t id) {
  const uint64_t bit = uint64_t{1} << (id % 64);
  std::atomic<uint64_t>& word = bits[id / 64];
  return (word.load(std::memory_order_relaxed) & bit) != 0 ||
         (word.fetch_or(bit, std::memory_order_relaxed) & bit) != 0;
}

void LaunchSampler::SetOwed(uint32_t id, uint32_t k) {
  const unsigned shift = (id % 16) * 4;
  std::atomic<uint64_t>& word = owed_[id / 16];
  uint64_t old = word.load(std::memory_order_relaxed);
  uint64_t want;
  do {
    want = (old & ~(uint64_t{0xf} << shift)) | (uint64_t{k} << shift);
  } while (old != want && !word.compare_exchange_weak(old, want, std::memory_order_relaxed));
}

// A plain load first: an exec that owes nothing (most launches) needs no RMW.
uint32_t LaunchSampler::TakeOwed(uint32_t id) {
  const unsigned shift = (id % 16) * 4;
  std::atomic<uint64_t>& word = owed_[id / 16];
  uint64_t old = word.load(std::memory_order_relaxed);
  uint32_t k;
  do {
    k = static_cast<uint32_t>(old >> shift) & 0xf;
    if (k == 0) return 0;
  } while (
      !word.compare_exchange_weak(old, old - (uint64_t{1} << shift), std::memory_order_relaxed));
  return k;
}

bool LaunchSampler::Draw(uint64_t threshold) {
  if (every_ == 1) return true;
  ThreadState& s = t_state;
  if (s.generation != generation_) {
    s.generation = generation_;
    s.x = SplitMix(seed_ ^ SplitMix(g_thread_counter.fetch_add(1, std::memory_order_relaxed)));
    if (s.x == 0) s.x = 1;
  }
  s.x ^= s.x >> 12;
  s.x ^= s.x << 25;
  s.x ^= s.x >> 27;
  return s.x * 0x2545f4914f6cdd1dull < threshold;
}

LaunchSampler::Decision LaunchSampler::SampleGraphLaunch(uint32_t exec_id, bool window_open) {
  Bump(graph_launches_);
  if (every_ == 1) {
    Bump(graph_kept_);
    return Decision::kKeep;
  }
  if (exec_id >= kTrackedExecIds) {
    Bump(untracked_);
    if (!window_open) return Decision::kSkip;
    Bump(graph_overlaps_);
    return Decision::kDiscard;
  }
  const bool first = !TestAndSet(seen_.get(), exec_id);
  // Owed by an earlier pick: kept (within a burst) or the guard (its last).
  const uint32_t owed = first ? 0 : TakeOwed(exec_id);
  if (owed > 1) {
    Bump(graph_kept_);
    return Decision::kKeep;
  }
  if (first || Draw(graph_threshold_)) {
    Bump(graph_kept_);
    SetOwed(exec_id, burst_);  // its next launches: burst_ - 1 kept, then a guard
    return Decision::kKeep;
  }
  // Instrumented either way now, this launch is the exec's guard if one is owed.
  const bool guard = owed == 1;
  if (!guard && !window_open) return Decision::kSkip;
  Bump(guard ? graph_guards_ : graph_overlaps_);
  return Decision::kDiscard;
}

LaunchSampler::Decision LaunchSampler::SamplePlainLaunch(bool window_open) {
  Bump(plain_launches_);
  if (Draw(threshold_)) {
    Bump(plain_kept_);
    return Decision::kKeep;
  }
  if (!window_open) return Decision::kSkip;
  Bump(plain_overlaps_);
  return Decision::kDiscard;
}

LaunchSampler::Counts LaunchSampler::counts() const {
  auto get = [](const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); };
  Counts c;
  c.graph_launches = get(graph_launches_);
  c.graph_launches_kept = get(graph_kept_);
  c.graph_guards = get(graph_guards_);
  c.graph_overlaps = get(graph_overlaps_);
  c.plain_launches = get(plain_launches_);
  c.plain_launches_kept = get(plain_kept_);
  c.plain_overlaps = get(plain_overlaps_);
  c.untracked_execs = get(untracked_);
  return c;
}

}  // namespace nodescope
