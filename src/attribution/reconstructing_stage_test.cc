// The reconstructing stage as the AMD backend feeds it: launches and packet tags from the
// application's threads, provisional keys verified by Process(), the off switch, and the
// multi-thread hazard: overlapping launches keyed only where hardware queues prove the credit.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "attribution/stage.h"

namespace nodescope {
namespace {

constexpr uint32_t kProvisional = ReconstructingStage::kProvisionalGraphId;

// A dispatch as the decoder stores it: the tag as provisional key, the hardware queue as stream.
GpuActivity Dispatch(StringId kernel, uint64_t tag, uint32_t queue) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.kernel.name = kernel;
  a.graph_id = tag != 0 ? kProvisional : 0;
  a.graph_node_id = tag;
  a.stream = queue;
  return a;
}

// An SDMA copy as the decoder stores it: no hardware queue (stream 0).
GpuActivity Copy(uint64_t bytes, uint64_t tag) {
  GpuActivity a{};
  a.kind = ActivityKind::kMemcpy;
  a.copy.direction = CopyDirection::kHtoD;
  a.copy.bytes = bytes;
  a.graph_id = tag != 0 ? kProvisional : 0;
  a.graph_node_id = tag;
  return a;
}

uint64_t Withheld(const AttributionInfo& info, const char* reason) {
  for (const auto& [r, n] : info.withheld)
    if (r == reason) return n;
  return 0;
}

// One launch of `kernels` on this thread, its dispatches appended to `gpu` on `queue`.
void Launch(ReconstructingStage& s, uint64_t exec, uint64_t stream, uint32_t queue,
            const std::vector<StringId>& kernels, ChunkedVector<GpuActivity>& gpu) {
  s.LaunchBegin(exec, stream, 0);
  for (StringId k : kernels) gpu.push_back(Dispatch(k, s.OnDispatch(0), queue));
  s.LaunchEnd();
}

TEST(ReconstructingStage, ProvisionalKeysBecomeEngineKeys) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  for (int r = 0; r < 3; ++r) Launch(*s, 0x1000, 0x50, 1, {7, 8, 9}, gpu);
  gpu.push_back(Dispatch(4, 0, 1));  // not from a graph: left alone
  EXPECT_GE(gpu[0].graph_node_id, ReconstructingStage::kMinTag);
  s->Process(gpu, 0);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(gpu[i].graph_id, 1u) << i;
    EXPECT_EQ(gpu[i].graph_node_id, (uint64_t{1} << 32) | (i % 3)) << i;
  }
  EXPECT_EQ(gpu[9].graph_id, 0u);
  EXPECT_EQ(gpu[9].graph_node_id, 0u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(info.mode, "reconstructed");
  EXPECT_EQ(s->launching_threads(), 1u);
}

TEST(ReconstructingStage, UpdateKeepsGraphIdAndReusedAddressGetsNewOne) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  Launch(*s, 0x1000, 0x50, 1, {1, 2}, gpu);
  s->ExecUpdated(0x1000);
  Launch(*s, 0x1000, 0x50, 1, {3, 4}, gpu);
  s->ExecDestroyed(0x1000);
  s->ExecInstantiated(0x1000, 0);  // the same address at once
  Launch(*s, 0x1000, 0x50, 1, {5, 6}, gpu);
  s->Process(gpu, 0);
  std::set<uint64_t> keys;
  for (size_t i = 0; i < gpu.size(); ++i) keys.insert(gpu[i].graph_node_id);
  EXPECT_EQ(keys.size(), 6u);
  EXPECT_EQ(gpu[2].graph_id, 1u);
  EXPECT_EQ(gpu[4].graph_id, 2u);
}

// Capture-time ranges by ordinal: every replay of every exec given them, until an update takes
// them away; none where the launch made another number of dispatches than there are ranges.
TEST(ReconstructingStage, ExecScopesFollowOrdinalsIntoReplays) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  s->ExecScopes(0x1000, {11, 22, 11});
  s->ExecInstantiated(0x2000, 0);
  s->ExecScopes(0x2000, {11, 22});  // the backend saw 2 nodes; launches make 3 dispatches
  for (int r = 0; r < 2; ++r) Launch(*s, 0x1000, 0x50, 1, {7, 8, 9}, gpu);
  Launch(*s, 0x2000, 0x50, 1, {7, 8, 9}, gpu);
  s->Process(gpu, 0);
  const uint64_t want[] = {11, 22, 11, 11, 22, 11, 0, 0, 0};
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_NE(gpu[i].graph_id, 0u) << i;
    EXPECT_EQ(gpu[i].capture_range_id, want[i]) << i;
  }
  const size_t first = gpu.size();
  s->ExecUpdated(0x1000);
  s->ExecScopes(0x1000, {});  // updated to a graph whose capture was not followed
  Launch(*s, 0x1000, 0x50, 1, {7, 8, 9}, gpu);
  s->Process(gpu, first);
  for (size_t i = first; i < gpu.size(); ++i) {
    EXPECT_NE(gpu[i].graph_id, 0u) << i;
    EXPECT_EQ(gpu[i].capture_range_id, 0u) << i;
  }
}

TEST(ReconstructingStage, ExecKernelScopesGoByKernelName) {
  // A forked capture: the run order is not known, the ranges go by kernel.
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  s->ExecKernelScopes(0x1000, {{8, 55}, {9, 66}}, 3);
  Launch(*s, 0x1000, 0x50, 1, {9, 7, 8}, gpu);
  s->ExecUpdated(0x1000);  // now 4 nodes: a node the backend did not see
  s->ExecKernelScopes(0x1000, {{8, 55}}, 3);
  Launch(*s, 0x1000, 0x50, 1, {9, 7, 8, 5}, gpu);
  s->Process(gpu, 0);
  EXPECT_EQ(gpu[0].capture_range_id, 66u);
  EXPECT_EQ(gpu[1].capture_range_id, 0u);
  EXPECT_EQ(gpu[2].capture_range_id, 55u);
  for (size_t i = 3; i < 7; ++i) {
    EXPECT_EQ(gpu[i].graph_id, 1u);
    EXPECT_EQ(gpu[i].capture_range_id, 0u) << "4 dispatches, 3 launches captured: none";
  }
}

TEST(ReconstructingStage, OffSwitchClearsProvisionalKeys) {
  auto s = MakeReconstructingStage(false);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  Launch(*s, 0x1000, 0x50, 1, {1, 2}, gpu);
  gpu.push_back(Dispatch(1, ReconstructingStage::kMinTag + 2, 1));  // as a decoder would store it
  s->Process(gpu, 0);
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].graph_id, 0u);
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].graph_node_id, 0u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(info.mode, "disabled");
}

// Two threads launching at once (each between the other's begin and end). `queue_b`: the
// hardware queue thread B's stream uses; A's uses queue 1.
struct Overlap {
  ChunkedVector<GpuActivity> gpu;
  std::unique_ptr<ReconstructingStage> s = MakeReconstructingStage(true);
  // `copies`: each launch starts with an SDMA copy, decoded before any kernel.
  explicit Overlap(uint32_t queue_b, uint64_t stream_b = 0xb0, bool swap = false,
                   bool copies = false) {
    s->ExecInstantiated(0xa, 0);
    s->ExecInstantiated(0xb, 0);
    std::atomic<int> step{0};
    auto wait = [&](int n) {
      while (step.load() < n) std::this_thread::yield();
    };
    std::vector<GpuActivity> a, b, c;
    std::thread ta([&] {
      s->LaunchBegin(0xa, 0xa0, 0);
      step = 1;
      wait(2);
      if (copies) c.push_back(Copy(4096, s->OnDispatch(0)));
      a.push_back(Dispatch(1, s->OnDispatch(0), 1));
      // Under the hazard this thread writes B's first packet (same kernels in both execs).
      if (swap) a.push_back(Dispatch(1, s->OnDispatch(0), queue_b));
      a.push_back(Dispatch(2, s->OnDispatch(0), 1));
      step = 3;
      wait(4);
      s->LaunchEnd();
    });
    std::thread tb([&] {
      wait(1);
      s->LaunchBegin(0xb, stream_b, 0);
      step = 2;
      wait(3);
      if (copies) c.push_back(Copy(8192, s->OnDispatch(0)));
      if (!swap) b.push_back(Dispatch(1, s->OnDispatch(0), queue_b));
      b.push_back(Dispatch(2, s->OnDispatch(0), queue_b));
      if (swap) b.push_back(Dispatch(1, s->OnDispatch(0), queue_b));  // A's packet, B's tag
      s->LaunchEnd();
      step = 4;
    });
    ta.join();
    tb.join();
    for (auto& x : c) gpu.push_back(x);
    for (auto& x : a) gpu.push_back(x);
    for (auto& x : b) gpu.push_back(x);
    s->Process(gpu, 0);
  }
  size_t Keyed() {
    size_t n = 0;
    for (size_t i = 0; i < gpu.size(); ++i) n += gpu[i].graph_id != 0;
    return n;
  }
};

TEST(ReconstructingStage, OverlapOnSeparateQueuesIsProven) {
  Overlap o(/*queue_b=*/2);
  EXPECT_EQ(o.Keyed(), 4u);
  EXPECT_EQ(o.s->overlapped_launches_proven(), 2u);
  EXPECT_EQ(o.s->overlapped_launches_withheld(), 0u);
}

TEST(ReconstructingStage, OverlapOnSharedQueueIsWithheld) {
  Overlap o(/*queue_b=*/1);
  EXPECT_EQ(o.Keyed(), 0u);
  AttributionInfo info;
  o.s->Report(&info);
  EXPECT_EQ(Withheld(info, "hazard_unproven"), 4u);
  EXPECT_EQ(o.s->overlapped_launches_withheld(), 2u);
}

TEST(ReconstructingStage, CopiesAreJudgedWithTheirLaunch) {
  // A copy has no hardware queue; decoded before its launch's kernels it must neither place the
  // launch's stream on a queue of its own (which made every overlapped launch with a copy node
  // unprovable) nor be keyed unless its launch is.
  Overlap proven(/*queue_b=*/2, 0xb0, false, /*copies=*/true);
  EXPECT_EQ(proven.Keyed(), 6u);
  EXPECT_EQ(proven.s->overlapped_launches_proven(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(proven.gpu[i].kind, ActivityKind::kMemcpy);
    EXPECT_EQ(proven.gpu[i].graph_node_id & 0xffffffffu, 0u) << "a copy is its launch's node 0";
  }
  Overlap shared(/*queue_b=*/1, 0xb0, false, /*copies=*/true);
  EXPECT_EQ(shared.Keyed(), 0u);
  AttributionInfo info;
  shared.s->Report(&info);
  EXPECT_EQ(Withheld(info, "hazard_unproven"), 6u);
}

TEST(ReconstructingStage, CopyResizedByAnUpdateGetsANewNodeId) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  s->ExecInstantiated(0x1000, 0);
  auto launch = [&](uint64_t bytes) {
    s->LaunchBegin(0x1000, 0x50, 0);
    gpu.push_back(Dispatch(7, s->OnDispatch(0), 1));
    gpu.push_back(Copy(bytes, s->OnDispatch(0)));
    s->LaunchEnd();
  };
  launch(4096);
  launch(4096);
  s->ExecUpdated(0x1000);
  launch(1 << 20);  // the copy node resized
  s->ExecUpdated(0x1000);
  launch(4096);  // and back
  s->Process(gpu, 0);
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].graph_id, 1u) << i;
  EXPECT_EQ(gpu[1].graph_node_id, (uint64_t{1} << 32) | 1);
  EXPECT_EQ(gpu[3].graph_node_id, gpu[1].graph_node_id);
  EXPECT_NE(gpu[5].graph_node_id, gpu[1].graph_node_id) << "another size is another node's work";
  EXPECT_EQ(gpu[4].graph_node_id, gpu[0].graph_node_id) << "the kernel node keeps its key";
  EXPECT_EQ(gpu[7].graph_node_id, gpu[1].graph_node_id) << "back to the first size, first key";
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(info.new_node_ids, 1u);
}

TEST(ReconstructingStage, OverlapOnOneStreamIsWithheld) {
  Overlap o(/*queue_b=*/1, /*stream_b=*/0xa0);
  EXPECT_EQ(o.Keyed(), 0u);
}

TEST(ReconstructingStage, SwapWithMatchingCountsAndKernelsIsNeverKeyed) {
  // Execs of the same kernels on one queue: each launch's count and kernels still match after
  // the swap, which only the hazard rule catches. Without it both launches would be keyed and
  // A's packet credited to B.
  Overlap o(/*queue_b=*/1, 0xb0, /*swap=*/true);
  EXPECT_EQ(o.Keyed(), 0u);
}

TEST(ReconstructingStage, OverlapWaitsForThePeersQueue) {
  // A's dispatches come in one batch, its peer B's only in the next: A is decided then.
  auto s = MakeReconstructingStage(true);
  s->ExecInstantiated(0xa, 0);
  s->ExecInstantiated(0xb, 0);
  std::vector<GpuActivity> a, b;
  std::atomic<int> step{0};
  std::thread tb([&] {
    s->LaunchBegin(0xb, 0xb0, 0);
    step = 1;
    while (step.load() < 2) std::this_thread::yield();
    b.push_back(Dispatch(11, s->OnDispatch(0), 2));
    s->LaunchEnd();
  });
  while (step.load() < 1) std::this_thread::yield();
  s->LaunchBegin(0xa, 0xa0, 0);
  a.push_back(Dispatch(1, s->OnDispatch(0), 1));
  s->LaunchEnd();
  step = 2;
  tb.join();
  ChunkedVector<GpuActivity> gpu;
  gpu.push_back(a[0]);
  s->Process(gpu, 0);
  EXPECT_EQ(gpu[0].graph_id, kProvisional) << "undecided until B's queue is known";
  gpu.push_back(b[0]);
  s->Process(gpu, 1);
  EXPECT_EQ(gpu[0].graph_id, 1u);
  EXPECT_EQ(gpu[1].graph_id, 2u);
  s->Finish(gpu);
  EXPECT_EQ(s->overlapped_launches_proven(), 2u);
}

TEST(ReconstructingStage, FinishWithholdsWhatNoBatchDecided) {
  auto s = MakeReconstructingStage(true);
  s->ExecInstantiated(0xa, 0);
  s->ExecInstantiated(0xb, 0);
  std::atomic<int> step{0};
  std::thread tb([&] {
    s->LaunchBegin(0xb, 0xb0, 0);  // a launch whose dispatches are never decoded
    step = 1;
    while (step.load() < 2) std::this_thread::yield();
    s->LaunchEnd();
  });
  while (step.load() < 1) std::this_thread::yield();
  ChunkedVector<GpuActivity> gpu;
  s->LaunchBegin(0xa, 0xa0, 0);
  gpu.push_back(Dispatch(1, s->OnDispatch(0), 1));
  s->LaunchEnd();
  step = 2;
  tb.join();
  s->Process(gpu, 0);
  EXPECT_EQ(gpu[0].graph_id, kProvisional);
  s->Finish(gpu);
  EXPECT_EQ(gpu[0].graph_id, 0u);
  EXPECT_EQ(gpu[0].graph_node_id, 0u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "hazard_unproven"), 1u);
}

}  // namespace
}  // namespace nodescope

namespace nodescope {
namespace {

// A ring window (backends/ring_window.h) may release a record still pending: the stage must skip
// it from then on, never index the released chunk.
TEST(ReconstructingStage, PendingRecordsReleasedByARingAreSkipped) {
  auto s = MakeReconstructingStage(true);
  s->ExecInstantiated(0xa, 0);
  s->ExecInstantiated(0xb, 0);
  std::atomic<int> step{0};
  std::thread tb([&] {
    s->LaunchBegin(0xb, 0xb0, 0);  // overlaps A's launch; its dispatches never come
    step = 1;
    while (step.load() < 2) std::this_thread::yield();
    s->LaunchEnd();
  });
  while (step.load() < 1) std::this_thread::yield();
  ChunkedVector<GpuActivity> gpu;
  s->LaunchBegin(0xa, 0xa0, 0);
  gpu.push_back(Dispatch(1, s->OnDispatch(0), 1));
  s->LaunchEnd();
  step = 2;
  tb.join();
  s->Process(gpu, 0);
  ASSERT_EQ(gpu[0].graph_id, kProvisional) << "pending: the test needs an undecided record";
  const size_t first = gpu.size();
  for (size_t i = 0; i < 2 * ChunkedVector<GpuActivity>::kChunkSize; ++i) {
    gpu.push_back(Dispatch(7, 0, 1));
  }
  ASSERT_GT(gpu.ReleaseBefore(ChunkedVector<GpuActivity>::kChunkSize), 0u);
  ASSERT_GT(gpu.first_index(), 0u) << "the pending record left the window";
  s->Process(gpu, first);  // retries pending records: the released one is skipped
  s->Finish(gpu);
  size_t keyed = 0;
  gpu.ForEach([&](const GpuActivity& a) { keyed += a.graph_id != 0; });
  EXPECT_EQ(keyed, 0u);
}

}  // namespace
}  // namespace nodescope

// Issue 29: the hazards beyond two graph launchers.
namespace nodescope {
namespace {

// A plain launch (hipLaunchKernel) on another thread, open while a graph launch writes its
// packets: on a shared hardware queue its kernel may be the graph's ordinal (the graph thread
// rang the doorbell), so the graph launch is withheld whole and the kernels lose their
// correlation ids (no user range); on a queue of its own, everything is proven.
void PlainOverlap(uint32_t plain_queue, ChunkedVector<GpuActivity>& gpu, ReconstructingStage& s) {
  s.ExecInstantiated(0xa, 0);
  std::atomic<int> step{0};
  auto wait = [&](int n) {
    while (step.load() < n) std::this_thread::yield();
  };
  std::vector<GpuActivity> a, p;
  std::thread tp([&] {
    s.PlainBegin(0xc0, 0);
    step = 1;
    wait(2);
    GpuActivity d = Dispatch(9, s.OnDispatch(0), plain_queue);
    d.correlation_id = 77;
    p.push_back(d);
    s.LaunchEnd();
    step = 3;
  });
  wait(1);
  s.LaunchBegin(0xa, 0xa0, 0);
  step = 2;
  for (StringId k : {1, 2, 3}) {
    GpuActivity d = Dispatch(k, s.OnDispatch(0), 1);
    d.correlation_id = 55;
    a.push_back(d);
  }
  wait(3);
  s.LaunchEnd();
  tp.join();
  for (auto& x : a) gpu.push_back(x);
  for (auto& x : p) gpu.push_back(x);
  s.Process(gpu, 0);
  s.Finish(gpu);
}

TEST(ReconstructingStage, PlainLaunchOnSharedQueueWithholdsTheGraphLaunch) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  PlainOverlap(/*plain_queue=*/1, gpu, *s);
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].graph_id, 0u) << i;
    EXPECT_EQ(gpu[i].correlation_id, 0u) << i;  // no user range either
  }
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "hazard_unproven"), 3u);
  EXPECT_EQ(s->plain_unproven(), 1u);
  EXPECT_EQ(s->launching_threads(), 1u);  // a plain launcher is not a graph launcher
}

TEST(ReconstructingStage, PlainLaunchOnItsOwnQueueIsProven) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  PlainOverlap(/*plain_queue=*/2, gpu, *s);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(gpu[i].graph_id, 1u) << i;
    EXPECT_EQ(gpu[i].correlation_id, 55u) << i;
  }
  EXPECT_EQ(gpu[3].graph_id, 0u);  // a plain kernel: never keyed
  EXPECT_EQ(gpu[3].correlation_id, 77u);
  EXPECT_EQ(s->plain_unproven(), 0u);
}

// The scratch experiment: a graph's first launch absorbs another thread's plain kernel
// (its thread rang the shared doorbell) as node 1. Before plain calls were peers, that launch
// taught the exec a count of 4 and the foreign kernel as node 1; now it is withheld whole, and
// the next, clean launch teaches the count and the kernels.
TEST(ReconstructingStage, FirstLaunchAbsorbingAPlainKernelTeachesNothing) {
  auto s = MakeReconstructingStage(true);
  s->ExecInstantiated(0xa, 0);
  ChunkedVector<GpuActivity> gpu;
  std::atomic<int> step{0};
  std::thread tp([&] {
    s->PlainBegin(0xc0, 0);  // its packet written, not processed by this thread
    step = 1;
    while (step.load() < 2) std::this_thread::yield();
    s->LaunchEnd();
    step = 3;
  });
  while (step.load() < 1) std::this_thread::yield();
  s->LaunchBegin(0xa, 0xa0, 0);
  gpu.push_back(Dispatch(1, s->OnDispatch(0), 1));
  gpu.push_back(Dispatch(9, s->OnDispatch(0), 1));  // the plain kernel, as ordinal 1
  gpu.push_back(Dispatch(2, s->OnDispatch(0), 1));
  gpu.push_back(Dispatch(3, s->OnDispatch(0), 1));
  step = 2;
  while (step.load() < 3) std::this_thread::yield();
  s->LaunchEnd();
  tp.join();
  Launch(*s, 0xa, 0xa0, 1, {1, 2, 3}, gpu);  // clean
  s->Process(gpu, 0);
  s->Finish(gpu);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(gpu[i].graph_id, 0u) << i;
  for (size_t i = 4; i < 7; ++i) {
    EXPECT_EQ(gpu[i].graph_id, 1u) << i;
    EXPECT_EQ(gpu[i].graph_node_id, (uint64_t{1} << 32) | (i - 4)) << i;
  }
}

// A packet processed on a thread with no launch open (ROCr's async doorbell thread, HIP's
// worker) while a launch is open: that launch may have lost packets to it, unseen by its count.
// So may one that ended before but was not judged yet (ROCr can leave a launch's packets pending
// past its return). Judged by queue: withheld where the foreign dispatch ran on the launch's
// queue (or was never decoded); a launch begun after it is not concerned.
void ForeignWriter(uint32_t foreign_queue, bool decoded, ChunkedVector<GpuActivity>& gpu,
                   ReconstructingStage& s) {
  s.ExecInstantiated(0xa, 0);
  Launch(s, 0xa, 0xa0, 1, {1, 2}, gpu);  // before
  s.LaunchBegin(0xa, 0xa0, 0);
  gpu.push_back(Dispatch(1, s.OnDispatch(0), 1));
  uint64_t foreign = 0;
  std::thread([&] { foreign = s.OnDispatch(0); }).join();  // the async thread processes a packet
  s.LaunchEnd();
  EXPECT_TRUE(ReconstructingStage::IsForeignTag(foreign));
  EXPECT_EQ(s.OnDispatch(0, /*packet=*/false), 0u);  // an SDMA copy of its own: not foreign
  Launch(s, 0xa, 0xa0, 1, {1, 2}, gpu);              // after
  if (decoded) {
    GpuActivity f = Dispatch(2, foreign, foreign_queue);
    f.correlation_id = 99;
    gpu.push_back(f);
  }
  s.Process(gpu, 0);
  s.Finish(gpu);
  if (decoded) {
    EXPECT_EQ(gpu[5].graph_id, 0u);
    EXPECT_EQ(gpu[5].correlation_id, 0u);  // names neither its launch nor a range
  }
  EXPECT_EQ(s.foreign_dispatches(), 1u);
}

TEST(ReconstructingStage, ForeignWriterOnTheLaunchQueueWithholds) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  ForeignWriter(/*foreign_queue=*/1, /*decoded=*/true, gpu, *s);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(gpu[i].graph_id, 0u) << i;
  EXPECT_EQ(gpu[3].graph_id, 1u);
  EXPECT_EQ(gpu[4].graph_id, 1u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "foreign_writer"), 3u);
}

TEST(ReconstructingStage, ForeignWriterNeverDecodedWithholds) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  ForeignWriter(/*foreign_queue=*/1, /*decoded=*/false, gpu, *s);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "foreign_writer"), 3u);
  EXPECT_EQ(gpu[3].graph_id, 1u);
}

TEST(ReconstructingStage, ForeignWriterOnAnotherQueueProvesNothingAway) {
  auto s = MakeReconstructingStage(true);
  ChunkedVector<GpuActivity> gpu;
  ForeignWriter(/*foreign_queue=*/2, /*decoded=*/true, gpu, *s);
  EXPECT_EQ(gpu[0].graph_id, 1u);
  EXPECT_EQ(gpu[1].graph_id, 1u);
  EXPECT_EQ(gpu[2].graph_id, 0u);  // its launch made 1 dispatch of 2: the count check
  EXPECT_EQ(gpu[3].graph_id, 1u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "foreign_writer"), 0u);
  EXPECT_EQ(Withheld(info, "dispatch_count_mismatch"), 1u);
}

// launch_in_progress: a dispatch decoded before its launch returned is decided again after a
// later batch, not withheld at once; only at Finish, if still open.
TEST(ReconstructingStage, LaunchInProgressIsRetried) {
  auto s = MakeReconstructingStage(true);
  s->ExecInstantiated(0xa, 0);
  ChunkedVector<GpuActivity> gpu;
  s->LaunchBegin(0xa, 0xa0, 0);
  gpu.push_back(Dispatch(1, s->OnDispatch(0), 1));
  s->Process(gpu, 0);
  EXPECT_EQ(gpu[0].graph_id, kProvisional);  // undecided
  gpu.push_back(Dispatch(2, s->OnDispatch(0), 1));
  s->LaunchEnd();
  s->Process(gpu, 1);
  EXPECT_EQ(gpu[0].graph_id, 1u);
  EXPECT_EQ(gpu[1].graph_id, 1u);
  s->LaunchBegin(0xa, 0xa0, 0);  // never ends before the trace does
  gpu.push_back(Dispatch(1, s->OnDispatch(0), 1));
  s->Process(gpu, 2);
  s->Finish(gpu);
  EXPECT_EQ(gpu[2].graph_id, 0u);
  AttributionInfo info;
  s->Report(&info);
  EXPECT_EQ(Withheld(info, "launch_in_progress"), 1u);
  s->LaunchEnd();
}

}  // namespace
}  // namespace nodescope
