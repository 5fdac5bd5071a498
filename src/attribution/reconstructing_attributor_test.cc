// Scripted sequences through reconstructed attribution: the SDK recipe, nested launches,
// re-instantiation at a reused address, exec update, oversized ids, interleaved threads, and
// dispatches credited to the wrong thread, which must be withheld and never mislabelled.
#include "attribution/reconstructing_attributor.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace nodescope {
namespace {

using Engine = ReconstructingAttributor;

struct Dispatch {
  StringId kernel;
  uint64_t tag;
};

GpuActivity KernelRecord(StringId name) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.kernel.name = name;
  return a;
}

// What the engine emitted: key -> kernels it named, and key -> occurrences.
struct Keys {
  std::map<uint64_t, std::set<StringId>> names;
  std::map<uint64_t, int> count;
  int unkeyed = 0;
  void Add(const GpuActivity& a) {
    if (a.graph_id == 0) {
      ++unkeyed;
      return;
    }
    EXPECT_EQ(a.graph_node_id >> 32, a.graph_id);
    names[a.graph_node_id].insert(a.kernel.name);
    ++count[a.graph_node_id];
  }
  size_t Aliased() const {
    size_t n = 0;
    for (const auto& [k, v] : names) n += v.size() > 1;
    return n;
  }
};

// Launches `exec` on `t` with kernels dispatched in order; returns the dispatches.
std::vector<Dispatch> Launch(Engine& e, Engine::ThreadState* t, uint64_t exec,
                             const std::vector<StringId>& kernels, uint64_t corr = 0) {
  std::vector<Dispatch> out;
  e.LaunchBegin(t, exec, corr);
  for (StringId k : kernels) out.push_back({k, e.OnDispatch(t, corr)});
  e.LaunchEnd(t);
  return out;
}

void ResolveAll(Engine& e, const std::vector<Dispatch>& ds, Keys& keys) {
  for (const Dispatch& d : ds) {
    GpuActivity a = KernelRecord(d.kernel);
    e.Resolve(a, d.tag);
    keys.Add(a);
  }
}

TEST(ReconstructingAttributor, SdkRecipeOnOneThread) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  e.OnExecCreated(0x1000, 1);
  Keys keys;
  for (int r = 0; r < 200; ++r) ResolveAll(e, Launch(e, t, 0x1000, {10, 11, 12, 13}), keys);
  EXPECT_EQ(keys.names.size(), 4u);
  for (const auto& [k, n] : keys.count) EXPECT_EQ(n, 200);
  EXPECT_EQ(keys.names.begin()->first, uint64_t{1} << 32);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(e.withheld().Total(), 0u);
  EXPECT_EQ(e.new_node_ids_issued(), 0u);
  // A plain launch outside any graph: no tag, no keys.
  GpuActivity plain = KernelRecord(99);
  e.Resolve(plain, e.OnDispatch(t, 0));
  EXPECT_EQ(plain.graph_id, 0u);
}

TEST(ReconstructingAttributor, NestedLaunchesUseTheInnermost) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  e.OnExecCreated(0xa, 1);
  e.OnExecCreated(0xb, 2);
  Keys keys;
  std::vector<Dispatch> ds;
  e.LaunchBegin(t, 0xa, 0);
  ds.push_back({1, e.OnDispatch(t, 0)});
  ds.push_back({2, e.OnDispatch(t, 0)});  // dispatched after the nested launch ends
  e.LaunchBegin(t, 0xb, 0);
  Dispatch inner{5, e.OnDispatch(t, 0)};
  e.LaunchEnd(t);
  Dispatch outer_last{3, e.OnDispatch(t, 0)};
  e.LaunchEnd(t);
  ds.push_back(inner);
  ds.push_back(outer_last);
  ResolveAll(e, ds, keys);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(keys.count[(uint64_t{2} << 32) | 0], 1);
  EXPECT_EQ(keys.count[(uint64_t{1} << 32) | 2], 1) << "the outer launch's third dispatch";
  EXPECT_EQ(e.withheld().Total(), 0u);
}

TEST(ReconstructingAttributor, ReusedAddressInheritsNothing) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x1000, 1);
  ResolveAll(e, Launch(e, t, 0x1000, {1, 2}), keys);
  e.OnExecDestroyed(0x1000);
  e.OnExecCreated(0x1000, 2);  // HIP hands the same address to the next instantiate
  ResolveAll(e, Launch(e, t, 0x1000, {7, 8, 9}), keys);
  EXPECT_EQ(keys.names.size(), 5u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(e.withheld().Total(), 0u);
}

// Issue 11, row 1: hipGraphExecUpdate before every launch, the same 8 kernels, 100 steps.
TEST(ReconstructingAttributor, UpdateEveryStepSameKernelsKeepsEveryKey) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  for (int step = 0; step < 100; ++step) {
    e.OnExecChanged(0x2000);
    ResolveAll(e, Launch(e, t, 0x2000, {1, 2, 3, 4, 5, 6, 7, 8}), keys);
  }
  EXPECT_EQ(keys.names.size(), 8u);
  for (const auto& [k, n] : keys.count) EXPECT_EQ(n, 100);
  EXPECT_EQ(keys.names.begin()->first >> 32, 1u) << "the engine's first graph id";
  EXPECT_EQ(e.withheld().Total(), 0u);
  EXPECT_EQ(e.new_node_ids_issued(), 0u);
}

// Row 2: node 7 runs another kernel every 10th step.
TEST(ReconstructingAttributor, NodeSwappingEveryTenthStepGetsOneMoreKey) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  for (int step = 0; step < 100; ++step) {
    e.OnExecChanged(0x2000);
    StringId last = step % 10 == 9 ? 99 : 8;
    ResolveAll(e, Launch(e, t, 0x2000, {1, 2, 3, 4, 5, 6, 7, last}), keys);
  }
  EXPECT_EQ(keys.names.size(), 9u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(keys.count[(uint64_t{1} << 32) | 7], 90);
  EXPECT_EQ(keys.count[(uint64_t{1} << 32) | 0xffffffffu], 10);
  EXPECT_EQ(e.withheld().Total(), 0u);
}

// Rows 3 and 4: set-params swapping node 0's kernel in a 2-node exec (3 keys, and back to the
// earlier kernel gives the earlier key); work launched before the change keeps its key.
TEST(ReconstructingAttributor, SetParamsSwapKeepsGraphIdAndEarlierKeys) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  std::vector<Dispatch> before = Launch(e, t, 0x2000, {1, 2});
  e.OnExecChanged(0x2000);
  std::vector<Dispatch> after = Launch(e, t, 0x2000, {5, 2});
  e.OnExecChanged(0x2000);
  std::vector<Dispatch> back = Launch(e, t, 0x2000, {1, 2});
  ResolveAll(e, after, keys);  // decoded out of order: verification is per version
  ResolveAll(e, before, keys);
  ResolveAll(e, back, keys);
  EXPECT_EQ(keys.names.size(), 3u);
  EXPECT_EQ(keys.Aliased(), 0u);
  // The first identity decoded at node 0 (kernel 5 here) keeps the node's own key.
  EXPECT_EQ(keys.names[uint64_t{1} << 32], std::set<StringId>{5});
  EXPECT_EQ(keys.names[(uint64_t{1} << 32) | 0xffffffffu], std::set<StringId>{1});
  EXPECT_EQ(keys.count[(uint64_t{1} << 32) | 0xffffffffu], 2) << "before and back: one key";
  EXPECT_EQ(keys.count[(uint64_t{1} << 32) | 1], 3);
  EXPECT_EQ(e.withheld().Total(), 0u);
}

// A kernel changed WITHOUT a reported change is not an update: it is a wrong credit, withheld.
TEST(ReconstructingAttributor, UnreportedKernelChangeIsWithheld) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  ResolveAll(e, Launch(e, t, 0x2000, {1, 2}), keys);
  ResolveAll(e, Launch(e, t, 0x2000, {5, 2}), keys);
  EXPECT_EQ(keys.names.size(), 2u);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kIdentityMismatch), 1u);
  EXPECT_EQ(e.new_node_ids_issued(), 0u);
}

// A record of a version older than the two last seen at its node cannot be checked.
TEST(ReconstructingAttributor, StaleVersionIsWithheld) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  std::vector<Dispatch> v0 = Launch(e, t, 0x2000, {1});
  std::vector<Dispatch> v0b = Launch(e, t, 0x2000, {1});
  e.OnExecChanged(0x2000);
  std::vector<Dispatch> v1 = Launch(e, t, 0x2000, {2});
  e.OnExecChanged(0x2000);
  std::vector<Dispatch> v2 = Launch(e, t, 0x2000, {3});
  ResolveAll(e, v0, keys);
  ResolveAll(e, v1, keys);
  ResolveAll(e, v2, keys);
  ResolveAll(e, v0b, keys);  // versions 1 and 2 are the two remembered now
  EXPECT_EQ(keys.unkeyed, 1);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kStaleExecVersion), 1u);
  EXPECT_EQ(keys.Aliased(), 0u);
}

// Destroy + re-instantiate at the same address: a new graph id.
TEST(ReconstructingAttributor, ReinstantiateGetsNewGraphId) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  e.OnExecCreated(0x2000, 3);
  e.OnExecChanged(0x2000);
  ResolveAll(e, Launch(e, t, 0x2000, {5, 6, 7, 8}), keys);
  e.OnExecDestroyed(0x2000);
  e.OnExecCreated(0x2000, 4);
  ResolveAll(e, Launch(e, t, 0x2000, {5, 6, 7, 8}), keys);
  std::set<uint64_t> graphs;
  for (const auto& [k, n] : keys.names) graphs.insert(k >> 32);
  EXPECT_EQ(graphs, (std::set<uint64_t>{1, 2}));
}

TEST(ReconstructingAttributor, GraphIdsPastTheLimitAreWithheldWithOneWarning) {
  Engine e(KeySpace{.graph_id_limit = 3, .top_ordinal = 0xffffffffu});
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  for (uint64_t h = 0x3000; h < 0x3004; ++h) e.OnExecCreated(h, h);  // ids 1, 2, then none
  for (uint64_t h = 0x3000; h < 0x3004; ++h) ResolveAll(e, Launch(e, t, h, {1, 2}), keys);
  EXPECT_EQ(keys.names.size(), 4u);
  EXPECT_EQ(keys.unkeyed, 4);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kGraphIdTooLarge), 4u);
  EXPECT_EQ(e.graph_ids_past_limit(), 2u);
  AttributionInfo info;
  e.Report(&info);
  EXPECT_EQ(info.graph_ids_past_limit, 2u);
}

TEST(ReconstructingAttributor, ExecSeenFirstAtLaunchNeverSharesAnId) {
  // An exec instantiated before tracing is first seen at launch; a later instantiation must not
  // get its graph id.
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  Keys keys;
  ResolveAll(e, Launch(e, t, 0x5000, {1}), keys);
  e.OnExecCreated(0x6000, 1);  // the SDK's id 1, as the first exec had
  ResolveAll(e, Launch(e, t, 0x6000, {2}), keys);
  EXPECT_EQ(keys.names.size(), 2u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(e.withheld().Total(), 0u);
}

// Eight threads launching at once, each its own exec and stream. With each stream's packets on a
// hardware queue of its own (as decoded dispatches say), overlapping launches are proven and all
// keyed; with every stream on one queue, every launch that overlapped another is withheld.
void InterleavedThreads(bool own_queues) {
  Engine e;
  constexpr int kThreads = 8;
  std::vector<std::vector<Dispatch>> per_thread(kThreads);
  for (int i = 0; i < kThreads; ++i) e.OnExecCreated(0x100 + i, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Engine::ThreadState* t = e.RegisterThread();
      for (int r = 0; r < 100; ++r) {
        e.LaunchBegin(t, 0x100 + i, 0, /*stream=*/0x1000 + i);
        for (StringId k : {StringId(10 * i), StringId(10 * i + 1)})
          per_thread[i].push_back({k, e.OnDispatch(t, 0)});
        e.LaunchEnd(t);
      }
    });
  }
  for (auto& th : threads) th.join();
  auto queue = [own_queues](int i) { return own_queues ? uint64_t(i + 1) : uint64_t{1}; };
  for (int i = 0; i < kThreads; ++i)
    for (const Dispatch& d : per_thread[i]) e.ObserveQueue(d.tag, queue(i));
  Keys keys;
  for (int i = 0; i < kThreads; ++i) {
    for (const Dispatch& d : per_thread[i]) {
      GpuActivity a = KernelRecord(d.kernel);
      e.Resolve(a, d.tag, queue(i));
      keys.Add(a);
    }
  }
  EXPECT_EQ(keys.Aliased(), 0u);
  const uint64_t overlapped = e.overlapped_launches_proven() + e.overlapped_launches_withheld();
  if (own_queues) {
    EXPECT_EQ(keys.names.size(), 16u);
    for (const auto& [k, n] : keys.count) EXPECT_EQ(n, 100);
    EXPECT_EQ(e.withheld().Total(), 0u);
    EXPECT_EQ(e.overlapped_launches_withheld(), 0u);
  } else {
    EXPECT_EQ(e.withheld().Total(), e.withheld().Get(WithheldReason::kHazardUnproven));
    EXPECT_EQ(e.withheld().Total(), 2 * overlapped);
    EXPECT_EQ(keys.unkeyed, static_cast<int>(2 * overlapped));
  }
}

TEST(ReconstructingAttributor, InterleavedThreadsOnTheirOwnQueuesAreProven) {
  InterleavedThreads(true);
}

TEST(ReconstructingAttributor, InterleavedThreadsSharingAQueueAreWithheldWhereOverlapped) {
  InterleavedThreads(false);
}

TEST(ReconstructingAttributor, DispatchWrittenOnAnotherThreadIsWithheldNotMislabelled) {
  // Exec A on thread 1, exec B on thread 2; B's second packet is written on thread 1 while A is
  // open there (a per-queue worker or a shared queue lock). Different kernels per exec.
  Engine e;
  Engine::ThreadState* t1 = e.RegisterThread();
  Engine::ThreadState* t2 = e.RegisterThread();
  e.OnExecCreated(0xa, 1);
  e.OnExecCreated(0xb, 2);
  Keys keys;
  for (int r = 0; r < 5; ++r) ResolveAll(e, Launch(e, t1, 0xa, {1, 2, 3}), keys);  // learned
  for (int r = 0; r < 5; ++r) ResolveAll(e, Launch(e, t2, 0xb, {11, 12, 13}), keys);
  std::vector<Dispatch> ds;
  e.LaunchBegin(t1, 0xa, 0);
  e.LaunchBegin(t2, 0xb, 0);
  ds.push_back({1, e.OnDispatch(t1, 0)});
  ds.push_back({11, e.OnDispatch(t2, 0)});
  ds.push_back({12, e.OnDispatch(t1, 0)});  // B's packet, credited to A's ordinal 1
  ds.push_back({2, e.OnDispatch(t1, 0)});
  ds.push_back({3, e.OnDispatch(t1, 0)});
  ds.push_back({13, e.OnDispatch(t2, 0)});
  e.LaunchEnd(t1);
  e.LaunchEnd(t2);
  Keys mixed;
  ResolveAll(e, ds, mixed);
  for (const auto& [key, names] : mixed.names) {
    for (StringId n : names) EXPECT_EQ(keys.names[key].count(n), 1u) << "mislabelled " << n;
  }
  EXPECT_EQ(mixed.names.size(), 0u) << "both disturbed launches are withheld whole";
  // Overlapping launches whose queues are unknown: the hazard rule withholds them first.
  EXPECT_EQ(e.withheld().Get(WithheldReason::kHazardUnproven), 6u);
}

TEST(ReconstructingAttributor, TwinExecsSwappedOnThreadsAreWithheld) {
  // Two execs of the same graph (same kernels at the same ordinals): identities cannot tell a
  // swap apart, so the per-launch dispatch count must.
  Engine e;
  Engine::ThreadState* t1 = e.RegisterThread();
  Engine::ThreadState* t2 = e.RegisterThread();
  e.OnExecCreated(0xa, 1);
  e.OnExecCreated(0xb, 2);
  e.SetExpectedDispatches(1, 3);  // the backend reports dispatches per launch
  e.SetExpectedDispatches(2, 3);
  std::vector<Dispatch> ds;
  e.LaunchBegin(t1, 0xa, 0);
  e.LaunchBegin(t2, 0xb, 0);
  ds.push_back({1, e.OnDispatch(t1, 0)});
  ds.push_back({1, e.OnDispatch(t2, 0)});
  ds.push_back({2, e.OnDispatch(t1, 0)});  // B's node 1, written on thread 1: looks like A's
  ds.push_back({2, e.OnDispatch(t1, 0)});
  ds.push_back({3, e.OnDispatch(t1, 0)});
  ds.push_back({3, e.OnDispatch(t2, 0)});
  e.LaunchEnd(t1);
  e.LaunchEnd(t2);
  Keys keys;
  ResolveAll(e, ds, keys);
  EXPECT_EQ(keys.names.size(), 0u);
  EXPECT_EQ(e.withheld().Total(), 6u);
}

TEST(ReconstructingAttributor, CorrelationMismatchIsWrongLaunch) {
  Engine e;
  Engine::ThreadState* t1 = e.RegisterThread();
  e.OnExecCreated(0xa, 1);
  e.LaunchBegin(t1, 0xa, 500);
  uint64_t own = e.OnDispatch(t1, 500);
  uint64_t foreign = e.OnDispatch(t1, 777);  // the SDK says this dispatch belongs to call 777
  e.LaunchEnd(t1);
  GpuActivity a = KernelRecord(1), b = KernelRecord(2);
  e.Resolve(a, own);
  e.Resolve(b, foreign);
  EXPECT_EQ(a.graph_id, 1u);
  EXPECT_EQ(b.graph_id, 0u);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kWrongLaunch), 1u);
}

TEST(ReconstructingAttributor, RecordBeforeLaunchEndsIsWithheld) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  e.OnExecCreated(0xa, 1);
  e.LaunchBegin(t, 0xa, 0);
  uint64_t tag = e.OnDispatch(t, 0);
  GpuActivity a = KernelRecord(1);
  e.Resolve(a, tag);  // decoded while the launch call is still on the stack
  e.LaunchEnd(t);
  EXPECT_EQ(a.graph_id, 0u);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kLaunchInProgress), 1u);
}

TEST(ReconstructingAttributor, UnbalancedEndsAndDeepNestingDoNotCrash) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  e.LaunchEnd(t);  // exit without enter
  for (int i = 0; i < Engine::kMaxDepth + 3; ++i) e.LaunchBegin(t, 0x10 + i, 0);
  EXPECT_EQ(e.OnDispatch(t, 0), 0u) << "past the depth limit: unattributed, not misattributed";
  for (int i = 0; i < Engine::kMaxDepth + 3; ++i) e.LaunchEnd(t);
  EXPECT_EQ(e.OnDispatch(t, 0), 0u);
  GpuActivity a = KernelRecord(1);
  e.Resolve(a, 0xdeadbeefcafeull);  // a tag never issued
  EXPECT_EQ(a.graph_id, 0u);
}

// Issue 14: the launch log is bounded. 200 k launches decided a batch at a time keep a few chunks
// of entries (before: 104 B per launch, 20 MB here); a dispatch decoded after its launch's entry
// went is withheld as launch_released, never keyed.
TEST(ReconstructingAttributor, LaunchLogStaysFlatAndALateDispatchIsWithheld) {
  Engine e;
  Engine::ThreadState* t = e.RegisterThread();
  e.OnExecCreated(0x1000, 1);
  std::vector<Dispatch> first = Launch(e, t, 0x1000, {10, 11, 12, 13});
  Keys keys;
  ResolveAll(e, {first.begin(), first.begin() + 3}, keys);  // its last dispatch comes late
  std::vector<Dispatch> batch;
  constexpr int kLaunches = 200'000;
  for (int r = 1; r < kLaunches; ++r) {
    for (const Dispatch& d : Launch(e, t, 0x1000, {10, 11, 12, 13})) batch.push_back(d);
    if (r % 1000 == 0) {
      ResolveAll(e, batch, keys);
      batch.clear();
      e.SweepLaunchLog();
    }
  }
  ResolveAll(e, batch, keys);
  e.SweepLaunchLog();
  EXPECT_LE(e.launch_log_bytes(), 4 * LaunchLog::kChunkBytes + LaunchLog::kRing * sizeof(void*));
  EXPECT_GE(e.launches_released(), uint64_t{kLaunches} - 2 * LaunchLog::kChunk);
  EXPECT_EQ(keys.names.size(), 4u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(keys.unkeyed, 0);
  GpuActivity late = KernelRecord(13);
  EXPECT_TRUE(e.Resolve(late, first[3].tag));
  EXPECT_EQ(late.graph_id, 0u);
  EXPECT_EQ(e.withheld().Get(WithheldReason::kLaunchReleased), 1u);
  EXPECT_EQ(e.withheld().Total(), 1u);
}

}  // namespace
}  // namespace nodescope
