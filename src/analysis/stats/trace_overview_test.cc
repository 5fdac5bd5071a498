// Tests of the trace overview: graphs and eager work ranked together, the eager names' bound,
// stable graph names across traces, --graph by name. Expected figures are worked out by hand.
#include "analysis/stats/trace_overview.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/stats/node_stats_testing.h"

namespace nodescope::analysis {
namespace {

using testing::Event;
using testing::Read;

// 12 one-shot graphs (ids 1..12, one 3 us node each), one heavy graph (id 40: gemm 100 us then
// relu 20 us, 10 replays) and eager kernels: "elementwise" 2000 x 1 us, "copy" 1 x 7 us.
// `graph_base` shifts every graph id (another run: the same graphs under other ids).
std::vector<Event> Mixed(uint64_t graph_base = 0) {
  std::vector<Event> events;
  for (uint64_t g = 1; g <= 12; ++g) {
    events.push_back({"kernel", "tiny_" + std::to_string(g), 10.0 * static_cast<double>(g), 3,
                      static_cast<int64_t>(g), graph_base + g, 0, ""});
  }
  for (int r = 0; r < 10; ++r) {
    const double t = 1000 + 200 * r;
    events.push_back({"kernel", "gemm", t, 100, 100 + r, graph_base + 40, 0, "decode/layer"});
    events.push_back({"kernel", "relu", t + 100, 20, 100 + r, graph_base + 40, 1, "decode/act"});
  }
  for (int i = 0; i < 2000; ++i) {
    events.push_back({"kernel", "elementwise", 5000.0 + i * 2, 1, 10000 + i, 0, 0, ""});
  }
  events.push_back({"gpu_memcpy", "copy", 9000, 7, 20000, 0, 0, ""});
  return events;
}

TEST(TraceOverview, HeavyGraphFirstAndEagerWorkRankedWithIt) {
  GraphNodes trace = Read(Mixed());
  ASSERT_EQ(trace.eager.size(), 2u);
  TraceOverview o = ComputeOverview(trace);
  // Graphs: 12 x 3 + 10 x 120 = 1236 us; eager: 2000 + 7 = 2007 us; in all 3243 us.
  EXPECT_DOUBLE_EQ(o.graphs_us, 1236);
  EXPECT_DOUBLE_EQ(o.eager_us, 2007);
  EXPECT_DOUBLE_EQ(o.gpu_total_us, 3243);
  EXPECT_EQ(o.eager_events, 2001u);
  ASSERT_EQ(o.lines.size(), 15u);
  EXPECT_EQ(o.lines[0].kind, OverviewLine::Kind::kEager);
  EXPECT_EQ(o.lines[0].name, "elementwise");
  EXPECT_EQ(o.lines[0].count, 2000u);
  EXPECT_NEAR(o.lines[0].share, 2000.0 / 3243, 1e-12);
  EXPECT_EQ(o.lines[1].kind, OverviewLine::Kind::kGraph);
  EXPECT_EQ(o.lines[1].graph_id, 40u);
  EXPECT_EQ(o.lines[1].count, 10u);
  EXPECT_DOUBLE_EQ(o.lines[1].p50_us, 120);
  EXPECT_DOUBLE_EQ(o.lines[1].mean_us, 120);
  EXPECT_EQ(o.lines[2].name, "copy");
  EXPECT_EQ(o.lines[2].cat, "gpu_memcpy");
  // Then the one-shot graphs, tied at 3 us, by graph id.
  EXPECT_EQ(o.lines[3].graph_id, 1u);
  EXPECT_EQ(o.lines[14].graph_id, 12u);
  // Details follow heaviest first.
  ASSERT_EQ(o.graphs.size(), 13u);
  EXPECT_EQ(o.graphs[0].graph_id, 40u);
  EXPECT_TRUE(o.graphs[0].nodes.empty());
  EXPECT_EQ(o.graphs[0].node_count, 2u);
  ComputeGraphRows(trace, 0, o.graphs[0]);
  ASSERT_EQ(o.graphs[0].nodes.size(), 2u);
  EXPECT_EQ(o.graphs[0].nodes[0].name, "gemm");
  EXPECT_NEAR(o.graphs[0].nodes[0].share, 100.0 / 120, 1e-12);
}

TEST(TraceOverview, TopKeepsTheHeaviestGraphsAndLines) {
  GraphNodes trace = Read(Mixed());
  TraceOverview o = ComputeOverview(trace);
  KeepTop(o, 1);
  ASSERT_EQ(o.lines.size(), 1u);
  EXPECT_EQ(o.lines[0].name, "elementwise");
  ASSERT_EQ(o.graphs.size(), 1u);  // the heaviest graph, though eager work outweighs it
  EXPECT_EQ(o.graphs[0].graph_id, 40u);
}

TEST(TraceOverview, EagerNamesPastTheLimitFoldIntoOther) {
  std::vector<Event> events;
  for (int i = 0; i < 5; ++i) {
    events.push_back({"kernel", "k" + std::to_string(i), 10.0 * i, 1.0 + i, i + 1, 0, 0, ""});
  }
  events.push_back({"kernel", "k0", 100, 2, 50, 0, 0, ""});  // a name held: counted there
  events.push_back({"kernel", "g", 200, 1, 60, 3, 0, ""});
  NodeSeriesOptions limits;
  limits.max_eager_names = 2;
  GraphNodes trace = Read(events, limits);
  ASSERT_EQ(trace.eager.size(), 2u);
  // k0: 1 + 2 = 3 us; k1: 2 us. Folded: k2, k3, k4 = 3 + 4 + 5 = 12 us.
  EXPECT_EQ(trace.eager[0].name, "k0");
  EXPECT_DOUBLE_EQ(trace.eager[0].durations.sum, 3);
  EXPECT_EQ(trace.eager_other.count, 3u);
  EXPECT_DOUBLE_EQ(trace.eager_other.sum, 12);
  EXPECT_DOUBLE_EQ(trace.eager_other.max, 5);
  TraceOverview o = ComputeOverview(trace);
  ASSERT_EQ(o.lines.size(), 4u);
  EXPECT_EQ(o.lines[0].kind, OverviewLine::Kind::kEagerOther);
  EXPECT_EQ(o.eager_events, 6u);
}

TEST(TraceOverview, RanksCombineByName) {
  GraphNodes a = Read(Mixed(0));
  GraphNodes b = Read(Mixed(1000));  // another rank: the same graphs under other ids
  TraceOverview o = CombineOverviews({ComputeOverview(a), ComputeOverview(b)});
  EXPECT_DOUBLE_EQ(o.gpu_total_us, 2 * 3243);
  EXPECT_EQ(o.graph_count, 13u);
  ASSERT_EQ(o.lines.size(), 15u);
  EXPECT_EQ(o.lines[0].name, "elementwise");
  EXPECT_EQ(o.lines[0].count, 4000u);
  EXPECT_EQ(o.lines[0].ranks, 2u);
  EXPECT_EQ(o.lines[1].graph_id, 40u);  // the first rank's id
  EXPECT_EQ(o.lines[1].count, 20u);
  EXPECT_DOUBLE_EQ(o.lines[1].total_us, 2400);
  EXPECT_DOUBLE_EQ(o.lines[1].p50_us, 120);
  EXPECT_NEAR(o.lines[1].share, 2400.0 / 6486, 1e-12);
}

TEST(GraphNames, StableAcrossTracesWithOtherGraphIds) {
  GraphNodes a = Read(Mixed(0));
  GraphNodes b = Read(Mixed(1000));
  std::vector<std::pair<uint64_t, std::string>> na = GraphNames(a);
  std::vector<std::pair<uint64_t, std::string>> nb = GraphNames(b);
  ASSERT_EQ(na.size(), 13u);
  ASSERT_EQ(nb.size(), 13u);
  for (size_t i = 0; i < na.size(); ++i) {
    EXPECT_EQ(na[i].first + 1000, nb[i].first);
    EXPECT_EQ(na[i].second, nb[i].second) << "graph " << na[i].first;
  }
  // The heavy graph's nodes share the scope "decode"; the one-shot graphs have none.
  EXPECT_EQ(na.back().second.substr(0, 7), "decode-");
  EXPECT_EQ(na.back().second.size(), 15u);
  EXPECT_EQ(na[0].second.substr(0, 6), "graph-");
  EXPECT_NE(na[0].second, na[1].second);  // tiny_1 and tiny_2 differ
}

TEST(GraphNames, TheSameGraphTwiceIsDisambiguatedInGraphIdOrder) {
  std::vector<Event> events;
  for (uint64_t g : {5, 3, 9}) {  // the same two kernels under three graph ids
    events.push_back(
        {"kernel", "a", 10.0 * static_cast<double>(g), 1, static_cast<int64_t>(g), g, 0, "step"});
    events.push_back({"kernel", "b", 10.0 * static_cast<double>(g) + 1, 1, static_cast<int64_t>(g),
                      g, 1, "step"});
  }
  GraphNodes trace = Read(events);
  std::vector<std::pair<uint64_t, std::string>> names = GraphNames(trace);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].first, 3u);
  const std::string base = names[0].second;
  EXPECT_EQ(base.substr(0, 5), "step-");
  EXPECT_EQ(names[1].second, base + "-2");  // graph 5
  EXPECT_EQ(names[2].second, base + "-3");  // graph 9
  EXPECT_EQ(FindGraph(trace, base + "-2"), std::optional<uint64_t>(5));
  EXPECT_EQ(FindGraph(trace, base), std::optional<uint64_t>(3));
  EXPECT_EQ(FindGraph(trace, "9"), std::optional<uint64_t>(9));
  EXPECT_EQ(FindGraph(trace, "4"), std::nullopt);
  EXPECT_EQ(FindGraph(trace, "step-00000000"), std::nullopt);
  EXPECT_EQ(FindGraph(trace, "99999999999999999999"), std::nullopt);  // past 2^64
  EXPECT_EQ(FindGraph(trace, ""), std::nullopt);
}

}  // namespace
}  // namespace nodescope::analysis
