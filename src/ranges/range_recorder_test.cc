// Tests of range recording: nesting, disarmed pushes, unbalanced pops, Start/End across threads,
// ranges open at the end, the backend listener, and collection while other threads record.
#include "ranges/range_recorder.h"

#include <gtest/gtest.h>

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
