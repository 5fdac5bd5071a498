// Scripted event sequences through the native-id attribution engine, one test per row of issue
// 11's table (exec updates, set-params, destroy + re-instantiate, enable/disable), then the edges:
// keys below 2^53, graph ids past 2^21, ordinals running out, re-used exec ids, copies and fills,
// inconsistent vendor keys, two devices and concurrent lifecycle threads.
#include "attribution/native_attributor.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace nodescope {
namespace {

GpuActivity Kernel(uint32_t graph_id, uint32_t ordinal, StringId name, uint32_t correlation,
                   uint32_t device = 0) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.graph_id = graph_id;
  a.graph_node_id = (static_cast<uint64_t>(graph_id) << 32) | ordinal;
  a.kernel.name = name;
  a.correlation_id = correlation;
  a.device = device;
  return a;
}

// What the engine emitted: key -> names it named, key -> occurrences, graph ids.
struct Keys {
  std::map<std::pair<uint32_t, uint64_t>, std::set<uint32_t>> names;
  std::map<std::pair<uint32_t, uint64_t>, int> count;
  std::set<uint32_t> graphs;
  int unkeyed = 0;
  void Add(const GpuActivity& a) {
    if (a.graph_id == 0) {
      ++unkeyed;
      return;
    }
    EXPECT_EQ(a.graph_node_id >> 32, a.graph_id);
    EXPECT_LT(a.graph_node_id, uint64_t{1} << 53) << "a key a double cannot hold";
    names[{a.graph_id, a.graph_node_id}].insert(IdentityOf(a));
    ++count[{a.graph_id, a.graph_node_id}];
    graphs.insert(a.graph_id);
  }
  size_t Aliased() const {
    size_t n = 0;
    for (const auto& [key, v] : names) n += v.size() > 1;
    return n;
  }
  int Count(uint32_t graph, uint64_t node_id) const {
    auto it = count.find({graph, node_id});
    return it == count.end() ? 0 : it->second;
  }
};

uint64_t NodeId(uint32_t graph, uint32_t ordinal) { return (uint64_t{graph} << 32) | ordinal; }

// One replay of exec `graph` running kernels[i] at node i; returns the records, attributed.
void Replay(NativeIdAttributor& e, Keys& keys, uint32_t graph, const std::vector<StringId>& kernels,
            uint32_t correlation) {
  for (uint32_t n = 0; n < kernels.size(); ++n) {
    GpuActivity a = Kernel(graph, n, kernels[n], correlation);
    e.Attribute(a);
    keys.Add(a);
  }
}

const std::vector<StringId> kEight = {100, 101, 102, 103, 104, 105, 106, 107};

TEST(NativeIdAttributor, UnchangedExecKeepsVendorKeys) {
  NativeIdAttributor engine;
  engine.OnExecCreated(1, 10);
  engine.Drain();
  Keys keys;
  for (uint32_t r = 0; r < 200; ++r) Replay(engine, keys, 1, kEight, 100 + r);
  EXPECT_EQ(keys.names.size(), 8u);
  for (uint32_t n = 0; n < 8; ++n) EXPECT_EQ(keys.Count(1, NodeId(1, n)), 200);
  EXPECT_EQ(engine.withheld().Total(), 0u);
  EXPECT_EQ(engine.new_node_ids_issued(), 0u);
}

// Row 1: re-capture + cudaGraphExecUpdate every step, the same 8 kernels, 100 steps.
TEST(NativeIdAttributor, UpdateEveryStepSameKernelsKeepsEveryKey) {
  NativeIdAttributor engine;
  engine.OnExecCreated(1, 1);
  Keys keys;
  uint32_t corr = 2;
  for (int step = 0; step < 100; ++step) {
    engine.OnExecChanged(1, corr++);
    engine.Drain();
    Replay(engine, keys, 1, kEight, corr++);
  }
  EXPECT_EQ(keys.graphs.size(), 1u);
  EXPECT_EQ(keys.names.size(), 8u);
  for (uint32_t n = 0; n < 8; ++n) EXPECT_EQ(keys.Count(1, NodeId(1, n)), 100);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
  EXPECT_EQ(engine.new_node_ids_issued(), 0u);
  EXPECT_EQ(engine.exec_changes(), 100u);
}

// Row 2: the same, but node 7 runs another kernel every 10th step.
TEST(NativeIdAttributor, NodeSwappingEveryTenthStepGetsOneMoreKey) {
  NativeIdAttributor engine;
  engine.OnExecCreated(1, 1);
  Keys keys;
  uint32_t corr = 2;
  for (int step = 0; step < 100; ++step) {
    std::vector<StringId> kernels = kEight;
    if (step % 10 == 9) kernels[7] = 200;
    engine.OnExecChanged(1, corr++);
    engine.Drain();
    Replay(engine, keys, 1, kernels, corr++);
  }
  EXPECT_EQ(keys.graphs.size(), 1u);
  EXPECT_EQ(keys.names.size(), 9u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(keys.Count(1, NodeId(1, 7)), 90);
  EXPECT_EQ(keys.Count(1, NodeId(1, 0xffffffffu)), 10) << "the first new ordinal is the top one";
  EXPECT_EQ(engine.new_node_ids_issued(), 1u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
}

// Row 3: a 2-node exec, cudaGraphExecKernelNodeSetParams swaps node 0's kernel.
TEST(NativeIdAttributor, SetParamsSwappingOneKernelGivesThreeKeys) {
  NativeIdAttributor engine;
  engine.OnExecCreated(7, 1);
  Keys keys;
  uint32_t corr = 2;
  for (int i = 0; i < 150; ++i) Replay(engine, keys, 7, {50, 51}, corr++);
  engine.OnExecChanged(7, corr++);
  engine.Drain();
  for (int i = 0; i < 150; ++i) Replay(engine, keys, 7, {99, 51}, corr++);
  EXPECT_EQ(keys.graphs, std::set<uint32_t>{7});
  EXPECT_EQ(keys.names.size(), 3u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(keys.Count(7, NodeId(7, 0)), 150);
  EXPECT_EQ(keys.Count(7, NodeId(7, 1)), 300) << "the untouched node keeps its key";
  EXPECT_EQ(keys.Count(7, NodeId(7, 0xffffffffu)), 150);
  // The DAG's "renamed": the new id runs at node 0; other graphs have none.
  std::vector<std::pair<uint64_t, uint64_t>> renamed;
  engine.RenamedNodes(7, &renamed);
  ASSERT_EQ(renamed.size(), 1u);
  EXPECT_EQ(renamed[0].first, NodeId(7, 0xffffffffu));
  EXPECT_EQ(renamed[0].second, NodeId(7, 0));
  renamed.clear();
  engine.RenamedNodes(8, &renamed);
  EXPECT_TRUE(renamed.empty());
}

// Row 4: update to a graph of 4 different kernels (work launched before it still in flight when
// the update is reported), then destroy + re-instantiate.
TEST(NativeIdAttributor, UpdateToOtherKernelsKeepsGraphIdAndInFlightWork) {
  NativeIdAttributor engine;
  engine.OnExecCreated(3, 1);
  std::vector<GpuActivity> before, after;
  for (uint32_t r = 0; r < 150; ++r)
    for (uint32_t n = 0; n < 4; ++n) before.push_back(Kernel(3, n, 10 + n, 100 + r));
  engine.OnExecChanged(3, 250);
  for (uint32_t r = 0; r < 150; ++r)
    for (uint32_t n = 0; n < 4; ++n) after.push_back(Kernel(3, n, 20 + n, 251 + r));
  engine.Drain();  // the first buffer is decoded after the update was reported
  Keys keys;
  for (GpuActivity& a : before) {
    engine.Attribute(a);
    EXPECT_EQ(a.graph_node_id, NodeId(3, a.graph_node_id & 0xffffffffu));
    EXPECT_LT(a.graph_node_id & 0xffffffffu, 4u) << "work launched before keeps its key";
    keys.Add(a);
  }
  for (GpuActivity& a : after) {
    engine.Attribute(a);
    EXPECT_EQ(a.graph_id, 3u) << "one graph id for the exec's whole life";
    EXPECT_GE(a.graph_node_id & 0xffffffffu, 0xfffffffcu);
    keys.Add(a);
  }
  EXPECT_EQ(keys.graphs.size(), 1u);
  EXPECT_EQ(keys.names.size(), 8u);
  EXPECT_EQ(keys.Aliased(), 0u);
  for (const auto& [key, n] : keys.count) EXPECT_EQ(n, 150);
  // Destroy + instantiate: CUPTI gives the new exec a new id, which starts clean.
  engine.OnExecCreated(4, 500);
  engine.Drain();
  Replay(engine, keys, 4, {20, 21, 22, 23}, 501);
  EXPECT_EQ(keys.graphs.size(), 2u);
  EXPECT_EQ(keys.Count(4, NodeId(4, 0)), 1);
  EXPECT_EQ(engine.withheld().Total(), 0u);
}

// A conditional node's body (CUPTI: graph records without a correlation id): its nodes get no
// update callback, and CUPTI 13.0 was seen naming a body kernel swapped by cudaGraphExecUpdate by
// its old function. Body records that started before the change began keep their keys; those
// from then on are withheld under their own reason, whatever they are named; the exec's other
// nodes, and other execs' bodies, are untouched.
TEST(NativeIdAttributor, ConditionalBodyAfterAWorkChangeIsWithheld) {
  NativeIdAttributor engine;
  engine.OnExecCreated(3, 1);
  engine.OnExecCreated(4, 2);
  auto body = [](uint32_t graph, uint64_t start) {
    GpuActivity a = Kernel(graph, 5, 70, 0);
    a.conditional_body = 1;
    a.start_ns = start;
    return a;
  };
  engine.OnExecWorkChanged(3, 5000);
  engine.OnExecWorkChanged(3, 9000);  // a later change: the earliest start counts
  engine.Drain();
  Keys keys;
  GpuActivity before = body(3, 4999);
  engine.Attribute(before);
  keys.Add(before);
  EXPECT_EQ(before.graph_node_id, NodeId(3, 5)) << "ran before the change: keeps its key";
  for (uint64_t t : {5000u, 7000u, 12000u}) {
    GpuActivity a = body(3, t);
    engine.Attribute(a);
    keys.Add(a);
  }
  EXPECT_EQ(keys.unkeyed, 3);
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kConditionalBodyChanged), 3u);
  GpuActivity top = Kernel(3, 1, 71, 20);  // a node of the exec itself: its record names it
  top.start_ns = 8000;
  engine.Attribute(top);
  EXPECT_EQ(top.graph_node_id, NodeId(3, 1));
  GpuActivity other = body(4, 8000);  // another exec's body
  engine.Attribute(other);
  EXPECT_EQ(other.graph_node_id, NodeId(4, 5));
  EXPECT_EQ(engine.withheld().Total(), 3u);
  AttributionInfo info;
  engine.Report(&info);
  bool named = false;
  for (const auto& [reason, n] : info.withheld) {
    if (reason == "conditional_body_changed") named = n == 3;
  }
  EXPECT_TRUE(named) << "the reason is written into the trace with its count";
}

// Going back to the earlier kernel gives back the earlier key; the same new kernel again gives
// the same new key; a third kernel gets the next new ordinal down.
TEST(NativeIdAttributor, NewNodeIdsAreMemoized) {
  NativeIdAttributor engine;
  Keys keys;
  uint32_t corr = 1;
  auto node0 = [&](StringId k) {
    GpuActivity a = Kernel(9, 0, k, corr++);
    engine.Attribute(a);
    keys.Add(a);
    return a.graph_node_id;
  };
  const uint64_t a = node0(1);
  const uint64_t b = node0(2);
  EXPECT_EQ(a, NodeId(9, 0));
  EXPECT_EQ(b, NodeId(9, 0xffffffffu));
  EXPECT_EQ(node0(1), a);
  EXPECT_EQ(node0(2), b);
  EXPECT_EQ(node0(3), NodeId(9, 0xfffffffeu));
  EXPECT_EQ(node0(2), b);
  EXPECT_EQ(node0(1), a);
  EXPECT_EQ(engine.new_node_ids_issued(), 2u);
  EXPECT_EQ(keys.Aliased(), 0u);
}

// Set-params changing only arguments or grid, and a node disabled then enabled again: the
// records name the same kernel, so the key stays (their other fields do not enter the key).
TEST(NativeIdAttributor, ArgumentsGridAndEnableDoNotChangeKeys) {
  NativeIdAttributor engine;
  Keys keys;
  uint32_t corr = 1;
  for (int r = 0; r < 50; ++r) {
    engine.OnExecChanged(2, corr++);  // cuGraphExecKernelNodeSetParams: new buffers, new grid
    engine.Drain();
    for (uint32_t n = 0; n < 3; ++n) {
      GpuActivity a = Kernel(2, n, 300 + n, corr);
      a.kernel.grid[0] = 1 + r;
      a.kernel.block[0] = 32 << (r % 3);
      a.kernel.dynamic_shared_bytes = static_cast<uint32_t>(r);
      if (r >= 20 && r < 30 && n == 1) continue;  // cudaGraphNodeSetEnabled(off), later on
      engine.Attribute(a);
      keys.Add(a);
    }
    ++corr;
  }
  EXPECT_EQ(keys.names.size(), 3u);
  EXPECT_EQ(keys.Count(2, NodeId(2, 1)), 40);
  EXPECT_EQ(engine.new_node_ids_issued(), 0u);
}

// Copies and fills: a copy node is known by direction and memory kinds, a fill by memory kind;
// a kernel node and a copy node never share an identity.
TEST(NativeIdAttributor, CopiesAndFillsAreKeyedByWhatTheyDo) {
  NativeIdAttributor engine;
  Keys keys;
  auto copy = [](CopyDirection dir, MemoryKind src, MemoryKind dst, uint32_t corr) {
    GpuActivity a = Kernel(5, 0, 0, corr);
    a.kind = ActivityKind::kMemcpy;
    a.copy.direction = dir;
    a.copy.src_kind = src;
    a.copy.dst_kind = dst;
    a.copy.bytes = corr;  // sizes and addresses do not enter the key
    return a;
  };
  auto fill = [](MemoryKind kind, uint32_t corr) {
    GpuActivity a = Kernel(5, 1, 0, corr);
    a.kind = ActivityKind::kMemset;
    a.fill.memory_kind = kind;
    a.fill.value = corr;
    return a;
  };
  std::vector<GpuActivity> records = {
      copy(CopyDirection::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, 1),
      copy(CopyDirection::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, 2),
      copy(CopyDirection::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 3),
      copy(CopyDirection::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 4),
      fill(MemoryKind::kDevice, 1),
      fill(MemoryKind::kDevice, 2),
      fill(MemoryKind::kManaged, 3),
      Kernel(5, 0, 0, 5),  // a kernel whose name id is 0 at the copy's ordinal
  };
  std::vector<uint64_t> ids;
  for (GpuActivity& a : records) {
    engine.Attribute(a);
    keys.Add(a);
    ids.push_back(a.graph_node_id);
  }
  EXPECT_EQ(ids[0], NodeId(5, 0));
  EXPECT_EQ(ids[1], ids[0]) << "same copy, other size: same key";
  EXPECT_NE(ids[2], ids[0]);
  EXPECT_NE(ids[3], ids[2]) << "pageable and pinned sources are different copies";
  EXPECT_EQ(ids[4], NodeId(5, 1));
  EXPECT_EQ(ids[5], ids[4]);
  EXPECT_NE(ids[6], ids[4]);
  EXPECT_NE(ids[7], ids[0]);
  EXPECT_EQ(keys.names.size(), 6u);
  EXPECT_EQ(keys.Aliased(), 0u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
}

TEST(NativeIdAttributor, EveryKeyIsExactAsADouble) {
  NativeIdAttributor engine;
  Keys keys;
  const uint32_t last = (1u << 21) - 1;  // the largest graph id allowed
  for (uint32_t k = 0; k < 5; ++k) {
    GpuActivity a = Kernel(last, 3, 400 + k, k + 1);
    engine.Attribute(a);
    ASSERT_EQ(a.graph_id, last);
    EXPECT_LE(a.graph_node_id, (uint64_t{1} << 53) - 1);
    EXPECT_EQ(static_cast<uint64_t>(static_cast<double>(a.graph_node_id)), a.graph_node_id);
    keys.Add(a);
  }
  EXPECT_EQ(keys.names.size(), 5u);
}

TEST(NativeIdAttributor, GraphIdPastTwoToThe21IsWithheldAndCounted) {
  NativeIdAttributor engine;
  Keys keys;
  for (uint32_t graph : {1u << 21, (1u << 21) + 5, 0xfffffff0u}) {
    for (uint32_t r = 0; r < 3; ++r) {
      GpuActivity a = Kernel(graph, 0, 1, r);
      engine.Attribute(a);
      EXPECT_EQ(a.graph_id, 0u);
      EXPECT_EQ(a.graph_node_id, 0u);
      keys.Add(a);
    }
  }
  EXPECT_EQ(keys.names.size(), 0u);
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kGraphIdTooLarge), 9u);
  EXPECT_EQ(engine.graph_ids_past_limit(), 3u);
  AttributionInfo info;
  engine.Report(&info);
  EXPECT_EQ(info.graph_ids_past_limit, 3u);
  bool found = false;
  for (const auto& [reason, n] : info.withheld) {
    if (reason == std::string("graph_id_too_large")) found = n == 9;
  }
  EXPECT_TRUE(found);
}

TEST(NativeIdAttributor, NewOrdinalsNeverMeetNativeOnes) {
  // A small ordinal space: new ordinals come down from 10; the graph's native ones are 0..7.
  NativeIdAttributor engine(KeySpace{.graph_id_limit = 1u << 21, .top_ordinal = 10});
  Keys keys;
  uint32_t corr = 1;
  Replay(engine, keys, 1, kEight, corr++);
  std::vector<uint64_t> issued;
  for (StringId k = 500; k < 505; ++k) {
    GpuActivity a = Kernel(1, 7, k, corr++);
    engine.Attribute(a);
    keys.Add(a);
    issued.push_back(a.graph_node_id);
  }
  EXPECT_EQ(issued[0], NodeId(1, 10));
  EXPECT_EQ(issued[1], NodeId(1, 9));
  EXPECT_EQ(issued[2], NodeId(1, 8));
  EXPECT_EQ(issued[3], 0u) << "ordinal 7 is native: withheld, not shared";
  EXPECT_EQ(issued[4], 0u);
  // A native ordinal where new ones were issued is withheld too; earlier keys still work.
  GpuActivity high = Kernel(1, 9, 600, corr++);
  engine.Attribute(high);
  EXPECT_EQ(high.graph_id, 0u);
  GpuActivity again = Kernel(1, 7, 501, corr++);
  engine.Attribute(again);
  EXPECT_EQ(again.graph_node_id, NodeId(1, 9));
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kOrdinalSpaceExhausted), 3u);
  EXPECT_EQ(keys.Aliased(), 0u);
}

TEST(NativeIdAttributor, NativeOrdinalPastTwoToThe24IsWithheld) {
  // No real graph has 16 M nodes; the top of the ordinal space is where new node ids go.
  NativeIdAttributor engine;
  GpuActivity a = Kernel(1, 1u << 24, 1, 1);
  GpuActivity b = Kernel(1, 0xffffffffu, 1, 1);
  GpuActivity c = Kernel(1, 1u << 16, 1, 1);
  engine.Attribute(a);
  engine.Attribute(b);
  engine.Attribute(c);
  EXPECT_EQ(a.graph_id, 0u);
  EXPECT_EQ(b.graph_id, 0u);
  EXPECT_EQ(c.graph_node_id, NodeId(1, 1u << 16));
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kOrdinalSpaceExhausted), 2u);
}

TEST(NativeIdAttributor, ReusedExecIdIsWithheldNeverInherited) {
  NativeIdAttributor engine;
  Keys keys;
  engine.OnExecCreated(5, 1);
  engine.Drain();
  std::vector<GpuActivity> first_exec;
  for (uint32_t n = 0; n < 3; ++n) first_exec.push_back(Kernel(5, n, 60 + n, 2));
  engine.OnExecCreated(5, 10);  // a second exec under the same id (CUPTI has not been seen to)
  engine.Drain();
  for (GpuActivity& a : first_exec) {
    engine.Attribute(a);
    EXPECT_EQ(a.graph_id, 5u) << "launched before the second exec existed";
    keys.Add(a);
  }
  for (uint32_t n = 0; n < 3; ++n) {
    GpuActivity a = Kernel(5, n, 70 + n, 11);
    engine.Attribute(a);
    EXPECT_EQ(a.graph_id, 0u);
    keys.Add(a);
  }
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kExecIdReused), 3u);
  EXPECT_EQ(keys.Aliased(), 0u);
}

TEST(NativeIdAttributor, InconsistentVendorKeyIsWithheld) {
  NativeIdAttributor engine;
  GpuActivity a = Kernel(4, 1, 90, 1);
  a.graph_node_id = (uint64_t{9} << 32) | 1;
  engine.Attribute(a);
  EXPECT_EQ(a.graph_id, 0u);
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kInconsistentNativeKey), 1u);
}

TEST(NativeIdAttributor, PlainWorkIsUntouched) {
  NativeIdAttributor engine;
  GpuActivity a = Kernel(0, 0, 90, 1);
  a.graph_node_id = 0;
  engine.Attribute(a);
  EXPECT_EQ(a.graph_id, 0u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
}

TEST(NativeIdAttributor, TwoDevicesKeepIndependentKeys) {
  NativeIdAttributor engine;
  Keys keys;
  for (uint32_t r = 0; r < 5; ++r) {
    for (uint32_t dev = 0; dev < 2; ++dev) {
      GpuActivity a = Kernel(10 + dev, 0, 200 + dev, r, dev);
      engine.Attribute(a);
      EXPECT_EQ(a.graph_id, 10 + dev);
      keys.Add(a);
    }
  }
  GpuActivity swapped = Kernel(11, 0, 250, 100, 1);
  engine.Attribute(swapped);
  keys.Add(swapped);
  GpuActivity a = Kernel(10, 0, 200, 101, 0);
  engine.Attribute(a);
  EXPECT_EQ(a.graph_node_id, NodeId(10, 0)) << "a change to device 1's exec leaves device 0's";
  EXPECT_EQ(keys.names.size(), 3u);
  EXPECT_EQ(keys.Aliased(), 0u);
}

TEST(NativeIdAttributor, ConcurrentLifecycleThreads) {
  NativeIdAttributor engine;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 8; ++t) {
    threads.emplace_back([&engine, t] {
      for (uint32_t i = 0; i < 100; ++i) {
        engine.OnExecCreated(1000 * (t + 1) + i, i * 8 + t);
        engine.OnExecChanged(1000 * (t + 1) + i, i * 8 + t + 1);
      }
    });
  }
  for (int i = 0; i < 50; ++i) engine.Drain();
  for (auto& th : threads) th.join();
  engine.Drain();
  EXPECT_EQ(engine.exec_changes(), 800u);
  Keys keys;
  for (uint32_t t = 0; t < 8; ++t) {
    for (uint32_t i = 0; i < 100; ++i) Replay(engine, keys, 1000 * (t + 1) + i, {7}, 100000);
  }
  EXPECT_EQ(keys.graphs.size(), 800u);
  EXPECT_EQ(engine.withheld().Total(), 0u) << "no exec id was re-used";
}

}  // namespace
}  // namespace nodescope
