// Scripted event sequences through the native-id attribution engine: exec update, set-params,
// re-creation, inconsistent keys, id exhaustion, two devices and concurrent lifecycle threads.
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

// Keys the engine emitted -> the set of kernel names each named.
using KeyNames = std::map<std::pair<uint32_t, uint64_t>, std::set<StringId>>;

void Record(KeyNames& keys, const GpuActivity& a) {
  if (a.graph_id != 0) keys[{a.graph_id, a.graph_node_id}].insert(a.kernel.name);
}

size_t Aliased(const KeyNames& keys) {
  size_t n = 0;
  for (const auto& [key, names] : keys) n += names.size() > 1;
  return n;
}

TEST(NativeIdAttributor, UnchangedExecKeepsVendorKeys) {
  NativeIdAttributor engine;
  engine.OnExecCreated(1, 10);
  engine.Drain();
  KeyNames keys;
  uint32_t corr = 100;
  for (int replay = 0; replay < 200; ++replay, ++corr) {
    for (uint32_t n = 0; n < 32; ++n) {
      GpuActivity a = Kernel(1, n, 100 + n, corr);
      engine.Attribute(a);
      EXPECT_EQ(a.graph_id, 1u);
      EXPECT_EQ(a.graph_node_id, (uint64_t{1} << 32) | n);
      Record(keys, a);
    }
  }
  EXPECT_EQ(keys.size(), 32u);
  EXPECT_EQ(Aliased(keys), 0u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
  EXPECT_EQ(engine.fresh_ids_issued(), 0u);
}

TEST(NativeIdAttributor, ExecUpdateGetsFreshIdAndInFlightWorkKeepsOld) {
  NativeIdAttributor engine;
  engine.OnExecCreated(3, 1);
  KeyNames keys;
  std::vector<GpuActivity> before, after;
  // 150 replays of kernels A0..A3 (correlation 100..249), then an update at correlation 250 to
  // kernels B0..B3, then 150 replays (correlation 251..400). CUPTI keeps graph id 3 throughout.
  for (uint32_t r = 0; r < 150; ++r)
    for (uint32_t n = 0; n < 4; ++n) before.push_back(Kernel(3, n, 10 + n, 100 + r));
  engine.OnExecChanged(3, 250);
  for (uint32_t r = 0; r < 150; ++r)
    for (uint32_t n = 0; n < 4; ++n) after.push_back(Kernel(3, n, 20 + n, 251 + r));
  // The first buffer holds work launched before the update but decoded after it was reported.
  engine.Drain();
  for (GpuActivity& a : before) {
    engine.Attribute(a);
    EXPECT_EQ(a.graph_id, 3u) << "in-flight work keeps the id it was launched with";
    Record(keys, a);
  }
  for (GpuActivity& a : after) {
    engine.Attribute(a);
    EXPECT_EQ(a.graph_id, 0xffffffffu) << "a changed exec gets the top fresh id";
    EXPECT_EQ(a.graph_node_id >> 32, a.graph_id);
    Record(keys, a);
  }
  EXPECT_EQ(keys.size(), 8u);
  EXPECT_EQ(Aliased(keys), 0u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
  EXPECT_EQ(engine.fresh_ids_issued(), 1u);
}

TEST(NativeIdAttributor, SetParamsOnOneNodeRenamesTheWholeExec) {
  NativeIdAttributor engine;
  KeyNames keys;
  uint32_t corr = 1;
  auto replay = [&](StringId node2) {
    for (uint32_t n = 0; n < 4; ++n) {
      GpuActivity a = Kernel(7, n, n == 2 ? node2 : 50 + n, corr);
      engine.Attribute(a);
      Record(keys, a);
    }
    ++corr;
  };
  for (int i = 0; i < 10; ++i) replay(52);
  engine.OnExecChanged(7, corr++);  // cudaGraphExecKernelNodeSetParams swaps node 2's function
  engine.Drain();
  for (int i = 0; i < 10; ++i) replay(99);
  EXPECT_EQ(Aliased(keys), 0u);
  EXPECT_EQ(keys.size(), 8u);
  EXPECT_EQ(engine.withheld().Total(), 0u);
}

TEST(NativeIdAttributor, RecreatedNativeIdInheritsNothing) {
  NativeIdAttributor engine;
  KeyNames keys;
  engine.OnExecCreated(5, 1);
  engine.Drain();
  for (uint32_t n = 0; n < 3; ++n) {
    GpuActivity a = Kernel(5, n, 60 + n, 2);
    engine.Attribute(a);
    Record(keys, a);
  }
  engine.OnExecCreated(5, 10);  // destroyed and instantiated again under the same id
  engine.Drain();
  for (uint32_t n = 0; n < 3; ++n) {
    GpuActivity a = Kernel(5, n, 70 + n, 11);
    engine.Attribute(a);
    EXPECT_NE(a.graph_id, 5u);
    Record(keys, a);
  }
  EXPECT_EQ(keys.size(), 6u);
  EXPECT_EQ(Aliased(keys), 0u);
}

TEST(NativeIdAttributor, UnreportedChangeIsWithheldNeverAliased) {
  // The vendor changed a node and we were not told: verification must catch it.
  NativeIdAttributor engine;
  KeyNames keys;
  GpuActivity a = Kernel(2, 0, 80, 1);
  engine.Attribute(a);
  Record(keys, a);
  GpuActivity b = Kernel(2, 0, 81, 2);
  engine.Attribute(b);
  EXPECT_EQ(b.graph_id, 0u);
  EXPECT_EQ(b.graph_node_id, 0u);
  Record(keys, b);
  EXPECT_EQ(Aliased(keys), 0u);
  EXPECT_EQ(engine.withheld().Get(WithheldReason::kIdentityMismatch), 1u);
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

TEST(NativeIdAttributor, FreshIdsNeverMeetVendorIds) {
  NativeIdAttributor engine;
  const uint32_t high = 0xfffffff0u;  // a vendor id close to the top
  GpuActivity seed = Kernel(high, 0, 1, 1);
  engine.Attribute(seed);
  KeyNames keys;
  Record(keys, seed);
  uint32_t corr = 2;
  for (int change = 0; change < 40; ++change) {
    engine.OnExecChanged(high, corr);
    engine.Drain();
    GpuActivity a = Kernel(high, 0, 1000 + static_cast<StringId>(change), corr + 1);
    engine.Attribute(a);
    EXPECT_TRUE(a.graph_id == 0 || a.graph_id > high) << a.graph_id;
    Record(keys, a);
    corr += 2;
  }
  EXPECT_EQ(Aliased(keys), 0u);
  EXPECT_EQ(engine.fresh_ids_issued(), 14u);  // 0xffffffff down to 0xfffffff2
  EXPECT_GT(engine.withheld().Get(WithheldReason::kIdSpaceExhausted), 0u);
}

TEST(NativeIdAttributor, TwoDevicesKeepIndependentKeys) {
  NativeIdAttributor engine;
  KeyNames keys;
  for (uint32_t r = 0; r < 5; ++r) {
    for (uint32_t dev = 0; dev < 2; ++dev) {
      GpuActivity a = Kernel(10 + dev, 0, 200 + dev, r, dev);
      engine.Attribute(a);
      EXPECT_EQ(a.graph_id, 10 + dev);
      Record(keys, a);
    }
  }
  engine.OnExecChanged(11, 100);
  engine.Drain();
  GpuActivity a = Kernel(10, 0, 200, 101, 0);
  engine.Attribute(a);
  EXPECT_EQ(a.graph_id, 10u) << "a change to device 1's exec leaves device 0's alone";
  EXPECT_EQ(Aliased(keys), 0u);
}

TEST(NativeIdAttributor, ConcurrentLifecycleThreads) {
  NativeIdAttributor engine;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 8; ++t) {
    threads.emplace_back([&engine, t] {
      for (uint32_t i = 0; i < 100; ++i) engine.OnExecChanged(100 + t, i * 8 + t);
    });
  }
  for (int i = 0; i < 50; ++i) engine.Drain();
  for (auto& th : threads) th.join();
  engine.Drain();
  EXPECT_EQ(engine.fresh_ids_issued(), 800u);
  std::set<uint32_t> ids;
  for (uint32_t t = 0; t < 8; ++t) {
    GpuActivity a = Kernel(100 + t, 0, 7, 100000);
    engine.Attribute(a);
    ids.insert(a.graph_id);
  }
  EXPECT_EQ(ids.size(), 8u) << "each exec's latest epoch has its own id";
}

}  // namespace
}  // namespace nodescope
