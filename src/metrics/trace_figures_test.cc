#include "metrics/trace_figures.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/stats/node_series.h"
#include "analysis/stats/trace_overview.h"

namespace nodescope::metrics {
namespace {

std::string Fixture(const char* name) { return std::string(NODESCOPE_TESTDATA_DIR) + "/" + name; }

std::map<std::pair<std::string, uint32_t>, uint64_t> Counts(const ProcessFigures& f) {
  std::map<std::pair<std::string, uint32_t>, uint64_t> out;
  for (const NodeFigures& n : f.nodes) out[{n.graph, n.node}] += n.durations.count();
  return out;
}

TEST(TraceFigures, CountsAndNamesAreThoseOfNodes) {
  const std::string path = Fixture("replays_8x200.json");
  StatusOr<ProcessFigures> f = FiguresFromTrace(path, 42);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  StatusOr<analysis::GraphNodes> gn = analysis::CollectNodeSeries(path);
  ASSERT_TRUE(gn.ok());
  std::map<uint64_t, std::string> names;
  for (auto& [id, name] : analysis::GraphNames(*gn)) names[id] = name;
  ASSERT_EQ(f->nodes.size(), gn->nodes.size());
  uint64_t total = 0;
  for (size_t i = 0; i < gn->nodes.size(); ++i) {
    const analysis::NodeSeries& n = gn->nodes[i];
    const NodeFigures& m = f->nodes[i];
    EXPECT_EQ(m.graph, names[n.graph_id]);
    EXPECT_EQ(m.node, static_cast<uint32_t>(n.node_id & 0xffffffffu));
    EXPECT_EQ(m.durations.count(), n.count());
    EXPECT_NEAR(m.durations.sum, n.durations.sum * 1e-6, 1e-9);
    EXPECT_LE(m.kernel.size(), 3 * kKernelLabelChars);  // 60 code points
    EXPECT_EQ(m.device, "0");
    total += m.durations.count();
  }
  EXPECT_GT(total, 0u);
  uint64_t replays = 0;
  for (const GraphFigures& g : f->graphs) replays += g.replays.count();
  EXPECT_EQ(replays, f->replays_kept);
  EXPECT_GT(replays, 0u);
}

TEST(TraceFigures, IntervalsPartitionTheRecords) {
  const std::string path = Fixture("replays_8x200.json");
  StatusOr<ProcessFigures> all = FiguresFromTrace(path, 1);
  ASSERT_TRUE(all.ok());
  // baseTimeNanoseconds is 1.7e18; split the records at a few points and add the parts back.
  const uint64_t base = 1700000000000000000;
  ProcessFigures sum;
  uint64_t from = 0;
  for (uint64_t to : {base + uint64_t{20000000}, base + uint64_t{50000000}, uint64_t{UINT64_MAX}}) {
    StatusOr<ProcessFigures> part = FiguresFromTrace(path, 1, Interval{from, to});
    ASSERT_TRUE(part.ok());
    AddFigures(&sum, *part);
    from = to;
  }
  EXPECT_EQ(Counts(sum), Counts(*all));
  uint64_t replays = 0;
  for (const GraphFigures& g : sum.graphs) replays += g.replays.count();
  EXPECT_EQ(replays, all->replays_kept);
  EXPECT_EQ(sum.replays_kept, all->replays_kept);
}

}  // namespace
}  // namespace nodescope::metrics
