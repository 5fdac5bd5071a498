#include "metrics/registry.h"

#include <gtest/gtest.h>

namespace nodescope::metrics {
namespace {

NodeFigures Node(const std::string& graph, uint32_t node, double seconds, int times) {
  NodeFigures f;
  f.graph = graph;
  f.node = node;
  f.kernel = "k" + std::to_string(node);
  f.device = "0";
  for (int i = 0; i < times; ++i) f.durations.Observe(seconds, DurationBuckets());
  return f;
}

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Registry, FoldsPastTheLimitByGpuTimeAndKeepsSeries) {
  Registry r(/*max_node_series=*/2);
  ProcessFigures p;
  p.pid = 7;
  p.nodes = {Node("g", 0, 1e-5, 1), Node("g", 1, 1e-3, 1), Node("g", 2, 1e-4, 1)};
  r.Update(p, 1);
  EXPECT_EQ(r.node_series(), 2u);
  EXPECT_EQ(r.folded(), 1u);
  std::string text = r.Render();
  // Node 1 (1 ms) and node 2 (100 us) have series; node 0 (10 us) is folded.
  EXPECT_TRUE(Has(text,
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"1\",kernel=\"k1\","
                  "rank=\"\",device=\"0\"} 1"));
  EXPECT_TRUE(Has(text,
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"2\",kernel=\"k2\","
                  "rank=\"\",device=\"0\"} 1"));
  EXPECT_TRUE(Has(text,
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"other\","
                  "kernel=\"other\",rank=\"\",device=\"0\"} 1"));
  EXPECT_TRUE(Has(text, "nodescope_node_series_folded 1"));
  // Later node 0 grows past the others: it stays folded (a series never moves).
  p.nodes = {Node("g", 0, 1e-1, 5), Node("g", 1, 1e-3, 2), Node("g", 2, 1e-4, 2)};
  r.Update(p, 2);
  text = r.Render();
  EXPECT_TRUE(Has(text,
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"other\","
                  "kernel=\"other\",rank=\"\",device=\"0\"} 5"));
  EXPECT_TRUE(Has(text, "nodescope_metrics_updates_total{rank=\"\",pid=\"7\"} 2"));
}

TEST(Registry, NeverGoesBackwards) {
  Registry r;
  ProcessFigures p;
  p.pid = 1;
  p.nodes = {Node("g", 0, 1e-5, 3)};
  r.Update(p, 1);
  p.nodes = {Node("g", 0, 1e-5, 2)};  // fewer: kept as it was
  r.Update(p, 2);
  EXPECT_TRUE(Has(r.Render(),
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"0\","
                  "kernel=\"k0\",rank=\"\",device=\"0\"} 3"));
}

TEST(Registry, SumsProcesses) {
  Registry r;
  ProcessFigures a, b;
  a.pid = 1;
  b.pid = 2;
  a.nodes = {Node("g", 0, 1e-5, 3)};
  b.nodes = {Node("g", 0, 1e-5, 4)};
  r.Update(a, 1);
  r.Update(b, 1);
  EXPECT_TRUE(Has(r.Render(),
                  "nodescope_node_duration_seconds_count{graph=\"g\",node=\"0\","
                  "kernel=\"k0\",rank=\"\",device=\"0\"} 7"));
}

}  // namespace
}  // namespace nodescope::metrics
