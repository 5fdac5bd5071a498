// Tests of range recording: nesting, disarmed pushes, unbalanced pops, Start/End across threads,
// ranges open at the end, the backend listener, and collection while other threads record.
#include "ranges/range_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"

namespace nodescope {
namespace {

std::map<std::string, UserRange> ByName(const Trace& t) {
  std::map<std::string, UserRange> m;
  t.ranges.ForEach([&](const UserRange& r) { m[std::string(t.strings.Get(r.name))] = r; });
  return m;
}

class RangeRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rec_.Arm();
    since_ = NowNs();
  }
  void TearDown() override { rec_.SetListener(nullptr); }
  Trace Collect() {
    Trace t;
    rec_.Collect(t, since_, NowNs());
    return t;
  }
  RangeRecorder& rec_ = RangeRecorder::Get();
  uint64_t since_ = 0;
};

TEST_F(RangeRecorderTest, NestedPushPopRecordsParentsAndTimes) {
  uint64_t outer = rec_.Push("forward");
  uint64_t inner = rec_.Push("layer.0/attn \"q\"");
  EXPECT_EQ(rec_.CurrentRange(), inner);
  rec_.Pop();
  EXPECT_EQ(rec_.CurrentRange(), outer);
  rec_.Pop();
  EXPECT_EQ(rec_.CurrentRange(), 0u);
  Trace t = Collect();
  auto m = ByName(t);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m["forward"].id, outer);
  EXPECT_EQ(m["forward"].parent_id, 0u);
  EXPECT_EQ(m["layer.0/attn \"q\""].parent_id, outer);
  EXPECT_LE(m["forward"].start_ns, m["layer.0/attn \"q\""].start_ns);
  EXPECT_GE(m["forward"].end_ns, m["layer.0/attn \"q\""].end_ns);
  EXPECT_EQ(m["forward"].flags, 0);
}

TEST_F(RangeRecorderTest, UnbalancedPopIsCountedNotFatal) {
  Trace before = Collect();
  rec_.Pop();
  rec_.Pop();
  Trace t = Collect();
  EXPECT_EQ(t.range_counters.unbalanced_pops - before.range_counters.unbalanced_pops, 2u);
}

// Counters live as long as the process; a session reports those counted since it started.
TEST_F(RangeRecorderTest, CountersCountFromTheSessionsBaseline) {
  rec_.Pop();  // before the session: an earlier session's
  rec_.End(0xabcdef00000002);
  const RangeRecorder::CounterValues baseline = rec_.counter_values();
  rec_.Pop();
  rec_.Pop();
  rec_.End(0xabcdef00000003);
  Trace t;
  rec_.Collect(t, since_, NowNs(), baseline);
  EXPECT_EQ(t.range_counters.unbalanced_pops, 2u);
  EXPECT_EQ(t.range_counters.unknown_ends, 1u);
  EXPECT_EQ(t.range_counters.dropped, 0u);
  Trace whole;  // without a baseline: everything since the process started
  rec_.Collect(whole, since_, NowNs());
  EXPECT_GE(whole.range_counters.unbalanced_pops, 3u);
  EXPECT_GE(whole.range_counters.unknown_ends, 2u);
}

TEST_F(RangeRecorderTest, DisarmedPushesKeepDepthButAreNotRecorded) {
  rec_.Disarm();
  rec_.Push("hidden");
  rec_.Arm();
  uint64_t child = rec_.Push("visible");
  rec_.Pop();
  Trace before = Collect();
  rec_.Pop();  // pops "hidden": balanced, not counted
  Trace t = Collect();
  EXPECT_EQ(t.range_counters.unbalanced_pops, before.range_counters.unbalanced_pops);
  auto m = ByName(t);
  EXPECT_EQ(m.count("hidden"), 0u);
  ASSERT_EQ(m.count("visible"), 1u);
  EXPECT_EQ(m["visible"].id, child);
  EXPECT_EQ(m["visible"].parent_id, 0u);
}

TEST_F(RangeRecorderTest, StartEndAcrossThreadsAndUnknownEnds) {
  uint64_t id = rec_.Start("io");
  std::thread([&] { rec_.End(id); }).join();
  Trace before = Collect();
  rec_.End(id);                // ended twice
  rec_.End(0xabcdef00000001);  // never started
  Trace t = Collect();
  auto m = ByName(t);
  ASSERT_EQ(m.count("io"), 1u);
  EXPECT_TRUE(m["io"].flags & kRangeStartEnd);
  EXPECT_TRUE(m["io"].flags & kRangeCrossThread);
  EXPECT_NE(m["io"].end_tid, m["io"].tid);
  EXPECT_EQ(t.range_counters.unknown_ends - before.range_counters.unknown_ends, 2u);
}

TEST_F(RangeRecorderTest, RangesOpenAtTheEndAreClosedThere) {
  rec_.Push("never closed");
  uint64_t until = NowNs();
  Trace t;
  rec_.Collect(t, since_, until);
  rec_.Pop();
  auto m = ByName(t);
  ASSERT_EQ(m.count("never closed"), 1u);
  EXPECT_EQ(m["never closed"].end_ns, until);
  EXPECT_TRUE(m["never closed"].flags & kRangeOpenAtEnd);
  EXPECT_GE(t.range_counters.open_at_end, 1u);
}

TEST_F(RangeRecorderTest, RangesAThreadEndsInsideAreClosedAtItsExit) {
  const RangeRecorder::CounterValues baseline = rec_.counter_values();
  uint32_t tid = 0;
  uint64_t pushed_ns = 0;
  std::thread([&] {
    tid = static_cast<uint32_t>(gettid());
    rec_.Push("exits inside");
    rec_.Push("exits inside, nested");
    pushed_ns = NowNs();
  }).join();
  const uint64_t joined_ns = NowNs();
  Trace t;
  rec_.Collect(t, since_, NowNs(), baseline);
  auto m = ByName(t);
  for (const char* name : {"exits inside", "exits inside, nested"}) {
    ASSERT_EQ(m.count(name), 1u) << name;
    const UserRange& r = m[name];
    EXPECT_EQ(r.flags, kRangeThreadExited) << name;  // not open at end, not cross-thread
    EXPECT_EQ(r.tid, tid);
    EXPECT_EQ(r.end_tid, tid);
    EXPECT_GE(r.end_ns, pushed_ns);
    EXPECT_LE(r.end_ns, joined_ns);
  }
  EXPECT_EQ(m["exits inside"].end_ns, m["exits inside, nested"].end_ns);
  EXPECT_EQ(t.range_counters.ended_at_thread_exit, 2u);
  EXPECT_EQ(t.range_counters.open_at_end, 0u);
  // The next thread takes the log over with nothing open: its first push is a top-level range.
  std::thread([&] {
    rec_.Push("after the takeover");
    rec_.Pop();
  }).join();
  Trace after = Collect();
  EXPECT_EQ(ByName(after)["after the takeover"].parent_id, 0u);
}

std::vector<std::pair<char, uint64_t>>* g_calls = nullptr;
void OnPush(uint64_t id) { g_calls->push_back({'+', id}); }
void OnPop(uint64_t id) { g_calls->push_back({'-', id}); }

TEST_F(RangeRecorderTest, ListenerSeesEveryRecordedPushAndPop) {
  std::vector<std::pair<char, uint64_t>> calls;
  g_calls = &calls;
  static const RangeRecorder::Listener kListener{&OnPush, &OnPop};
  rec_.SetListener(&kListener);
  uint64_t a = rec_.Push("a");
  uint64_t b = rec_.Push("b");
  rec_.Pop();
  rec_.Pop();
  rec_.SetListener(nullptr);
  std::vector<std::pair<char, uint64_t>> want = {{'+', a}, {'+', b}, {'-', b}, {'-', a}};
  EXPECT_EQ(calls, want);
}

TEST_F(RangeRecorderTest, DomainsAreRegisteredOnce) {
  uint32_t d1 = rec_.RegisterDomain("NCCL");
  EXPECT_EQ(rec_.RegisterDomain("NCCL"), d1);
  EXPECT_NE(d1, 0u);
  rec_.Push("allreduce", d1);
  rec_.Pop();
  Trace t = Collect();
  auto m = ByName(t);
  EXPECT_EQ(t.strings.Get(m["allreduce"].domain), "NCCL");
}

TEST_F(RangeRecorderTest, ConcurrentThreadsWhileCollecting) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int n = 0; n < 2000; ++n) {
        rec_.Push("step");
        rec_.Push("inner");
        rec_.Pop();
        rec_.Pop();
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    Trace t = Collect();
    (void)t;
  }
  for (auto& th : threads) th.join();
  Trace t = Collect();
  size_t inner = 0;
  t.ranges.ForEach([&](const UserRange& r) { inner += t.strings.Get(r.name) == "inner"; });
  EXPECT_EQ(inner, 8000u);
}

// Thread churn (issue 14): a thread's log is handed back when it ends and taken over by the next
// one, so 2000 short-lived threads use one log, not 2000, and every range stays collectable with
// the tid of the thread that recorded it.
TEST_F(RangeRecorderTest, EndedThreadsLogsAreTakenOverNotMultiplied) {
  std::thread([&] {  // a log to take over
    rec_.Push("warm");
    rec_.Pop();
  })
      .join();
  const RangeRecorder::LogCounts before = RangeRecorder::log_counts();
  const RangeRecorder::CounterValues baseline = rec_.counter_values();
  const uint64_t mapped_before = RangeRecorder::MappedBytes();
  constexpr int kThreads = 2000;
  std::vector<uint32_t> tids(kThreads);
  std::vector<uint64_t> started(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    std::thread([&, i] {
      tids[i] = static_cast<uint32_t>(gettid());
      rec_.Push("churn " + std::to_string(i));
      rec_.Pop();
      started[i] = rec_.Start("churn started " + std::to_string(i));
    }).join();
  }
  for (uint64_t id : started) rec_.End(id);  // ids made on a log since taken over stay valid
  const RangeRecorder::LogCounts after = RangeRecorder::log_counts();
  EXPECT_EQ(after.made, before.made);  // before: 2000 logs more (one per thread)
  EXPECT_EQ(after.taken_over - before.taken_over, uint64_t{kThreads});
  // One chunk of slots and one of names at most (before: 512 KiB per thread, 1 GB in all).
  EXPECT_LE(RangeRecorder::MappedBytes() - mapped_before, 2u * 256 * 1024);
  Trace t = Collect();
  auto m = ByName(t);
  for (int i = 0; i < kThreads; ++i) {
    const UserRange& pushed = m["churn " + std::to_string(i)];
    const UserRange& start = m["churn started " + std::to_string(i)];
    ASSERT_EQ(pushed.tid, tids[i]) << i;
    ASSERT_EQ(start.tid, tids[i]) << i;
    ASSERT_EQ(start.flags & kRangeOpenAtEnd, 0) << i;  // ended by its id
  }
  Trace counted;
  rec_.Collect(counted, NowNs(), NowNs(), baseline);
  EXPECT_EQ(counted.range_counters.unknown_ends, 0u);
}

// Threads start and end while others collect and end their Start/End ranges: run under TSan.
TEST_F(RangeRecorderTest, ThreadsEndingWhileCollectingAndEnding) {
  const RangeRecorder::CounterValues baseline = rec_.counter_values();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> to_end{0};
  std::thread collector([&] {
    while (!stop.load()) {
      Trace t = Collect();
      t.ranges.ForEach([&](const UserRange& r) { ASSERT_NE(r.tid, 0u); });
    }
  });
  std::thread ender([&] {
    while (!stop.load()) {
      if (const uint64_t id = to_end.exchange(0)) rec_.End(id);
    }
  });
  constexpr int kWaves = 50;
  constexpr int kPerWave = 4;
  for (int w = 0; w < kWaves; ++w) {
    std::vector<std::thread> wave;
    for (int i = 0; i < kPerWave; ++i) {
      wave.emplace_back([&] {
        for (int n = 0; n < 50; ++n) {
          rec_.Push("wave");
          rec_.Pop();
        }
        uint64_t expected = 0;
        const uint64_t id = rec_.Start("wave started");
        if (!to_end.compare_exchange_strong(expected, id)) rec_.End(id);
      });
    }
    for (auto& th : wave) th.join();
  }
  stop = true;
  collector.join();
  ender.join();
  if (const uint64_t id = to_end.exchange(0)) rec_.End(id);
  Trace t = Collect();
  size_t waves = 0;
  size_t started = 0;
  t.ranges.ForEach([&](const UserRange& r) {
    waves += t.strings.Get(r.name) == "wave";
    if (t.strings.Get(r.name) == "wave started") {
      ++started;
      EXPECT_EQ(r.flags & kRangeOpenAtEnd, 0);
    }
  });
  EXPECT_EQ(waves, size_t{kWaves * kPerWave * 50});
  EXPECT_EQ(started, size_t{kWaves * kPerWave});
  Trace counted;
  rec_.Collect(counted, NowNs(), NowNs(), baseline);
  EXPECT_EQ(counted.range_counters.unknown_ends, 0u);
}

}  // namespace
}  // namespace nodescope

namespace nodescope {
namespace {

std::vector<std::pair<char, uint64_t>>* g_sync_calls = nullptr;
void SyncPush(uint64_t id) { g_sync_calls->push_back({'+', id}); }
void SyncPop(uint64_t id) { g_sync_calls->push_back({'-', id}); }

TEST(RangeRecorderListener, RangesOpenBeforeTheListenerAreAnnouncedThenPoppedOnce) {
  RangeRecorder& rec = RangeRecorder::Get();
  rec.Arm();
  rec.SetListener(nullptr);
  uint64_t outer = rec.Push("before backend");
  std::vector<std::pair<char, uint64_t>> calls;
  g_sync_calls = &calls;
  static const RangeRecorder::Listener kListener{&SyncPush, &SyncPop};
  rec.SetListener(&kListener);
  rec.SyncThisThread();  // what the session does on the thread that initialised the GPU
  uint64_t inner = rec.Push("after");
  rec.Pop();
  rec.Pop();
  rec.SetListener(nullptr);
  std::vector<std::pair<char, uint64_t>> want = {
      {'+', outer}, {'+', inner}, {'-', inner}, {'-', outer}};
  EXPECT_EQ(calls, want);
}

}  // namespace
}  // namespace nodescope
