// Tests of per-node statistics and trace comparison on small generated traces.
// Expected figures are worked out by hand in the comments, not by the code under test.
#include "analysis/stats/node_stats.h"

#include "analysis/stats/node_stats_testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace nodescope::analysis {
namespace {

using testing::Event;
using testing::Read;
using testing::Trace;

constexpr char kScale[] = "void scale(float*)";
constexpr char kCopy[] = "Memcpy DtoD (Device -> Device)";
constexpr char kReduce[] = "void reduce(int)";

// Graph `graph`: three nodes replayed 20 times (correlation 500 + r, replay r starts at
// 1000 + 200 r), written newest replay first. Node 0 (scale) runs scale_dur(r); 3 us later node 1
// (a copy) runs 2 us; 1 us later node 2 (reduce) runs 40 us in replay 0, then 4 us. In replay 5
// reduce starts 1 us after the copy starts, overlapping it: no gap there.
template <typename F>
void AddThreeNodeGraph(std::vector<Event>& events, uint64_t graph, F scale_dur) {
  for (int r = 19; r >= 0; --r) {
    const double t = 1000 + 200 * r;
    const int64_t corr = 500 + r;
    const double d0 = scale_dur(r);
    events.push_back({"kernel", kScale, t, d0, corr, graph, 0, ""});
    events.push_back({"gpu_memcpy", kCopy, t + d0 + 3, 2, corr, graph, 1, ""});
    const double reduce_start = r == 5 ? t + d0 + 4 : t + d0 + 6;
    events.push_back(
        {"kernel", kReduce, reduce_start, r == 0 ? 40.0 : 4.0, corr, graph, 2, "train/step"});
  }
}

// Trace A: graph 7 as above with scale running 10 + r us; graph 9: "tiny" (1 us) then "small"
// (2 us, back to back) replayed 3 times; graph 20: one node once; and a kernel without keys.
std::vector<Event> TraceA() {
  std::vector<Event> events;
  AddThreeNodeGraph(events, 7, [](int r) { return 10.0 + r; });
  for (int r = 0; r < 3; ++r) {
    const double t = 10000 + 100 * r;
    events.push_back({"kernel", "void tiny(float*)", t, 1, 900 + r, 9, 0, ""});
    events.push_back({"kernel", "void small(float*)", t + 1, 2, 900 + r, 9, 1, ""});
  }
  events.push_back({"kernel", "void gone()", 20000, 3, 950, 20, 0, ""});
  events.push_back({"kernel", "plain", 30000, 5, 960, 0, 0, ""});
  return events;
}

const GraphStats* Find(const std::vector<GraphStats>& graphs, uint64_t id) {
  for (const GraphStats& g : graphs) {
    if (g.graph_id == id) return &g;
  }
  return nullptr;
}

TEST(NearestRankPercentile, TextbookExample) {
  // The classic example: 15 20 35 40 50 has p30 = 20, p40 = 20, p50 = 35, p100 = 50, p5 = 15.
  std::vector<double> v = {15, 20, 35, 40, 50};
  EXPECT_EQ(NearestRankPercentile(v, 5), 15);
  EXPECT_EQ(NearestRankPercentile(v, 30), 20);
  EXPECT_EQ(NearestRankPercentile(v, 40), 20);
  EXPECT_EQ(NearestRankPercentile(v, 50), 35);
  EXPECT_EQ(NearestRankPercentile(v, 100), 50);
  EXPECT_EQ(NearestRankPercentile(v, 0), 15);
  EXPECT_TRUE(std::isnan(NearestRankPercentile({}, 50)));
  // 20 samples 1..20: p95 is rank 19 exactly (no floating-point rounding up to 20).
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  EXPECT_EQ(NearestRankPercentile(twenty, 95), 19);
  EXPECT_EQ(NearestRankPercentile(twenty, 99), 20);
  EXPECT_EQ(NearestRankPercentile(twenty, 50), 10);
}

TEST(NodeStats, ThreeNodeGraphReplayedTwentyTimes) {
  std::vector<GraphStats> graphs = ComputeNodeStats(Read(TraceA()));
  ASSERT_EQ(graphs.size(), 3u);
  EXPECT_EQ(graphs[0].graph_id, 7u);
  EXPECT_EQ(graphs[1].graph_id, 9u);
  EXPECT_EQ(graphs[2].graph_id, 20u);
  const GraphStats& g = graphs[0];
  EXPECT_EQ(g.replays, 20u);
  EXPECT_EQ(g.node_count, 3u);
  // Totals: scale 10 + ... + 29 = 390; copy 20 * 2 = 40; reduce 40 + 19 * 4 = 116; sum 546.
  EXPECT_DOUBLE_EQ(g.gpu_total_us, 546);
  ASSERT_EQ(g.nodes.size(), 3u);
  const NodeStats& scale = g.nodes[0];  // by total descending: scale, reduce, copy
  const NodeStats& reduce = g.nodes[1];
  const NodeStats& copy = g.nodes[2];
  EXPECT_EQ(scale.name, kScale);
  EXPECT_EQ(scale.node_id, 7ull << 32);
  EXPECT_EQ(reduce.name, kReduce);
  EXPECT_EQ(reduce.scope, "train/step");
  EXPECT_EQ(copy.name, kCopy);
  EXPECT_EQ(copy.cat, "gpu_memcpy");

  // scale: 10..29. Mean 19.5; nearest rank of 20 samples: p50 rank 10 -> 19, p95 rank 19 -> 28,
  // p99 rank 20 -> 29. 20 consecutive integers: variance (20^2 - 1) / 12 = 33.25. Drift: first
  // two (10, 11) mean 10.5, last two (28, 29) mean 28.5: 28.5 / 10.5 - 1 = 12 / 7.
  EXPECT_EQ(scale.replays, 20u);
  EXPECT_DOUBLE_EQ(scale.total_us, 390);
  EXPECT_DOUBLE_EQ(scale.mean_us, 19.5);
  EXPECT_DOUBLE_EQ(scale.p50_us, 19);
  EXPECT_DOUBLE_EQ(scale.p95_us, 28);
  EXPECT_DOUBLE_EQ(scale.p99_us, 29);
  EXPECT_DOUBLE_EQ(scale.max_us, 29);
  EXPECT_NEAR(scale.stddev_us, std::sqrt(33.25), 1e-9);
  EXPECT_NEAR(scale.drift, 12.0 / 7.0, 1e-9);
  EXPECT_NEAR(scale.share, 390.0 / 546.0, 1e-12);

  // reduce: 40 once, then 4 x 19. Mean 116 / 20 = 5.8; p50 and p95 are 4, p99 (rank 20) is 40.
  // Squared deviations: 19 * 1.8^2 + 34.2^2 = 61.56 + 1169.64 = 1231.2; / 20 = 61.56.
  // Drift: first two (40, 4) mean 22, last two mean 4: 4 / 22 - 1 = -9 / 11.
  EXPECT_DOUBLE_EQ(reduce.total_us, 116);
  EXPECT_DOUBLE_EQ(reduce.mean_us, 5.8);
  EXPECT_DOUBLE_EQ(reduce.p50_us, 4);
  EXPECT_DOUBLE_EQ(reduce.p95_us, 4);
  EXPECT_DOUBLE_EQ(reduce.p99_us, 40);
  EXPECT_DOUBLE_EQ(reduce.max_us, 40);
  EXPECT_NEAR(reduce.stddev_us, std::sqrt(61.56), 1e-9);
  EXPECT_NEAR(reduce.drift, -9.0 / 11.0, 1e-9);
  EXPECT_NEAR(reduce.share, 116.0 / 546.0, 1e-12);

  EXPECT_DOUBLE_EQ(copy.mean_us, 2);
  EXPECT_DOUBLE_EQ(copy.stddev_us, 0);
  EXPECT_DOUBLE_EQ(copy.drift, 0);
  EXPECT_NEAR(copy.share, 40.0 / 546.0, 1e-12);

  // GPU time per replay: replay 0 is 10 + 2 + 40 = 52, replay r >= 1 is (10 + r) + 2 + 4 = 16 + r,
  // i.e. 17..35. Sorted: 17..35, 52. p50 (rank 10) = 26, p99 (rank 20) = 52.
  EXPECT_DOUBLE_EQ(g.gpu_p50_us, 26);
  EXPECT_DOUBLE_EQ(g.gpu_p99_us, 52);
  // The first replay (by time) is replay 0: 52 us, twice the median.
  EXPECT_DOUBLE_EQ(g.first_replay_gpu_us, 52);
  EXPECT_DOUBLE_EQ(g.first_replay_outlier, 2);
  // Span: scale + 3 + 2 + 1 + reduce = d0 + reduce + 6: replay 0 is 56, replay r is 20 + r,
  // except replay 5 where reduce ends at d0 + 4 + 4: 15 + 8 = 23. Sorted: 21 22 23 23 24 26 27 28
  // 29 30 ... 39 56: p50 (rank 10) = 30, p99 = 56.
  EXPECT_DOUBLE_EQ(g.span_p50_us, 30);
  EXPECT_DOUBLE_EQ(g.span_p99_us, 56);
  // Idle: 3 + 1 = 4 us in two gaps per replay, but only the 3 us gap in replay 5.
  // Mean (19 * 4 + 3) / 20 = 3.95; p99 = 4; gaps (19 * 2 + 1) / 20 = 1.95.
  EXPECT_NEAR(g.idle_mean_us, 3.95, 1e-9);
  EXPECT_DOUBLE_EQ(g.idle_p99_us, 4);
  EXPECT_NEAR(g.gaps_mean, 1.95, 1e-12);
}

TEST(NodeStats, FewReplaysHaveNoDrift) {
  std::vector<GraphStats> graphs = ComputeNodeStats(Read(TraceA()));
  const GraphStats* g = Find(graphs, 9);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->replays, 3u);
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "void small(float*)");  // total 6 before tiny's 3
  EXPECT_EQ(g->nodes[0].replays, 3u);
  EXPECT_TRUE(std::isnan(g->nodes[0].drift));
  EXPECT_TRUE(std::isnan(g->nodes[1].drift));
  EXPECT_NEAR(g->nodes[1].share, 3.0 / 9.0, 1e-12);
  // Back to back: no idle time, no gaps; GPU time = span = 3 us per replay.
  EXPECT_DOUBLE_EQ(g->idle_mean_us, 0);
  EXPECT_DOUBLE_EQ(g->gaps_mean, 0);
  EXPECT_DOUBLE_EQ(g->gpu_p50_us, 3);
  EXPECT_DOUBLE_EQ(g->span_p99_us, 3);
  EXPECT_DOUBLE_EQ(g->first_replay_outlier, 1);
  // Exactly 10 replays do have a drift: one first and one last occurrence.
  std::vector<Event> ten;
  for (int r = 0; r < 10; ++r)
    ten.push_back({"kernel", "k", 100.0 * r, r == 9 ? 3.0 : 2.0, r, 4, 0, ""});
  std::vector<GraphStats> g10 = ComputeNodeStats(Read(ten));
  ASSERT_EQ(g10.size(), 1u);
  EXPECT_NEAR(g10[0].nodes[0].drift, 0.5, 1e-12);
}

TEST(NodeStats, GraphFilterAndTop) {
  GraphNodes trace = Read(TraceA());
  std::vector<GraphStats> only9 = ComputeNodeStats(trace, {.graph_id = 9, .top = 0});
  ASSERT_EQ(only9.size(), 1u);
  EXPECT_EQ(only9[0].graph_id, 9u);
  EXPECT_TRUE(ComputeNodeStats(trace, {.graph_id = 8, .top = 0}).empty());

  std::vector<GraphStats> top1 = ComputeNodeStats(trace, {.graph_id = std::nullopt, .top = 1});
  ASSERT_EQ(top1.size(), 3u);
  ASSERT_EQ(top1[0].nodes.size(), 1u);
  EXPECT_EQ(top1[0].nodes[0].name, kScale);
  EXPECT_EQ(top1[0].node_count, 3u);
  // Shares and graph figures still count the nodes cut off.
  EXPECT_NEAR(top1[0].nodes[0].share, 390.0 / 546.0, 1e-12);
  EXPECT_DOUBLE_EQ(top1[0].gpu_p50_us, 26);
}

TEST(NodeStats, NoKeysNoGraphs) {
  std::vector<Event> plain = {{"kernel", "plain", 1, 2, 3, 0, 0, ""}};
  EXPECT_TRUE(ComputeNodeStats(Read(plain)).empty());
}

// Graph-keyed work without a start or a duration cannot be costed: an error at its byte, not a 0.
// Node ids whose upper 32 bits are not their graph id are counted, and a node id seen under two
// graph ids is two nodes, not one series with the other graph's work in it.
TEST(NodeSeries, CountsNodeIdsThatDoNotCarryTheirGraphId) {
  auto event = [](uint64_t graph, uint64_t node, double ts) {
    return R"({"ph":"X","cat":"kernel","name":"k","ts":)" + std::to_string(ts) +
           R"(,"dur":1,"args":{"graph id":)" + std::to_string(graph) + R"(,"graph node id":)" +
           std::to_string(node) + "}}";
  };
  const std::string json = R"({"traceEvents":[)" + event(1, 1ull << 32, 1) + "," +
                           event(1, 2ull << 32 | 1, 2) + "," + event(2, 2ull << 32 | 1, 3) + "," +
                           event(3, 7ull << 32 | 5, 4) + "]}";
  StatusOr<GraphNodes> r = CollectNodeSeriesFromText("t.json", json);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->nodes.size(), 4u);
  EXPECT_EQ(r->mismatched_nodes, 2u);  // (1, 2<<32|1) and (3, 7<<32|5)
  EXPECT_EQ(r->nodes[1].graph_id, 1u);
  EXPECT_EQ(r->nodes[1].occurrences.size(), 1u);
  EXPECT_EQ(r->nodes[2].graph_id, 2u);
}

// A key seen with two names (an aliased key) keeps the first and is marked, so `nodes` can warn.
TEST(NodeSeries, MarksKeysSeenWithSeveralNames) {
  std::vector<Event> events;
  for (int replay = 0; replay < 4; ++replay) {
    const int64_t corr = 100 + replay;
    const double t = 100.0 * replay;
    events.push_back({"kernel", replay < 2 ? kScale : kReduce, t, 1, corr, 1, 0, ""});
    events.push_back({"gpu_memcpy", kCopy, t + 2, 1, corr, 1, 1, ""});
  }
  const GraphNodes g = Read(events);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.aliased_nodes, 1u);
  EXPECT_TRUE(g.nodes[0].aliased);
  EXPECT_EQ(g.nodes[0].name, kScale);
  EXPECT_FALSE(g.nodes[1].aliased);
}

TEST(NodeSeries, KeyedWorkWithoutTimesIsAnError) {
  const std::string ok = R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,)"
                         R"("args":{"graph id":1,"graph node id":4294967296}})";
  const std::string no_dur = R"({"ph":"X","cat":"kernel","name":"k","ts":1,)"
                             R"("args":{"graph id":1,"graph node id":4294967296}})";
  const std::string no_ts = R"({"ph":"X","cat":"gpu_memset","name":"m","dur":2,)"
                            R"("args":{"graph id":1,"graph node id":4294967297}})";
  const std::string negative = R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":-0.5,)"
                               R"("args":{"graph id":1,"graph node id":4294967296}})";
  const std::string head = R"({"traceEvents":[)" + ok + ",\n";
  auto r = CollectNodeSeriesFromText("t.json", head + no_dur + "]}");
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.status().message(), "t.json: byte " + std::to_string(head.size()) +
                                      ": a kernel event with graph keys has no \"dur\"");
  r = CollectNodeSeriesFromText("t.json", head + no_ts + "]}");
  EXPECT_EQ(r.status().message(), "t.json: byte " + std::to_string(head.size()) +
                                      ": a gpu_memset event with graph keys has no \"ts\"");
  r = CollectNodeSeriesFromText("t.json", head + negative + "]}");
  EXPECT_EQ(r.status().message(),
            "t.json: byte " + std::to_string(head.size()) + ": \"dur\" is negative (-0.500000)");
  const std::string huge = R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1e308,)"
                           R"("args":{"graph id":1,"graph node id":4294967296}})";
  r = CollectNodeSeriesFromText("t.json", head + huge + "]}");
  EXPECT_EQ(r.status().message(), "t.json: byte " + std::to_string(head.size()) +
                                      ": \"dur\" is 1e+308 us, too large for a time (at most "
                                      "1e17 us)");
  const std::string far = R"({"ph":"X","cat":"kernel","name":"k","ts":-2e17,"dur":1,)"
                          R"("args":{"graph id":1,"graph node id":4294967296}})";
  r = CollectNodeSeriesFromText("t.json", head + far + "]}");
  EXPECT_NE(r.status().message().find(": \"ts\" is -2e+17 us, too large"), std::string::npos);
  // Work without graph keys needs neither.
  const std::string plain = R"({"ph":"X","cat":"kernel","name":"p","args":{}})";
  EXPECT_TRUE(CollectNodeSeriesFromText("t.json", head + plain + "]}").ok());
}

// Trace B, "after": graph 12 has graph 7's nodes with scale twice as fast ((10 + r) / 2) and
// reduce at 4 us from the start; graph 9 keeps tiny (now 1.5 us), renames small to small_v2
// (1 us) and gains "extra"; graph 3 holds a node of its own. Graph 20 of A is gone.
std::vector<Event> TraceB() {
  std::vector<Event> events;
  AddThreeNodeGraph(events, 12, [](int r) { return (10.0 + r) / 2; });
  for (Event& e : events) {
    if (e.name == kReduce) e.dur = 4;
  }
  for (int r = 0; r < 3; ++r) {
    const double t = 10000 + 100 * r;
    events.push_back({"kernel", "void tiny(float*)", t, 1.5, 900 + r, 9, 0, ""});
    events.push_back({"kernel", "void small_v2(float*)", t + 2, 1, 900 + r, 9, 1, ""});
    events.push_back({"kernel", "void extra(float*)", t + 3, 1, 900 + r, 9, 2, ""});
  }
  events.push_back({"kernel", "void lonely()", 20000, 7, 950, 3, 0, ""});
  return events;
}

TEST(NodeDiff, MatchesGraphsAcrossRuns) {
  std::vector<GraphStats> a = ComputeNodeStats(Read(TraceA()));
  std::vector<GraphStats> b = ComputeNodeStats(Read(TraceB()));
  std::vector<GraphDiff> diff = DiffNodeStats(a, b);
  // A's graphs in id order (7, 9, 20), then B's unpaired graph 3.
  ASSERT_EQ(diff.size(), 4u);

  const GraphDiff& g7 = diff[0];
  EXPECT_EQ(g7.match, GraphMatch::kSameNodes);
  EXPECT_EQ(g7.graph_a, 7u);
  EXPECT_EQ(g7.graph_b, 12u);
  EXPECT_EQ(g7.matched, 3u);
  EXPECT_EQ(g7.replays_a, 20u);
  EXPECT_EQ(g7.replays_b, 20u);
  ASSERT_EQ(g7.nodes.size(), 3u);
  // By |delta| descending: scale 19.5 -> 9.75, reduce 5.8 -> 4, copy 2 -> 2.
  EXPECT_EQ(g7.nodes[0].a->name, kScale);
  EXPECT_EQ(g7.nodes[0].b->node_id, 12ull << 32);
  EXPECT_DOUBLE_EQ(g7.nodes[0].a->mean_us, 19.5);
  EXPECT_DOUBLE_EQ(g7.nodes[0].b->mean_us, 9.75);
  EXPECT_DOUBLE_EQ(g7.nodes[0].delta_us, -9.75);
  EXPECT_DOUBLE_EQ(g7.nodes[0].delta_fraction, -0.5);
  EXPECT_EQ(g7.nodes[1].a->name, kReduce);
  EXPECT_NEAR(g7.nodes[1].delta_us, -1.8, 1e-12);
  EXPECT_NEAR(g7.nodes[1].delta_fraction, -1.8 / 5.8, 1e-12);
  EXPECT_EQ(g7.nodes[2].a->name, kCopy);
  EXPECT_DOUBLE_EQ(g7.nodes[2].delta_us, 0);

  const GraphDiff& g9 = diff[1];
  EXPECT_EQ(g9.match, GraphMatch::kSameIdOtherNodes);
  EXPECT_EQ(g9.graph_a, 9u);
  EXPECT_EQ(g9.graph_b, 9u);
  // Aligned by name: only tiny pairs (1 -> 1.5 us: +50 %); small and small_v2 differ in name, so
  // small is only in A and small_v2, like extra, only in B (before: paired by ordinal).
  EXPECT_EQ(g9.matched, 1u);
  EXPECT_EQ(g9.fused, 0u);
  ASSERT_EQ(g9.nodes.size(), 4u);
  EXPECT_EQ(g9.nodes[0].a->name, "void tiny(float*)");
  EXPECT_EQ(g9.nodes[0].b->name, "void tiny(float*)");
  EXPECT_DOUBLE_EQ(g9.nodes[0].delta_fraction, 0.5);
  EXPECT_EQ(g9.nodes[1].a->name, "void small(float*)");
  EXPECT_FALSE(g9.nodes[1].b.has_value());
  EXPECT_FALSE(g9.nodes[2].a.has_value());
  EXPECT_EQ(g9.nodes[2].b->name, "void small_v2(float*)");
  EXPECT_EQ(g9.nodes[3].b->name, "void extra(float*)");
  EXPECT_TRUE(std::isnan(g9.nodes[3].delta_us));

  EXPECT_EQ(diff[2].match, GraphMatch::kOnlyA);
  EXPECT_EQ(diff[2].graph_a, 20u);
  EXPECT_FALSE(diff[2].graph_b.has_value());
  ASSERT_EQ(diff[2].nodes.size(), 1u);
  EXPECT_EQ(diff[2].nodes[0].a->name, "void gone()");
  EXPECT_EQ(diff[3].match, GraphMatch::kOnlyB);
  EXPECT_EQ(diff[3].graph_b, 3u);
  EXPECT_EQ(diff[3].nodes[0].b->name, "void lonely()");

  // --graph matches either side's id; --top cuts each group of a pair.
  std::vector<GraphDiff> only12 = DiffNodeStats(a, b, {.graph_id = 12, .top = 1});
  ASSERT_EQ(only12.size(), 1u);
  EXPECT_EQ(only12[0].graph_a, 7u);
  ASSERT_EQ(only12[0].nodes.size(), 1u);
  EXPECT_EQ(only12[0].nodes[0].a->name, kScale);
  EXPECT_EQ(only12[0].matched, 3u);
  std::vector<GraphDiff> top9 = DiffNodeStats(a, b, {.graph_id = 9, .top = 1});
  ASSERT_EQ(top9.size(), 1u);
  ASSERT_EQ(top9[0].nodes.size(), 3u);  // one matched, one only in A, one only in B
  EXPECT_FALSE(top9[0].nodes[1].b.has_value());
  EXPECT_FALSE(top9[0].nodes[2].a.has_value());
}

// A chain against the same chain with two nodes fused (issue 30): every node present in both
// pairs with itself, and the fusion is reported against the time of the nodes it replaced.
TEST(NodeDiff, AFusedNodeDoesNotShiftTheRest) {
  std::vector<Event> a, b;
  const char* names[] = {"k0", "k1", "add", "relu", "k4", "k5"};
  for (int r = 0; r < 4; ++r) {
    for (int i = 0; i < 6; ++i)
      a.push_back({"kernel", names[i], 100.0 * r + i, 2, r, 4, static_cast<uint64_t>(i), ""});
    uint64_t ordinal = 0;
    for (int i = 0; i < 6; ++i) {
      if (i == 3) continue;
      const std::string name = i == 2 ? "add_relu" : names[i];
      b.push_back({"kernel", name, 100.0 * r + i, i == 2 ? 3.0 : 2.0, r, 4, ordinal++, ""});
    }
  }
  std::vector<GraphDiff> diff = DiffNodeStats(ComputeNodeStats(Read(a)), ComputeNodeStats(Read(b)));
  ASSERT_EQ(diff.size(), 1u);
  const GraphDiff& g = diff[0];
  EXPECT_EQ(g.match, GraphMatch::kSameIdOtherNodes);
  EXPECT_EQ(g.matched, 4u);
  EXPECT_EQ(g.fused, 1u);
  ASSERT_EQ(g.nodes.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(g.nodes[i].a && g.nodes[i].b);
    EXPECT_EQ(g.nodes[i].a->name, g.nodes[i].b->name);
    EXPECT_DOUBLE_EQ(g.nodes[i].delta_us, 0);
  }
  const NodeDiff& fused = g.nodes[4];
  ASSERT_TRUE(fused.fused());
  ASSERT_EQ(fused.fused_a.size(), 2u);
  EXPECT_EQ(fused.fused_a[0].name, "add");
  EXPECT_EQ(fused.fused_a[1].name, "relu");
  EXPECT_EQ(fused.b->name, "add_relu");
  EXPECT_DOUBLE_EQ(fused.delta_us, -1);  // 3 us for 2 + 2
  EXPECT_DOUBLE_EQ(fused.delta_fraction, -0.25);
}

TEST(NodeDiff, SequencesWinOverCoincidentIds) {
  // Ids are per process: A's graph 1 (x, y) is B's graph 2 and A's graph 2 (z) is B's graph 1.
  std::vector<Event> a = {{"kernel", "x", 0, 1, 1, 1, 0, ""},
                          {"kernel", "y", 1, 1, 1, 1, 1, ""},
                          {"kernel", "z", 5, 1, 2, 2, 0, ""}};
  std::vector<Event> b = {{"kernel", "z", 0, 2, 1, 1, 0, ""},
                          {"kernel", "x", 5, 3, 2, 2, 0, ""},
                          {"kernel", "y", 8, 1, 2, 2, 1, ""}};
  std::vector<GraphDiff> diff = DiffNodeStats(ComputeNodeStats(Read(a)), ComputeNodeStats(Read(b)));
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0].graph_a, 1u);
  EXPECT_EQ(diff[0].graph_b, 2u);
  EXPECT_EQ(diff[0].match, GraphMatch::kSameNodes);
  EXPECT_EQ(diff[0].nodes[0].a->name, "x");  // +2 us, the largest change
  EXPECT_DOUBLE_EQ(diff[0].nodes[0].delta_us, 2);
  EXPECT_EQ(diff[1].graph_a, 2u);
  EXPECT_EQ(diff[1].graph_b, 1u);
  EXPECT_DOUBLE_EQ(diff[1].nodes[0].delta_fraction, 1);

  // The same id with the same nodes goes first: A 1 (x), A 2 (x); B 2 (x), B 5 (x).
  std::vector<Event> a2 = {{"kernel", "x", 0, 1, 1, 1, 0, ""}, {"kernel", "x", 5, 1, 2, 2, 0, ""}};
  std::vector<Event> b2 = {{"kernel", "x", 0, 1, 1, 2, 0, ""}, {"kernel", "x", 5, 1, 2, 5, 0, ""}};
  diff = DiffNodeStats(ComputeNodeStats(Read(a2)), ComputeNodeStats(Read(b2)));
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0].graph_a, 1u);
  EXPECT_EQ(diff[0].graph_b, 5u);
  EXPECT_EQ(diff[0].match, GraphMatch::kSameNodes);
  EXPECT_EQ(diff[1].graph_a, 2u);
  EXPECT_EQ(diff[1].graph_b, 2u);
  EXPECT_EQ(diff[1].match, GraphMatch::kSameIdSameNodes);
}

std::vector<Event> UpdatedInPlace(uint64_t graph, double scale) {
  std::vector<Event> events;
  for (int r = 0; r < 20; ++r) {
    const double t = 1000 + 100 * r;
    const int64_t corr = 300 + 2 * r;  // the update calls take the odd correlation ids
    events.push_back({"kernel", "void a(float*)", t, 2 * scale, corr, graph, 0, ""});
    if (r < 10) {
      events.push_back({"kernel", "void b(float*)", t + 3, 3 * scale, corr, graph, 1, ""});
    } else {
      events.push_back(
          {"kernel", "void b2(float*)", t + 3, 5 * scale, corr, graph, 0xffffffff, ""});
    }
  }
  return events;
}

TEST(NodeStats, ExecUpdatedInPlaceIsOneGraph) {
  std::vector<GraphStats> graphs = ComputeNodeStats(Read(UpdatedInPlace(4, 1)));
  ASSERT_EQ(graphs.size(), 1u);
  const GraphStats& g = graphs[0];
  EXPECT_EQ(g.graph_id, 4u);
  EXPECT_EQ(g.replays, 20u) << "a replay is a launch, whatever its nodes ran";
  EXPECT_EQ(g.node_count, 3u);
  EXPECT_EQ(g.mismatched_nodes, 0u);
  std::map<uint64_t, uint64_t> replays;
  for (const NodeStats& n : g.nodes) replays[n.node_id] = n.replays;
  EXPECT_EQ(replays[4ull << 32], 20u);
  EXPECT_EQ(replays[4ull << 32 | 1], 10u);
  EXPECT_EQ(replays[4ull << 32 | 0xffffffff], 10u);

  std::vector<GraphStats> b = ComputeNodeStats(Read(UpdatedInPlace(9, 2)));
  std::vector<GraphDiff> diff = DiffNodeStats(graphs, b);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].match, GraphMatch::kSameNodes);
  EXPECT_EQ(diff[0].matched, 3u) << "the new node id pairs with its counterpart";
  for (const NodeDiff& n : diff[0].nodes) {
    ASSERT_TRUE(n.a && n.b);
    EXPECT_EQ(n.a->name, n.b->name);
    EXPECT_EQ(n.a->node_id & 0xffffffff, n.b->node_id & 0xffffffff);
  }
}

}  // namespace
}  // namespace nodescope::analysis
