// Tests of ring mode (issue 14): per-thread capacity, flat memory over millions of ranges, open
// ranges kept, stale ends refused, the name table, and collection while other threads record.
#include "ranges/range_ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "ranges/range_names.h"
#include "ranges/range_recorder.h"

namespace nodescope {
namespace {

// Each test records on threads of its own; a thread takes over the log (and ring) of one that
// ended, so a ring may start with an earlier test's ranges (at most its capacity, all ended).
class RangeRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rec_.Arm();
    rec_.SetRingSlots(1024);
    before_ = rec_.counter_values();
  }
  void TearDown() override { rec_.SetRingSlots(0); }
  Trace Collect() {
    Trace t;
    rec_.Collect(t, 0, NowNs(), before_);
    return t;
  }
  static size_t Count(const Trace& t, std::string_view name) {
    size_t n = 0;
    t.ranges.ForEach([&](const UserRange& r) { n += t.strings.Get(r.name) == name; });
    return n;
  }
  RangeRecorder& rec_ = RangeRecorder::Get();
  RangeRecorder::CounterValues before_;
};

TEST_F(RangeRingTest, HoldsTheNewestRangesUpToItsCapacity) {
  std::vector<uint64_t> ids;
  std::thread([&] {
    for (int i = 0; i < 5000; ++i) {
      ids.push_back(rec_.Push("capacity"));
      rec_.Pop();
    }
  }).join();
  Trace t = Collect();
  EXPECT_EQ(Count(t, "capacity"), 1024u);
  EXPECT_GE(t.range_counters.ring_released, 5000u - 1024u);
  EXPECT_LE(t.range_counters.ring_released, 5000u);  // (and what a ring taken over held)
  EXPECT_EQ(t.range_counters.dropped, 0u);
  std::set<uint64_t> held;
  t.ranges.ForEach([&](const UserRange& r) {
    if (t.strings.Get(r.name) == "capacity") held.insert(r.id);
  });
  EXPECT_EQ(held, std::set<uint64_t>(ids.end() - 1024, ids.end()));
}

#if defined(__SANITIZE_THREAD__)
constexpr int kManyRanges =
    1'000'000;  // ThreadSanitizer runs it 20x slower; the plain build does 10 M
#else
constexpr int kManyRanges = 10'000'000;
#endif

TEST_F(RangeRingTest, MemoryStaysFlatOverTenMillionRanges) {
  const char* names[] = {"forward", "backward", "step", "allreduce", "optimizer"};
  uint64_t mapped_after_a_tenth = 0;
  std::thread([&] {
    for (int i = 0; i < kManyRanges; ++i) {
      rec_.Push(names[i % 5]);
      rec_.Pop();
      if (i == kManyRanges / 10) mapped_after_a_tenth = RangeRecorder::MappedBytes();
    }
  }).join();
  EXPECT_EQ(RangeRecorder::MappedBytes(), mapped_after_a_tenth);
  Trace t = Collect();
  EXPECT_GE(t.range_counters.ring_released, kManyRanges - 1024u);
  EXPECT_LE(t.range_counters.ring_released, uint64_t{kManyRanges});
  EXPECT_EQ(t.range_counters.ring_unnamed, 0u);
  EXPECT_EQ(t.range_counters.dropped, 0u);
  EXPECT_EQ(Count(t, "forward") + Count(t, "backward") + Count(t, "step") + Count(t, "allreduce") +
                Count(t, "optimizer"),
            1024u);
}

TEST_F(RangeRingTest, OpenRangesAreKeptWhileOpen) {
  uint64_t job = 0;
  std::atomic<int> step{0};
  std::thread recorder([&] {
    rec_.Push("outer");
    job = rec_.Start("job");
    for (int i = 0; i < 5000; ++i) {
      rec_.Push("inner");
      rec_.Pop();
    }
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    rec_.Pop();  // (a thread that ended with it open would keep its slot for the next owner)
  });
  while (step.load() != 1) std::this_thread::yield();
  Trace open = Collect();
  step = 2;
  recorder.join();
  EXPECT_EQ(Count(open, "outer"), 1u);
  EXPECT_EQ(Count(open, "job"), 1u);
  EXPECT_EQ(Count(open, "inner"), 1022u);  // the two open ranges keep their slots
  EXPECT_EQ(open.range_counters.dropped, 0u);
  rec_.End(job);
  Trace ended = Collect();
  EXPECT_EQ(ended.range_counters.unknown_ends, 0u);
  bool job_ended = false;
  ended.ranges.ForEach([&](const UserRange& r) {
    if (ended.strings.Get(r.name) == "job") job_ended = (r.flags & kRangeOpenAtEnd) == 0;
  });
  EXPECT_TRUE(job_ended);
}

// An End for a range whose slot now holds a newer range must not end the newer one.
TEST_F(RangeRingTest, AStaleEndDoesNotEndTheRangeThatReusedTheSlot) {
  uint64_t first = 0;
  uint64_t second = 0;
  std::thread([&] {
    first = rec_.Start("first");
    rec_.End(first);
    for (int i = 0; i < 1023; ++i) {
      rec_.Push("filler");
      rec_.Pop();
    }
    second = rec_.Start("second");  // the slot "first" had
  }).join();
  EXPECT_NE(first, second);
  rec_.End(first);
  Trace t = Collect();
  EXPECT_EQ(t.range_counters.unknown_ends, 1u);
  EXPECT_EQ(Count(t, "first"), 0u);
  bool second_open = false;
  t.ranges.ForEach([&](const UserRange& r) {
    if (t.strings.Get(r.name) == "second") second_open = (r.flags & kRangeOpenAtEnd) != 0;
  });
  EXPECT_TRUE(second_open);
  rec_.End(second);
}

// Names are interned process-wide (range_names.h): a thread may use thousands of distinct names
// (before: 1024 per thread, the rest unnamed), and a name is stored once for every thread.
TEST_F(RangeRingTest, ThousandsOfDistinctNamesKeepTheirNames) {
  std::vector<std::thread> threads;
  std::atomic<int> alive{0};
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&] {
      rec_.Push("ring request 0");  // this thread's ring made, then kept while the other starts
      rec_.Pop();
      alive.fetch_add(1);
      while (alive.load() < 2) std::this_thread::yield();  // two rings, not one taken over
      for (int i = 0; i < 3000; ++i) {
        rec_.Push("ring request " + std::to_string(i));
        rec_.Pop();
      }
    });
  }
  for (auto& th : threads) th.join();
  const uint32_t names = ranges_internal::RangeNameCount();
  Trace t = Collect();
  EXPECT_EQ(t.range_counters.ring_unnamed, 0u);  // before: at least 2 x 1976
  EXPECT_EQ(Count(t, RangeRing::kUnnamed), 0u);
  EXPECT_EQ(Count(t, "ring request 2999"), 2u);
  std::thread([&] {  // known names: none added
    for (int i = 0; i < 3000; ++i) {
      rec_.Push("ring request " + std::to_string(i));
      rec_.Pop();
    }
  })
      .join();
  EXPECT_EQ(ranges_internal::RangeNameCount(), names);
}

// Once the table is full, names are counted as unnamed and memory stays flat. In a child process:
// a full table would leave every later test without names.
TEST_F(RangeRingTest, NamesPastTheTableAreCountedAndMemoryStaysFlat) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        uint64_t mapped = 0;
        std::thread([&] {
          for (uint32_t i = 0; i < ranges_internal::kNameEntries; ++i) {
            rec_.Push("name " + std::to_string(i));
            rec_.Pop();
          }
          mapped = RangeRecorder::MappedBytes();
          for (int i = 0; i < 3000; ++i) {
            rec_.Push("past the table " + std::to_string(i));
            rec_.Pop();
          }
        }).join();
        Trace t = Collect();
        const bool ok = RangeRecorder::MappedBytes() == mapped &&
                        t.range_counters.ring_unnamed >= 3000 &&
                        t.range_counters.ring_unnamed < ranges_internal::kNameEntries / 2 + 3000 &&
                        Count(t, RangeRing::kUnnamed) > 0;
        std::fputs(("unnamed " + std::to_string(t.range_counters.ring_unnamed) + "\n").c_str(),
                   stderr);
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "unnamed");
}

// Streaming (issue 14): a range whose slot is reused before a part collected it is counted as
// unwritten; one that ended before the last part's end, as released. (The recording thread may
// take over a ring of another capacity: the checks hold for any capacity below 200 000.)
TEST_F(RangeRingTest, StreamingCountsRangesThatLeaveBeforeAPartAsUnwritten) {
  rec_.SetStreaming(1000);
  EXPECT_EQ(RangeRecorder::StreamSlotsFor(1000), RangeRecorder::kMaxRingSlots);
  EXPECT_EQ(RangeRecorder::StreamSlotsFor(100'000), 131072u);
  EXPECT_EQ(RangeRecorder::StreamSlotsFor(50'000'000), RangeRecorder::kMaxStreamSlots);
  constexpr int kAfter = 200'000;
  std::atomic<int> step{0};
  std::thread recorder([&] {
    for (int i = 0; i < 1000; ++i) {
      rec_.Push("stream before");
      rec_.Pop();
    }
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    for (int i = 0; i < kAfter; ++i) {
      rec_.Push("stream after");
      rec_.Pop();
    }
  });
  while (step.load() != 1) std::this_thread::yield();
  Trace part;
  const uint64_t until = NowNs();
  rec_.Collect(part, 0, until, before_);
  rec_.MarkWritten(until);
  EXPECT_EQ(Count(part, "stream before"), 1000u);
  EXPECT_FALSE(rec_.RangesAwaitAPart());
  // (reusing a taken-over ring's earlier ranges before MarkWritten counted those as unwritten)
  const RangeRecorder::CounterValues after_part = rec_.counter_values();
  step = 2;
  recorder.join();
  EXPECT_TRUE(rec_.RangesAwaitAPart());  // the ring wrapped: a part was due
  Trace t;
  rec_.Collect(t, 0, NowNs(), after_part);
  // Every later range is still held or counted as unwritten; the written ones only released.
  EXPECT_EQ(Count(t, "stream after") + t.range_counters.unwritten, uint64_t{kAfter});
  EXPECT_GT(t.range_counters.unwritten, 0u);
  EXPECT_EQ(Count(t, "stream before"), 0u);
  EXPECT_GE(t.range_counters.ring_released, 1000u);
  EXPECT_EQ(t.range_counters.dropped, 0u);
}

// A streaming part reads a ring while its owner reuses slots: a slot the part has already read
// releases its range (it is in the part), one not yet read counts it as unwritten; a copy that
// is not a part (until 0) writes nothing, so every reuse is unwritten. Deterministic: the reader's
// callback records on the ring as its owner would, half way through the read. The slots reused
// later are read with their new ranges, which no part writes (they start after its end).
TEST(RangeRingCollect, ReuseBehindAPartsReadIsReleasedAheadOfItUnwritten) {
  for (const uint64_t part_until : {uint64_t{10'000}, uint64_t{0}}) {
    RangeRing* ring = RangeRing::Create(RangeRing::kChunkSlots);
    ASSERT_NE(ring, nullptr);
    constexpr uint64_t kThread = uint64_t{1} << 32;
    for (uint64_t i = 1; i <= RangeRing::kChunkSlots; ++i) {  // all ended by 10 000 ns
      const uint64_t id = ring->Record(kThread, 1, "read", 0, 0, 0, i, /*written_until_ns=*/0);
      ASSERT_NE(id, 0u);
      ring->EndOwn(id, 1, i + 1);
    }
    constexpr uint32_t kReadBefore = 2048;  // the reader's callback has run this many times
    constexpr uint32_t kReused = 3000;
    uint32_t calls = 0;
    ring->ForEachCollecting(part_until, [&](const RingRange&) {
      if (++calls != kReadBefore) return;
      for (uint32_t i = 0; i < kReused; ++i) {
        ring->Record(kThread, 1, "later", 0, 0, 0, 20'000 + i, /*written_until_ns=*/0);
      }
    });
    EXPECT_EQ(calls, RangeRing::kChunkSlots) << part_until;
    // The slot whose range was just handed to the callback (the 2048th) was marked written first.
    const uint64_t read = part_until != 0 ? kReadBefore : 0;
    EXPECT_EQ(ring->released(), read) << part_until;
    EXPECT_EQ(ring->unwritten(), kReused - read) << part_until;
  }
}

// A capture (until 0) that reads a ring while a streaming part marks the ranges it writes sees
// every range: the mark changes no field of a range, so the capture's re-check ignores it.
TEST(RangeRingCollect, ACaptureReadingBesideAPartSeesEveryRange) {
  constexpr uint32_t kSlots = 256;
  constexpr uint64_t kThread = uint64_t{1} << 32;
  uint64_t missed = 0;
  for (int round = 0; round < 400; ++round) {
    RangeRing* ring = RangeRing::Create(kSlots);
    ASSERT_NE(ring, nullptr);
    for (uint64_t i = 1; i <= kSlots; ++i) {
      const uint64_t id = ring->Record(kThread, 1, "r", 0, 0, 0, i, /*written_until_ns=*/0);
      ASSERT_NE(id, 0u);
      ring->EndOwn(id, 1, i + 1);
    }
    std::atomic<int> ready{0};
    auto start_together = [&ready] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
    };
    std::thread part([&] {
      start_together();
      ring->ForEachCollecting(/*until_ns=*/1'000'000, [](const RingRange&) {});
    });
    start_together();
    for (int pass = 0; pass < 4; ++pass) {
      uint64_t seen = 0;
      ring->ForEachCollecting(0, [&](const RingRange&) { ++seen; });
      missed += kSlots - seen;
    }
    part.join();
  }
  EXPECT_EQ(missed, 0u) << "ranges a capture skipped while a part marked them";
}

// Thread churn (issue 14): 2000 short-lived threads, each recording ranges, use one ring between
// them (before: a ring and a name table each, 2000 x 352 KiB).
TEST_F(RangeRingTest, EndedThreadsRingsAreTakenOver) {
  std::thread([&] {
    rec_.Push("churn warm");
    rec_.Pop();
  }).join();
  const uint64_t mapped_before = RangeRecorder::MappedBytes();
  for (int i = 0; i < 2000; ++i) {
    std::thread([&] {
      for (int n = 0; n < 10; ++n) {
        rec_.Push("churn");
        rec_.Pop();
      }
    }).join();
  }
  EXPECT_EQ(RangeRecorder::MappedBytes(), mapped_before);
  Trace t = Collect();
  EXPECT_EQ(Count(t, "churn"), 1024u);
  std::set<uint32_t> tids;
  t.ranges.ForEach([&](const UserRange& r) {
    if (t.strings.Get(r.name) == "churn") tids.insert(r.tid);
  });
  EXPECT_GE(tids.size(), 100u);  // each range keeps its own thread's tid
}

// Threads that end inside a push leave nothing open behind in the ring the next thread takes
// over: 3000 of them through one ring of 1024 slots, none dropped (before: the ring filled with
// ranges no one could pop, and every range after the 1024th was dropped).
TEST_F(RangeRingTest, ThreadsEndingInsideRangesDoNotPinTheRing) {
  std::thread([&] {  // the log (and ring) the threads below take over
    rec_.Push("pinned warm");
    rec_.Pop();
  })
      .join();
  for (int i = 0; i < 3000; ++i) {
    std::thread([&] { rec_.Push("pinned"); }).join();
  }
  std::thread([&] {
    rec_.Push("after the churn");
    rec_.Pop();
  }).join();
  Trace t = Collect();
  EXPECT_EQ(t.range_counters.dropped, 0u);
  EXPECT_EQ(Count(t, "after the churn"), 1u);
  EXPECT_GE(Count(t, "pinned"), 1000u);
  EXPECT_EQ(t.range_counters.open_at_end, 0u);
  t.ranges.ForEach([&](const UserRange& r) {
    if (t.strings.Get(r.name) == "pinned") {
      ASSERT_EQ(r.flags, kRangeThreadExited);
    }
  });
}

// Collect while four threads record: every range it returns is whole (its name, domain, flags
// and times from one write), and no id appears twice.
TEST_F(RangeRingTest, CollectWhileRecordingReturnsWholeRangesOnly) {
  std::vector<uint32_t> domains;
  for (int d = 0; d < 4; ++d) domains.push_back(rec_.RegisterDomain("ring" + std::to_string(d)));
  std::atomic<bool> stop{false};
  std::atomic<int> recording{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int n = 0; !stop.load(std::memory_order_relaxed) || n < 20000; ++n) {
        if (n == 2000) recording.fetch_add(1);
        const int d = (n + w) % 4;
        rec_.Push("ring" + std::to_string(d), domains[d]);
        const uint64_t id = rec_.Start("started" + std::to_string(d), domains[d]);
        rec_.Pop();
        rec_.End(id);
      }
    });
  }
  while (recording.load() < 4) std::this_thread::yield();  // every ring wrapped at least once
  size_t checked = 0;
  for (int i = 0; i < 30; ++i) {
    // Until a minute from now: a ring can be rewritten during one Collect (ThreadSanitizer makes
    // it slow), and ranges started after `until` are left out.
    Trace t;
    rec_.Collect(t, 0, NowNs() + 60'000'000'000ull, before_);
    std::set<uint64_t> ids;
    t.ranges.ForEach([&](const UserRange& r) {
      const std::string name(t.strings.Get(r.name));
      if (name.rfind("ring", 0) != 0 && name.rfind("started", 0) != 0) return;
      const bool started = name[0] == 's';
      ASSERT_EQ(started, (r.flags & kRangeStartEnd) != 0) << name;
      ASSERT_EQ(name.back(), t.strings.Get(r.domain).back()) << name;
      ASSERT_LE(r.start_ns, r.end_ns) << name;
      ASSERT_TRUE(ids.insert(r.id).second) << name;
      ++checked;
    });
  }
  stop = true;
  for (auto& th : threads) th.join();
  EXPECT_GT(checked, 0u);
  Trace t = Collect();
  EXPECT_GT(t.range_counters.ring_released, 0u);
  EXPECT_EQ(t.range_counters.dropped, 0u);
}

TEST(RangeRingSlots, DerivedFromTheWindow) {
  EXPECT_EQ(RangeRecorder::RingSlotsFor(0), RangeRecorder::kMaxRingSlots);  // by time
  EXPECT_EQ(RangeRecorder::RingSlotsFor(100), RangeRecorder::kMinRingSlots);
  EXPECT_EQ(RangeRecorder::RingSlotsFor(20000), 32768u);
  EXPECT_EQ(RangeRecorder::RingSlotsFor(10'000'000), RangeRecorder::kMaxRingSlots);
}

}  // namespace
}  // namespace nodescope
