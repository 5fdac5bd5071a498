// The tracer skeleton as a vendor's tracer fills it in: the order of its hooks, batches keyed by
// the stage, drops, snapshots and streaming parts, a failed start, batches racing a copy.
#include "backends/backend_tracer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

// A vendor whose "SDK" is this test: each batch is `n` graph kernels with the vendor's keys.
class FakeTracer final : public BackendTracer {
 public:
  FakeTracer() : BackendTracer("fake", nullptr) {}
  ~FakeTracer() override {
    if (running()) (void)Stop();
  }

  void Batch(uint32_t n) {
    DecodeBatch([&] {
      for (uint32_t i = 0; i < n; ++i) {
        GpuActivity a{};
        a.kind = ActivityKind::kKernel;
        a.graph_id = 7;
        a.graph_node_id = (uint64_t{7} << 32) | (i % 3);
        a.start_ns = a.end_ns = NowNs();
        trace().gpu.push_back(a);
      }
    });
  }
  void Drop(uint64_t n) { AddVendorDropped(n); }
  // What a backend recording exec DAGs does: the store on, a DAG added at "instantiation".
  void RecordDag(uint64_t graph_id) {
    set_records_graph_dags(true);
    GraphDag dag;
    dag.graph_id = graph_id;
    dag.nodes = {{graph_id << 32, DagNodeType::kKernel, 0}};
    graph_dags()->Add(std::move(dag));
  }
  void Refuse(uint64_t n) { AddBuffersRefused(n); }

  std::vector<std::string> calls;
  Status start_status;
  uint32_t last_batch = 0;  // what StopCollection's flush delivers

 private:
  Status StartCollection(const TracerOptions& options) override {
    calls.push_back("start");
    stage_ = MakeNativeIdStage(options.graph_attribution);
    set_stage(stage_.get());
    return start_status;
  }
  Status StopCollection() override {
    calls.push_back("stop");
    Batch(last_batch);  // the SDK's last buffers, delivered by its flush
    calls.push_back("deactivate");
    return OkStatus();
  }
  void AddCounters(Trace* trace, bool at_stop) override {
    if (at_stop) calls.push_back("counters");
    trace->counters.emplace_back(at_stop ? "fake_counter" : "fake_window", at_stop ? 1 : 2);
  }
  void BeforeWindowCopy() override { calls.push_back("before_copy"); }
  void Describe(Trace* trace) override {
    calls.push_back("describe");
    trace->versions.emplace_back("fake_version", 3);
  }

  std::unique_ptr<AttributionStage> stage_;
};

uint64_t Keyed(const Trace& t) {
  uint64_t n = 0;
  t.gpu.ForEach([&](const GpuActivity& a) { n += a.graph_node_id != 0 ? 1 : 0; });
  return n;
}

TEST(BackendTracer, StopRunsTheHooksInOrderOnceAndKeysEveryBatch) {
  FakeTracer t;
  EXPECT_EQ(t.name(), "fake");
  ASSERT_TRUE(t.Start(TracerOptions{}).ok());
  Status again = t.Start(TracerOptions{});
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(again.message().find("the fake tracer is already running"), std::string::npos);
  t.Batch(5);
  t.Drop(4);
  t.Refuse(2);
  t.last_batch = 3;
  ASSERT_TRUE(t.Stop().ok());
  ASSERT_TRUE(t.Stop().ok());  // idempotent: no hook runs twice
  EXPECT_EQ(t.calls,
            (std::vector<std::string>{"start", "stop", "deactivate", "counters", "describe"}));
  const Trace& trace = t.trace();
  EXPECT_EQ(trace.gpu.size(), 8u);
  EXPECT_EQ(Keyed(trace), 8u);  // the stage keyed both batches, the one the flush delivered too
  EXPECT_EQ(trace.drops.vendor_dropped, 4u);
  EXPECT_EQ(trace.drops.buffers_refused, 2u);
  EXPECT_GE(trace.end_ns, trace.start_ns);
  EXPECT_EQ(trace.attribution.mode, "native");
  ASSERT_EQ(trace.counters.size(), 1u);
  EXPECT_EQ(trace.counters[0].first, "fake_counter");
  ASSERT_EQ(trace.versions.size(), 1u);
}

TEST(BackendTracer, AFailedStartLeavesNothingRunning) {
  FakeTracer t;
  t.start_status = UnavailableError("no SDK here");
  Status s = t.Start(TracerOptions{});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_TRUE(t.Stop().ok());
  EXPECT_EQ(t.calls, std::vector<std::string>{"start"});
}

TEST(BackendTracer, SnapshotsCopyOrReleaseTheWindow) {
  FakeTracer never;
  Trace none;
  EXPECT_EQ(never.SnapshotWindow(&none, false).code(), StatusCode::kFailedPrecondition);

  FakeTracer t;
  ASSERT_TRUE(t.Start(TracerOptions{}).ok());
  t.Batch(10);
  t.Drop(1);
  Trace capture;
  ASSERT_TRUE(t.SnapshotWindow(&capture, /*release=*/false).ok());
  EXPECT_EQ(capture.gpu.size(), 10u);
  EXPECT_EQ(capture.drops.vendor_dropped, 1u);
  EXPECT_EQ(t.HeldRecords(), 10u);  // a capture releases nothing
  bool window_counter = false;
  for (const auto& [name, value] : capture.counters) window_counter |= name == "fake_window";
  EXPECT_TRUE(window_counter);
  EXPECT_EQ(capture.versions.size(), 1u);  // Describe(), outside the lock

  Trace part;
  ASSERT_TRUE(t.SnapshotWindow(&part, /*release=*/true).ok());
  EXPECT_EQ(part.gpu.size(), 10u);
  EXPECT_EQ(t.HeldRecords(), 0u);  // a part releases what it wrote
  t.Batch(2);
  ASSERT_TRUE(t.Stop().ok());
  EXPECT_EQ(t.trace().window.streamed, 10u);
  EXPECT_EQ(t.trace().gpu.held(), 2u);
}

TEST(BackendTracer, ARingKeepsItsWindowOnly) {
  FakeTracer t;
  TracerOptions options;
  options.ring.max_records = 1;  // trimmed a whole chunk at a time after each batch
  ASSERT_TRUE(t.Start(options).ok());
  for (int i = 0; i < 5; ++i) t.Batch(4096);
  EXPECT_LT(t.HeldRecords(), 5u * 4096);
  ASSERT_TRUE(t.Stop().ok());
}

// Batches from two SDK threads while streaming parts are taken: every record is written once,
// in a part or in the trace at Stop().
TEST(BackendTracer, BatchesRacingPartsLoseNothing) {
  FakeTracer t;
  TracerOptions options;
  options.stream_records = 1000;
  ASSERT_TRUE(t.Start(options).ok());
  std::atomic<bool> done{false};
  std::vector<std::thread> sdk;
  for (int k = 0; k < 2; ++k) {
    sdk.emplace_back([&] {
      for (int i = 0; i < 200; ++i) t.Batch(50);
    });
  }
  uint64_t written = 0;
  std::thread copier([&] {
    while (!done.load()) {
      Trace part;
      if (t.SnapshotWindow(&part, true).ok()) written += part.gpu.size();
    }
  });
  for (std::thread& s : sdk) s.join();
  done = true;
  copier.join();
  ASSERT_TRUE(t.Stop().ok());
  EXPECT_EQ(written + t.trace().gpu.held(), 2u * 200 * 50);
}

// Exec DAGs reach every copy (a capture, a streaming part) and the trace at Stop(), with their
// counters; a backend that records none writes no counters.
TEST(BackendTracer, DagsReachEveryWindowCopyAndTheTrace) {
  FakeTracer plain;
  ASSERT_TRUE(plain.Start(TracerOptions{}).ok());
  plain.Batch(3);
  Trace none;
  ASSERT_TRUE(plain.SnapshotWindow(&none, /*release=*/false).ok());
  EXPECT_TRUE(none.graph_dags.empty());
  for (const auto& [name, value] : none.counters) EXPECT_NE(name, "graph_dags_recorded");
  ASSERT_TRUE(plain.Stop().ok());

  FakeTracer t;
  ASSERT_TRUE(t.Start(TracerOptions{}).ok());
  t.RecordDag(7);
  t.Batch(3);
  Trace capture, part;
  ASSERT_TRUE(t.SnapshotWindow(&capture, /*release=*/false).ok());
  ASSERT_TRUE(t.SnapshotWindow(&part, /*release=*/true).ok());
  for (const Trace* copy : {&capture, &part}) {
    ASSERT_EQ(copy->graph_dags.size(), 1u);
    EXPECT_EQ(copy->graph_dags[0]->graph_id, 7u);
  }
  t.RecordDag(9);
  ASSERT_TRUE(t.Stop().ok());
  ASSERT_EQ(t.trace().graph_dags.size(), 2u);
  EXPECT_EQ(t.trace().graph_dags[1]->graph_id, 9u);
  int64_t recorded = -1;
  for (const auto& [name, value] : t.trace().counters) {
    if (name == "graph_dags_recorded") recorded = value;
  }
  EXPECT_EQ(recorded, 2);
}

}  // namespace
}  // namespace nodescope
