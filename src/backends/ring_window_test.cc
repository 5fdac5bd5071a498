// The ring window: sizes and durations read strictly, trimming by size and by time at chunk
// granularity with flat memory, graph keys unchanged by what was released, and the window copy.
#include "backends/ring_window.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "attribution/stage.h"

namespace nodescope {
namespace {

constexpr size_t kChunk = ChunkedVector<GpuActivity>::kChunkSize;

GpuActivity Kernel(uint64_t t, uint32_t graph_id = 0, uint64_t node = 0, uint32_t corr = 0) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.start_ns = t;
  a.end_ns = t + 1;
  a.graph_id = graph_id;
  a.graph_node_id = node;
  a.correlation_id = corr;
  return a;
}
ApiCall Api(uint64_t t) {
  ApiCall c{};
  c.start_ns = t;
  c.end_ns = t + 1;
  return c;
}

TEST(RingWindow, ParsesSizesAndDurations) {
  EXPECT_EQ(*ParseRecordCount("10M", "X"), 10'000'000u);
  EXPECT_EQ(*ParseRecordCount("500k", "X"), 500'000u);
  EXPECT_EQ(*ParseRecordCount("1000", "X"), 1000u);
  EXPECT_EQ(*ParseRecordCount("96MB", "X"), 1u << 20) << "bytes are records of 96 B";
  EXPECT_EQ(*ParseDurationNs("60s", "X"), 60'000'000'000u);
  EXPECT_EQ(*ParseDurationNs("5min", "X"), 300'000'000'000u);
  EXPECT_EQ(*ParseDurationNs("250ms", "X"), 250'000'000u);
  StatusOr<WindowPolicy> ring = ParseWindowPolicy("60s", "NODESCOPE_RING");
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->max_age_ns, 60'000'000'000u);
  EXPECT_EQ(ring->Describe(), "time=60s");
  ring = ParseWindowPolicy("256MB", "NODESCOPE_RING");
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->max_records, (256u << 20) / 96);
  EXPECT_EQ(ring->Describe(), "events=" + std::to_string((256u << 20) / 96));
  EXPECT_EQ((WindowPolicy{20000, 250'000'000}.Describe()), "events=20000,time=250ms");
  for (const char* bad : {"", "lots", "10X", "-5", " 5", "0", "0s", "5 s", "10mb", "1e6"}) {
    StatusOr<WindowPolicy> p = ParseWindowPolicy(bad, "NODESCOPE_RING");
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_NE(p.status().message().find("NODESCOPE_RING="), std::string::npos);
      EXPECT_NE(p.status().message().find("a size (10M records, 256MB) or a duration"),
                std::string::npos)
          << p.status().message();
    }
  }
}

TEST(RingWindow, BySizeKeepsTheNewestRecordsAndMemoryStaysFlat) {
  WindowPolicy policy;
  policy.max_records = 3 * kChunk;
  Trace t;
  size_t allocated_after_warmup = 0;
  uint64_t now = 0;
  for (int batch = 0; batch < 2000; ++batch) {  // 2000 buffers of 1000 GPU + 300 API records
    for (int i = 0; i < 1000; ++i) t.gpu.push_back(Kernel(++now));
    for (int i = 0; i < 300; ++i) t.api.push_back(Api(++now));
    TrimWindow(policy, now, &t);
    ASSERT_LE(t.gpu.held() + t.api.held(), policy.max_records + 2 * kChunk) << batch;
    if (batch == 1000) allocated_after_warmup = t.gpu.chunks_allocated() + t.api.chunks_allocated();
  }
  EXPECT_EQ(t.gpu.size(), 2'000'000u);
  EXPECT_EQ(t.gpu.chunks_allocated() + t.api.chunks_allocated(), allocated_after_warmup)
      << "chunks allocated grew over the run: memory is not flat";
  EXPECT_LE(allocated_after_warmup, policy.max_records / kChunk + 4);
  EXPECT_EQ(t.window.ring_released,
            t.gpu.first_index() + t.api.first_index() + t.external.first_index());
  EXPECT_GT(t.window.ring_released, 2'000'000u);
  EXPECT_EQ(t.drops.Total(), 0u) << "what leaves the window is not a drop";
  EXPECT_EQ(t.gpu[t.gpu.size() - 1].start_ns, t.gpu.chunk_back(t.gpu.chunks_held() - 1).start_ns);
}

TEST(RingWindow, ByTimeReleasesChunksThatEndedBeforeTheWindow) {
  WindowPolicy policy;
  policy.max_age_ns = 10'000;
  Trace t;
  for (uint64_t i = 0; i < 10 * kChunk; ++i) t.gpu.push_back(Kernel(i));
  TrimWindow(policy, 10 * kChunk, &t);
  // Records 0 .. 10*kChunk-1 at 1 ns each: those ending before now - 10000 leave, whole chunks.
  const uint64_t cutoff = 10 * kChunk - 10'000;
  EXPECT_LE(t.gpu.first_index(), cutoff);
  EXPECT_GT(t.gpu.first_index() + kChunk, cutoff) << "a whole chunk before the window was kept";
  EXPECT_EQ(t.gpu.first_index() % kChunk, 0u);
  EXPECT_EQ(t.window.ring_released, t.gpu.first_index());
  TrimWindow(policy, 100 * kChunk, &t);
  EXPECT_EQ(t.gpu.chunks_held(), 1u) << "the chunk being filled always stays";
}

TEST(RingWindow, ExternalCorrelationsFollowTheApiCalls) {
  WindowPolicy policy;
  policy.max_records = kChunk;
  Trace t;
  for (uint64_t i = 0; i < 20 * kChunk; ++i) {
    t.api.push_back(Api(i));
    ExternalCorrelation e{};
    e.external_id = i;
    e.correlation_id = static_cast<uint32_t>(i);
    t.external.push_back(e);
    if (i % 1000 == 0) TrimWindow(policy, i, &t);
  }
  TrimWindow(policy, 20 * kChunk, &t);
  EXPECT_LE(t.external.held(), t.api.held() + kChunk);
  EXPECT_LE(t.external.chunks_allocated(), 4u);
}

// Keys come from the stage's first-seen state, not from the records kept: a ring that released
// the first replays (and the exec update's first records) keys the rest exactly as the full
// trace does.
TEST(RingWindow, GraphKeysAreTheFullTracesWhateverWasReleased) {
  auto run = [](bool ring) {
    auto stage = MakeNativeIdStage(true);
    stage->ExecCreated(3, /*correlation=*/1);
    WindowPolicy policy;
    policy.max_records = ring ? kChunk : 0;
    Trace t;
    uint32_t corr = 10;
    for (int replay = 0; replay < 3000; ++replay) {
      ++corr;
      if (replay == 1500) stage->ExecChanged(3, corr++);  // in place: changed nodes get new ids
      const size_t first = t.gpu.size();
      for (uint32_t node = 0; node < 8; ++node) {
        t.gpu.push_back(Kernel(t.gpu.size(), 3, (uint64_t{3} << 32) | node, corr));
      }
      stage->Process(t.gpu, first);
      TrimWindow(policy, t.gpu.size(), &t);
    }
    return t;
  };
  Trace full = run(false);
  Trace ring = run(true);
  ASSERT_GT(ring.gpu.first_index(), 1500u * 8) << "the ring released the update's first replays";
  ASSERT_EQ(full.gpu.size(), ring.gpu.size());
  size_t compared = 0;
  for (size_t i = ring.gpu.first_index(); i < ring.gpu.size(); ++i, ++compared) {
    ASSERT_EQ(ring.gpu[i].graph_id, full.gpu[i].graph_id) << i;
    ASSERT_EQ(ring.gpu[i].graph_node_id, full.gpu[i].graph_node_id) << i;
  }
  EXPECT_GT(compared, 0u);
  EXPECT_NE(full.gpu[0].graph_node_id, full.gpu[full.gpu.size() - 1].graph_node_id)
      << "the update issued new node ids (else this test shows nothing)";
}

TEST(RingWindow, CopyIsTheWindowAndReleaseStreamsIt) {
  WindowPolicy policy;
  policy.max_records = kChunk;
  Trace live;
  live.start_ns = 1;
  live.pid = 42;
  const StringId name = live.strings.Intern("kern");
  for (uint64_t i = 0; i < 5 * kChunk; ++i) {
    GpuActivity a = Kernel(100 + i);
    a.kernel.name = name;
    live.gpu.push_back(a);
  }
  TrimWindow(policy, 0, &live);
  Trace copy;
  CopyWindow(live, /*now_ns=*/999'999, /*release=*/false, &copy);
  EXPECT_EQ(copy.gpu.held(), live.gpu.held());
  EXPECT_EQ(copy.gpu.first_index(), 0u);
  EXPECT_EQ(copy.start_ns, live.gpu[live.gpu.first_index()].start_ns) << "the window's start";
  EXPECT_EQ(copy.end_ns, 999'999u);
  EXPECT_EQ(copy.strings.Get(copy.gpu[0].kernel.name), "kern");
  EXPECT_EQ(copy.pid, 42u);
  EXPECT_EQ(copy.window.ring_released, live.window.ring_released);

  Trace part;
  const size_t held = live.gpu.held();
  CopyWindow(live, 1'000'000, /*release=*/true, &part);
  EXPECT_EQ(part.gpu.held(), held);
  EXPECT_EQ(live.gpu.held(), 0u);
  EXPECT_EQ(live.window.streamed, held);
  live.gpu.push_back(Kernel(5));
  EXPECT_EQ(live.gpu.held(), 1u) << "appends go on after a part";
}

TEST(RingWindow, ProvisionalKeysAreNeverWritten) {
  Trace t;
  t.gpu.push_back(
      Kernel(1, ReconstructingStage::kProvisionalGraphId, ReconstructingStage::kMinTag));
  t.gpu.push_back(Kernel(2, 7, 3));
  FinishWindowCopy(&t);
  EXPECT_EQ(t.gpu[0].graph_id, 0u);
  EXPECT_EQ(t.gpu[0].graph_node_id, 0u);
  EXPECT_EQ(t.gpu[1].graph_id, 7u);
  ASSERT_EQ(t.attribution.withheld.size(), 1u);
  EXPECT_EQ(t.attribution.withheld[0].first, "undecided_at_capture");
}

// Live metrics (issue 27): each record is copied once, by arrival, however late it came: a
// record that reached the window after a later-ending one was copied is copied by the next
// call; one that ended after the bound, or whose key is provisional, waits; a part or the trace
// at exit sees which ones were counted (metrics_fed), the copies do not carry the mark.
TEST(RingWindow, LiveMetricsCopyEachRecordOnceByArrival) {
  Trace t;
  size_t cursor = 0;
  t.gpu.push_back(Kernel(100, 7, 1));
  t.gpu.push_back(Kernel(500, 7, 2));  // ends after the first bound
  t.gpu.push_back(
      Kernel(110, ReconstructingStage::kProvisionalGraphId, ReconstructingStage::kMinTag));
  Trace first;
  CopyUnfedGpu(t, 1000, 200, &cursor, &first);
  ASSERT_EQ(first.gpu.size(), 1u);
  EXPECT_EQ(first.gpu[0].start_ns, 100u);
  EXPECT_EQ(first.gpu[0].metrics_fed, 0);  // the copy counts it; the live record is marked
  EXPECT_EQ(t.gpu[0].metrics_fed, 1);
  EXPECT_EQ(cursor, 1u);  // the record ending after the bound is the first left
  // Late: a record that ended long before the last bound reaches the window now, and the
  // provisional one is decided.
  t.gpu.push_back(Kernel(50, 7, 3));
  t.gpu[2].graph_id = 7;
  t.gpu[2].graph_node_id = 4;
  Trace second;
  CopyUnfedGpu(t, 2000, 1000, &cursor, &second);
  ASSERT_EQ(second.gpu.size(), 3u);
  EXPECT_EQ(second.gpu[0].start_ns, 500u);
  EXPECT_EQ(second.gpu[1].start_ns, 110u);
  EXPECT_EQ(second.gpu[2].start_ns, 50u);
  EXPECT_EQ(cursor, 4u);
  Trace third;
  CopyUnfedGpu(t, 3000, UINT64_MAX, &cursor, &third);
  EXPECT_EQ(third.gpu.size(), 0u);
  for (size_t i = 0; i < t.gpu.size(); ++i) EXPECT_EQ(t.gpu[i].metrics_fed, 1) << i;
}

// Streaming (issue 14): a part holds back the records a later batch decides and the next part
// writes them keyed, so the parts together key what one trace would; past the limit they are
// written without keys, as before (undecided_at_capture).
struct Overlap {  // thread A's launch overlaps B's; B's dispatch comes in a later batch
  std::unique_ptr<ReconstructingStage> stage = MakeReconstructingStage(true);
  GpuActivity a{}, b{};
  Overlap() {
    stage->ExecInstantiated(0xa, 0);
    stage->ExecInstantiated(0xb, 0);
    std::atomic<int> step{0};
    std::thread tb([&] {
      stage->LaunchBegin(0xb, 0xb0, 0);
      step = 1;
      while (step.load() < 2) std::this_thread::yield();
      b = Dispatch(200, stage->OnDispatch(0), 2);
      stage->LaunchEnd();
    });
    while (step.load() < 1) std::this_thread::yield();
    stage->LaunchBegin(0xa, 0xa0, 0);
    a = Dispatch(100, stage->OnDispatch(0), 1);
    stage->LaunchEnd();
    step = 2;
    tb.join();
  }
  static GpuActivity Dispatch(uint64_t t, uint64_t tag, uint32_t queue) {
    GpuActivity d = Kernel(t, ReconstructingStage::kProvisionalGraphId, tag);
    d.stream = queue;
    return d;
  }
};

TEST(RingWindow, APartHoldsBackWhatALaterBatchDecides) {
  Overlap o;
  Trace live;
  live.gpu.push_back(Kernel(50));  // no graph's
  live.gpu.push_back(o.a);
  live.gpu.push_back(Kernel(150));
  o.stage->Process(live.gpu, 0);
  ASSERT_EQ(live.gpu[1].graph_id, ReconstructingStage::kProvisionalGraphId)
      << "undecided until B's queue is known (else this test shows nothing)";
  Trace part1;
  std::vector<size_t> moved;
  CopyWindowPart(live, 1000, StreamHeldBack(0), &part1, &moved);
  o.stage->RecordsMoved(moved, live.gpu.size() - moved.size());
  FinishWindowCopy(&part1);
  EXPECT_EQ(part1.gpu.held(), 2u);
  EXPECT_TRUE(part1.attribution.withheld.empty()) << "nothing written undecided";
  EXPECT_EQ(moved, std::vector<size_t>{1});
  ASSERT_EQ(live.gpu.held(), 1u);
  EXPECT_EQ(live.gpu[live.gpu.first_index()].start_ns, 100u);
  EXPECT_EQ(live.window.streamed, 2u);

  const size_t first = live.gpu.size();
  live.gpu.push_back(o.b);
  o.stage->Process(live.gpu, first);  // B's queue is known now: A is decided too
  Trace part2;
  CopyWindowPart(live, 2000, StreamHeldBack(0), &part2, &moved);
  FinishWindowCopy(&part2);
  EXPECT_TRUE(moved.empty());
  ASSERT_EQ(part2.gpu.held(), 2u);
  EXPECT_EQ(part2.gpu[0].start_ns, 100u);
  EXPECT_EQ(part2.gpu[0].graph_id, 1u) << "A, keyed in the part after the one it came in";
  EXPECT_EQ(part2.gpu[1].graph_id, 2u);
  EXPECT_EQ(live.gpu.held(), 0u);
  EXPECT_EQ(live.window.streamed, 4u);
}

TEST(RingWindow, APartPastItsLimitWritesTheOldestUndecidedWithoutKeys) {
  Overlap o;
  Trace live;
  live.gpu.push_back(o.a);
  o.stage->Process(live.gpu, 0);
  Trace part;
  std::vector<size_t> moved;
  CopyWindowPart(live, 1000, /*max_held_back=*/0, &part, &moved);
  o.stage->RecordsMoved(moved, live.gpu.size() - moved.size());
  FinishWindowCopy(&part);
  EXPECT_TRUE(moved.empty());
  ASSERT_EQ(part.gpu.held(), 1u);
  EXPECT_EQ(part.gpu[0].graph_id, 0u);
  ASSERT_EQ(part.attribution.withheld.size(), 1u);
  EXPECT_EQ(part.attribution.withheld[0].first, "undecided_at_capture");
  const size_t first = live.gpu.size();
  live.gpu.push_back(o.b);
  o.stage->Process(live.gpu, first);  // the pending record was written: skipped, never indexed
  EXPECT_EQ(live.gpu[first].graph_id, 2u);
}

}  // namespace
}  // namespace nodescope
