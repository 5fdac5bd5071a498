// Which launches to trace when sampling (`nodescope run --sample N`, NODESCOPE_SAMPLE=N): a
// backend asks on the application's thread, at the launch API's entry, and switches its vendor's
// activity collection on around the launches this says to instrument, keeping the records of the
// picked ones only. Every graph exec's first launch is picked, so every graph and every node
// appears; after that each launch is picked with probability 1/N, drawn from a per-thread
// generator (never every N-th: a workload's own period must not line up with the sample). No
// lock, no allocation per launch.
//
// Guards: on the H200 (CUDA 13.0) a graph exec launched with kernel activity on keeps writing
// the end timestamps of that launch's records each time it is launched again with activity off,
// until its next launch with activity on: a sampled replay's kernels then last until the replay
// before the next sampled one (measured: 655 us for a 1 us kernel). So the launch of an exec that
// follows a picked launch of it is instrumented too, as a guard, and its records are discarded:
// the picked launch's timestamps are then its own.
//
// Bursts (`burst` B > 1): a picked launch is followed by B - 1 more kept launches of the same
// exec (each one the guard of the one before), then one guard: B kept replays for one guard
// instead of one, so fewer launches are instrumented for the same number kept. The pick draw is
// then made with probability 1/(N*B), so about 1 launch in N is kept either way; the kept
// replays of a burst are consecutive, not independent draws. Backends pick B = 4 unless told
// otherwise (TracerOptions::sample_burst says why); this class's own default is 1.
//
// Overlaps: collection is process-wide, so a launch made while another thread's launch holds it
// on is instrumented whatever we decide. It holds the window open until it returns (so it is
// instrumented whole and can serve as its exec's guard) and its records are discarded, like a
// guard's: keeping it would need a guard of its own, and the guards' windows would catch more
// launches, until every launch of a many-threaded program were traced.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace nodescope {

class LaunchSampler {
 public:
  // Exec ids below this are tracked (first launch, guard); a launch of a larger one cannot be
  // guarded, so it is never picked (counted). CUPTI's exec ids are small sequential numbers.
  static constexpr uint32_t kTrackedExecIds = 1u << 21;

  // `every` <= 1 keeps every launch. `burst`: kept launches in a row per pick, 1..kMaxBurst.
  // `seed` makes the per-thread draws reproducible.
  static constexpr uint32_t kMaxBurst = 15;
  static constexpr uint64_t kDefaultSeed = 0x6e6f646573636f70ull;
  explicit LaunchSampler(uint32_t every, uint64_t seed = kDefaultSeed, uint32_t burst = 1);

  uint32_t every() const { return every_; }
  uint32_t burst() const { return burst_; }

  enum class Decision : uint8_t {
    kSkip,     // collection stays off for it
    kKeep,     // picked: instrumented, records kept
    kDiscard,  // a guard or an overlap (above): instrumented, records discarded
  };
  // A launch of graph exec `exec_id`; `window_open`: collection is on right now for another
  // launch. Thread-safe.
  Decision SampleGraphLaunch(uint32_t exec_id, bool window_open = false);
  // A launch outside any graph (kernel, copy, fill): nothing persists between such launches, so
  // no guard; an overlap is discarded. Thread-safe.
  Decision SamplePlainLaunch(bool window_open = false);

  struct Counts {
    uint64_t graph_launches = 0;
    uint64_t graph_launches_kept = 0;
    uint64_t graph_guards = 0;    // instrumented after a kept launch of the exec, discarded
    uint64_t graph_overlaps = 0;  // instrumented during another launch's window, discarded
    uint64_t plain_launches = 0;
    uint64_t plain_launches_kept = 0;
    uint64_t plain_overlaps = 0;
    uint64_t untracked_execs = 0;  // launches of execs past kTrackedExecIds: never picked
  };
  Counts counts() const;

 private:
  bool Draw(uint64_t threshold);
  bool TestAndSet(std::atomic<uint64_t>* bits, uint32_t id);
  // The exec's owed launches (0: none; k > 1: the next launch is kept, k - 1 then owed; 1: the
  // next launch guards): 4 bits per exec. Set() stores k; Take() returns the value and counts
  // it down by one.
  void SetOwed(uint32_t id, uint32_t k);
  uint32_t TakeOwed(uint32_t id);

  const uint32_t every_;
  const uint32_t burst_;
  const uint64_t threshold_;        // a plain launch's draw below this picks it (1/N)
  const uint64_t graph_threshold_;  // a graph launch's pick draw (1/(N*B))
  const uint64_t seed_;
  const uint64_t generation_;  // tells this sampler's per-thread state from an earlier one's
  std::unique_ptr<std::atomic<uint64_t>[]> seen_;  // bit per exec id: first launch taken
  std::unique_ptr<std::atomic<uint64_t>[]> owed_;  // 4 bits per exec id: TakeOwed()
  std::atomic<uint64_t> graph_launches_{0}, graph_kept_{0}, graph_guards_{0}, graph_overlaps_{0};
  std::atomic<uint64_t> plain_launches_{0}, plain_kept_{0}, plain_overlaps_{0};
  std::atomic<uint64_t> untracked_{0};
};

}  // namespace nodescope
