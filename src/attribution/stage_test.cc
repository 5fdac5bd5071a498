// The attribution stage as a backend sees it: batches processed in place from `first`, capture
// ranges looked up by the vendor's key, the off switch, lifecycle from many threads.
#include "attribution/stage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

GpuActivity Kernel(uint32_t graph_id, uint64_t node_id, StringId name, uint32_t correlation) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.graph_id = graph_id;
  a.graph_node_id = node_id;
  a.kernel.name = name;
  a.correlation_id = correlation;
  return a;
}
uint64_t Key(uint32_t graph, uint32_t ordinal) { return (uint64_t{graph} << 32) | ordinal; }

uint64_t Withheld(const AttributionInfo& info) {
  uint64_t n = 0;
  for (const auto& [reason, count] : info.withheld) n += count;
  return n;
}

TEST(AttributionStage, ProcessTouchesOnlyTheNewBatch) {
  auto stage = MakeNativeIdStage(true);
  ChunkedVector<GpuActivity> gpu;
  // A key that does not pack its graph id is withheld: visible proof the record was processed.
  for (int i = 0; i < 3; ++i) gpu.push_back(Kernel(5, Key(6, 1), 1, 10));
  const size_t first = gpu.size();
  for (int i = 0; i < 2; ++i) gpu.push_back(Kernel(5, Key(6, 1), 1, 10));
  stage->Process(gpu, first);
  for (size_t i = 0; i < first; ++i) EXPECT_EQ(gpu[i].graph_id, 5u) << i;
  for (size_t i = first; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].graph_id, 0u) << i;
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(info.mode, "native");
  EXPECT_EQ(Withheld(info), 2u);
}

TEST(AttributionStage, BatchesAcrossChunkBoundariesAreEachProcessedOnce) {
  auto stage = MakeNativeIdStage(true);
  ChunkedVector<GpuActivity> gpu;
  size_t first = 0;
  for (size_t batch : {4000u, 200u, 9000u, 1u}) {  // crosses chunks of 4096 records
    for (size_t i = 0; i < batch; ++i) gpu.push_back(Kernel(5, Key(6, 1), 1, 10));
    stage->Process(gpu, first);
    first = gpu.size();
  }
  stage->Process(gpu, first);  // an empty batch is nothing
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(Withheld(info), 13201u);
  size_t keyed = 0;
  gpu.ForEach([&](const GpuActivity& a) { keyed += a.graph_id != 0; });
  EXPECT_EQ(keyed, 0u);
}

TEST(AttributionStage, CaptureRangeIsFoundByTheVendorKey) {
  auto stage = MakeNativeIdStage(true);
  stage->TemplateNodeCreated(/*template_node=*/700, /*range_id=*/9);
  stage->TemplateNodeCloned(/*new_node=*/701, /*original_node=*/700);
  stage->ExecCreated(3, /*correlation=*/20);
  stage->ExecNodeBound(Key(3, 0), 700, 20);
  stage->ExecNodeBound(Key(3, 1), 701, 20);
  ChunkedVector<GpuActivity> gpu;
  gpu.push_back(Kernel(3, Key(3, 0), 1, 21));
  gpu.push_back(Kernel(3, Key(3, 1), 2, 21));
  gpu.push_back(Kernel(3, Key(3, 0), 1, 19));  // launched before the exec existed: no scope
  gpu.push_back(Kernel(0, 0, 4, 22));          // not from a graph
  stage->Process(gpu, 0);
  EXPECT_EQ(gpu[0].capture_range_id, 9u);
  EXPECT_EQ(gpu[1].capture_range_id, 9u);
  EXPECT_EQ(gpu[2].capture_range_id, 0u);
  EXPECT_EQ(gpu[3].capture_range_id, 0u);
  EXPECT_EQ(gpu[0].graph_id, 3u);
  EXPECT_EQ(gpu[0].graph_node_id, Key(3, 0));
}

TEST(AttributionStage, OffKeepsVendorKeysAndStillFindsCaptureRanges) {
  auto stage = MakeNativeIdStage(false);
  stage->TemplateNodeCreated(700, 9);
  stage->ExecCreated(3, 20);
  stage->ExecNodeBound(Key(3, 0), 700, 20);
  stage->ExecChanged(3, 30);
  ChunkedVector<GpuActivity> gpu;
  gpu.push_back(Kernel(3, Key(3, 0), 1, 21));
  gpu.push_back(Kernel(3, Key(3, 0), 2, 31));  // aliased by CUPTI after the change: kept as is
  gpu.push_back(Kernel(5, Key(6, 1), 1, 31));  // inconsistent: kept as is, nothing judged
  stage->Process(gpu, 0);
  EXPECT_EQ(gpu[0].capture_range_id, 9u);
  EXPECT_EQ(gpu[1].graph_node_id, Key(3, 0));
  EXPECT_EQ(gpu[2].graph_id, 5u);
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(info.mode, "disabled");
  EXPECT_TRUE(info.withheld.empty());
}

// Lifecycle and scopes reported from several threads while the decoding thread processes
// batches (run under ThreadSanitizer by scripts/test.sh: label `concurrent`).
TEST(AttributionStage, LifecycleFromManyThreadsWhileDecoding) {
  auto stage = MakeNativeIdStage(true);
  std::atomic<bool> done{false};
  std::vector<std::thread> apps;
  for (uint32_t t = 0; t < 4; ++t) {
    apps.emplace_back([&, t] {
      for (uint32_t i = 0; i < 500; ++i) {
        const uint32_t exec = 100 + t * 1000 + i;
        stage->TemplateNodeCreated(exec * 10, t + 1);
        stage->ExecCreated(exec, i);
        stage->ExecNodeBound(Key(exec, 0), exec * 10, i);
        if (i % 7 == 0) stage->ExecChanged(exec, i + 1);
      }
    });
  }
  ChunkedVector<GpuActivity> gpu;
  std::thread decoder([&] {
    size_t first = 0;
    while (!done.load()) {
      for (int i = 0; i < 64; ++i) gpu.push_back(Kernel(7, Key(7, i % 4), 1 + i % 4, 1));
      stage->Process(gpu, first);
      first = gpu.size();
    }
  });
  for (auto& a : apps) a.join();
  done.store(true);
  decoder.join();
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(Withheld(info), 0u);
  gpu.ForEach([](const GpuActivity& a) { EXPECT_EQ(a.graph_id, 7u); });
}

}  // namespace
}  // namespace nodescope
