// The bounds of per-node series (NodeSeriesOptions): sampled replays past the sample limit,
// nodes past the node limit, name bytes, and limits over a merged trace's processes.
// Expected figures are worked out by hand in the comments, not by the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/stats/node_stats.h"
#include "analysis/stats/node_stats_testing.h"

namespace nodescope::analysis {
namespace {

using testing::Event;
using testing::Read;
using testing::Trace;

// Memory bounds (issue 9). Graph 4: 4 nodes replayed 2000 times (correlation 100 + r); node k
// runs 10 k + (r * 37 % 100) us in replay r: every node's durations are the 100 values
// 10 k + 0 .. 10 k + 99, each 20 times, so its mean is 10 k + 49.5, p50 10 k + 49, p95 10 k + 94,
// p99 10 k + 98, min 10 k, max 10 k + 99, and its population stddev sqrt((100^2 - 1) / 12).
std::vector<Event> ManyReplays() {
  std::vector<Event> events;
  for (int r = 0; r < 2000; ++r) {
    for (int k = 0; k < 4; ++k) {
      events.push_back({"kernel", "k" + std::to_string(k), 1000.0 * r + 200 * k,
                        10.0 * k + (r * 37 % 100), 100 + r, 4, static_cast<uint64_t>(k), ""});
    }
  }
  return events;
}

// An exec updated in place, keyed as nodescope writes it since issue 11: one graph id for its
// whole life; node 1 ran another kernel in replays 10..19, under a new node id of the same graph
// (ordinal 0xffffffff). `nodes` must show one graph of 20 replays, three nodes, none mismatched,
// and a diff against a run with the graph under another id must pair it node by node.

TEST(NodeSeriesLimits, PastTheSampleLimitAGraphKeepsWholeReplaysOfAUniformSample) {
  NodeSeriesOptions limits;
  limits.max_samples = 1000;  // of 8000 occurrences
  GraphNodes trace = Read(ManyReplays(), limits);
  ASSERT_EQ(trace.nodes.size(), 4u);
  size_t held = 0;
  std::vector<int64_t> replays_of_first;
  for (const NodeOccurrence& o : trace.nodes[0].occurrences)
    replays_of_first.push_back(o.correlation);
  for (const NodeSeries& node : trace.nodes) {
    EXPECT_EQ(node.count(), 2000u);
    EXPECT_TRUE(node.sampled());
    held += node.occurrences.capacity();
    // The same replays for every node of the graph: per-replay figures stay meaningful.
    std::vector<int64_t> replays;
    for (const NodeOccurrence& o : node.occurrences) replays.push_back(o.correlation);
    EXPECT_EQ(replays, replays_of_first);
  }
  EXPECT_LE(held, limits.max_samples);
  EXPECT_GE(replays_of_first.size(), 50u);  // at least 1 in 8 of 2000 / 4 ... kept, roughly

  std::vector<GraphStats> graphs = ComputeNodeStats(trace);
  ASSERT_EQ(graphs.size(), 1u);
  const GraphStats& g = graphs[0];
  EXPECT_TRUE(g.sampled);
  EXPECT_GE(g.sample_level, 1u);
  EXPECT_EQ(g.replays_held, replays_of_first.size());
  // The replay count is estimated: held * 2^level, within a third of the 2000 replays.
  EXPECT_NEAR(static_cast<double>(g.replays), 2000, 2000 / 3.0);
  const double stddev = std::sqrt((100.0 * 100.0 - 1) / 12);
  for (const NodeStats& n : g.nodes) {
    const double k = 10.0 * static_cast<double>(n.node_id & 0xFFFFFFFF);
    // Exact over all 2000 occurrences, held or not.
    EXPECT_EQ(n.replays, 2000u);
    EXPECT_EQ(n.samples, replays_of_first.size());
    EXPECT_DOUBLE_EQ(n.total_us, 2000 * (k + 49.5));
    EXPECT_DOUBLE_EQ(n.mean_us, k + 49.5);
    EXPECT_EQ(n.min_us, k);
    EXPECT_EQ(n.max_us, k + 99);
    EXPECT_NEAR(n.stddev_us, stddev, 1e-9);
    // Estimated from the sample: within 10 us (a tenth of the range) of the exact figures.
    EXPECT_NEAR(n.p50_us, k + 49, 10);
    EXPECT_NEAR(n.p95_us, k + 94, 10);
    EXPECT_NEAR(n.p99_us, k + 98, 10);
  }
  // Deterministic: the same sample every run.
  GraphNodes again = Read(ManyReplays(), limits);
  EXPECT_EQ(again.nodes[0].occurrences.size(), trace.nodes[0].occurrences.size());
}

TEST(NodeSeriesLimits, WithinTheLimitsEverythingIsExactAndNotMarked) {
  NodeSeriesOptions limits;
  limits.max_samples = 8192;  // slots: 4 vectors grown by doubling to 2048
  limits.max_nodes = 4;
  GraphNodes trace = Read(ManyReplays(), limits);
  EXPECT_EQ(trace.untracked_events, 0u);
  std::vector<GraphStats> graphs = ComputeNodeStats(trace);
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_FALSE(graphs[0].sampled);
  EXPECT_EQ(graphs[0].replays, 2000u);
  for (const NodeStats& n : graphs[0].nodes) {
    EXPECT_EQ(n.samples, 2000u);
    EXPECT_EQ(n.p50_us, 10.0 * static_cast<double>(n.node_id & 0xFFFFFFFF) + 49);
  }
}

TEST(NodeSeriesLimits, NodesPastTheLimitAreCountedNotHeld) {
  NodeSeriesOptions limits;
  limits.max_nodes = 3;
  GraphNodes trace = Read(ManyReplays(), limits);
  ASSERT_EQ(trace.nodes.size(), 3u);
  EXPECT_EQ(trace.nodes[2].node_id & 0xFFFFFFFF, 2u);  // nodes 0..2 came first
  EXPECT_EQ(trace.untracked_events, 2000u);            // node 3's
  EXPECT_EQ(trace.keyed_events, 8000u);
}

TEST(NodeSeriesLimits, NameBytesAreBounded) {
  NodeSeriesOptions limits;
  // "k0", "kernel", "k1", "k2": 12 bytes of text and 40 for each name besides.
  limits.max_name_bytes = 12 + 4 * NamePool::kPerNameBytes;
  GraphNodes trace = Read(ManyReplays(), limits);
  EXPECT_EQ(trace.nodes.size(), 3u);
  EXPECT_EQ(trace.untracked_events, 2000u);
}

// Issue 24: the limits held per process of a merged trace, so memory grew with the number of
// processes (32 of 262144 nodes each took 5.9 GB). They hold for the whole trace: a merged trace
// of `processes` processes (pids slot << 22 | 100), one after the other, each replaying graph 1
// of `nodes` nodes `replays` times.
std::string MergedTrace(int processes, int nodes, int replays) {
  std::string json = R"({"traceEvents":[)";
  for (int p = 0; p < processes; ++p) {
    for (int r = 0; r < replays; ++r) {
      for (int n = 0; n < nodes; ++n) {
        json += (json.back() == '[' ? "\n" : ",\n") +
                std::string(R"({"ph":"X","cat":"kernel","name":"k)") + std::to_string(n) +
                R"(","pid":)" + std::to_string((int64_t{p} << 22) | 100) + R"(,"ts":)" +
                std::to_string(1000 + 100 * r + 10 * n) + R"(,"dur":5,"args":{"correlation":)" +
                std::to_string(1000 * p + r + 1) + R"(,"graph id":1,"graph node id":)" +
                std::to_string((uint64_t{1} << 32) | static_cast<uint64_t>(n)) + "}}";
      }
    }
  }
  return json + "]}";
}

TEST(NodeSeriesLimits, TheLimitsHoldForTheWholeTraceNotPerProcess) {
  NodeSeriesOptions limits;
  limits.max_nodes = 3;
  auto r = CollectNodeSeriesPerProcessFromText("t.json", MergedTrace(4, 2, 3), limits);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  // The first 3 nodes seen: process 0's two, process 1's first; the rest are left out.
  EXPECT_EQ((*r)[0].nodes.size(), 2u);
  EXPECT_EQ((*r)[1].nodes.size(), 1u);
  EXPECT_EQ((*r)[2].nodes.size(), 0u);
  EXPECT_EQ((*r)[3].nodes.size(), 0u);
  const uint64_t untracked[] = {0, 3, 6, 6};
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ((*r)[p].untracked_events, untracked[p]) << p;
    EXPECT_EQ((*r)[p].keyed_events, 6u) << p;
    EXPECT_EQ((*r)[p].strings, (*r)[0].strings) << p;  // one pool of names for the trace
  }
  EXPECT_EQ((*r)[1].nodes[0].node_id, uint64_t{1} << 32);
  EXPECT_EQ((*r)[1].nodes[0].count(), 3u);

  // Occurrences too: 4 processes replaying one node 400 times, at most 400 held in all.
  NodeSeriesOptions samples;
  samples.max_samples = 400;
  r = CollectNodeSeriesPerProcessFromText("t.json", MergedTrace(4, 1, 400), samples);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  size_t slots = 0;
  size_t sampled = 0;
  for (const GraphNodes& p : *r) {
    ASSERT_EQ(p.nodes.size(), 1u);
    EXPECT_EQ(p.nodes[0].count(), 400u);  // exact, whatever is held
    slots += p.nodes[0].occurrences.capacity();
    sampled += p.nodes[0].sampled() ? 1 : 0;
  }
  EXPECT_LE(slots, samples.max_samples);
  EXPECT_GE(sampled, 3u);
}

}  // namespace
}  // namespace nodescope::analysis
