// Tests of what a plot draws by weight (issue 30): the graphs with the most GPU time first,
// graphs that ran once in one table, what is left out, a picture of bounded height however many
// graphs; and heat-map colours against each node's own median, so that drift and jitter show.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/plot/plot_svg.h"
#include "analysis/plot/plot_testing.h"

namespace nodescope::analysis {
namespace {

using plot_testing::AttrOf;
using plot_testing::Collect;
using plot_testing::Count;
using plot_testing::Element;
using plot_testing::Elements;
using plot_testing::Event;
using plot_testing::XmlProblem;

PlotDocument Plot(const GraphNodes& nodes, const PlotOptions& options = {}) {
  StatusOr<PlotDocument> plot = RenderPlot(nodes, options, PlotFormat::kSvg);
  EXPECT_TRUE(plot.ok()) << plot.status().ToString();
  if (!plot.ok()) return PlotDocument{};
  EXPECT_EQ(XmlProblem(plot->text), "");
  return std::move(plot).value();
}

double Height(const std::string& svg) { return std::stod(AttrOf(svg, "height")); }

// `one_shots` graphs (ids 1...) that ran once, 3 us each, and graph `heavy` of 4 nodes x 20
// replays of 50 us.
std::vector<std::string> OneShotsAndAHeavyGraph(int one_shots, uint64_t heavy) {
  std::vector<std::string> events;
  for (int g = 1; g <= one_shots; ++g) {
    events.push_back(Event("void one_shot(float*)", static_cast<uint64_t>(g), 0, g, 3));
  }
  for (int replay = 0; replay < 20; ++replay) {
    for (uint64_t node = 0; node < 4; ++node) {
      events.push_back(Event("void heavy(float*)", heavy, node, one_shots + 1 + replay, 50));
    }
  }
  return events;
}

// Before: the first 1024 nodes by id, so with 1100 one-shot graphs the heavy graph was not drawn,
// and each one-shot graph took a panel of ~400 px.
TEST(PlotWeights, TheHeavyGraphIsDrawnFirstAndOneShotsShareATable) {
  const PlotDocument plot = Plot(Collect(OneShotsAndAHeavyGraph(1100, 5000)));
  const std::string& svg = plot.text;
  std::vector<Element> panels = Elements(svg, "<g class=\"ns-panel\"");
  ASSERT_EQ(panels.size(), 1u);
  EXPECT_NE(svg.find(">Graph 5000 <tspan class=\"pd\">\xC2\xB7 4000 \xC2\xB5s (54.8 %) \xC2\xB7 4 "
                     "nodes \xC2\xB7 "
                     "20 replays<"),
            std::string::npos);
  EXPECT_EQ(Count(svg, "<g class=\"ns-one-shots\">"), 1u);
  EXPECT_LT(svg.find("Graph 5000 <tspan"), svg.find("<g class=\"ns-one-shots\">"));
  EXPECT_NE(svg.find(">Graphs that ran once <tspan class=\"pd\">\xC2\xB7 1100 graphs \xC2\xB7 "
                     "3300 \xC2\xB5s (45.2 %)"),
            std::string::npos);
  EXPECT_EQ(Count(svg, "<g class=\"ns-one\">"), 12u);  // PlotOptions::max_one_shot_rows
  EXPECT_NE(svg.find("\xE2\x80\xA6 and 1088 more graphs that ran once, 3264 \xC2\xB5s (44.7 %), "
                     "not drawn"),
            std::string::npos);
  EXPECT_NE(svg.find("(drawn: 55.3 % of the GPU time, 13 of 1101 graphs, heaviest first;"),
            std::string::npos);
  EXPECT_EQ(plot.left_out.graphs, 1088u);
  EXPECT_EQ(plot.left_out.graphs_total, 1101u);
  EXPECT_EQ(plot.left_out.nodes, 1088u);
  EXPECT_EQ(plot.left_out.nodes_cut, 0u);
  EXPECT_DOUBLE_EQ(plot.left_out.gpu_us, 3264);
  EXPECT_DOUBLE_EQ(plot.left_out.gpu_us_total, 7300);
  EXPECT_LE(Height(svg), 1000);
}

// Before: 407 586 px for 3000 one-shot graphs.
TEST(PlotWeights, ThreeThousandGraphsMakeAPictureOfBoundedHeight) {
  const std::string once = Plot(Collect(OneShotsAndAHeavyGraph(3000, 9000))).text;
  EXPECT_LE(Height(once), 1000);
  EXPECT_EQ(Count(once, "<g class=\"ns-panel\""), 1u);

  std::vector<std::string> events;  // 3000 graphs of 2 replays: at most max_graphs panels
  for (int g = 1; g <= 3000; ++g) {
    for (int replay = 0; replay < 2; ++replay) {
      events.push_back(Event("k", static_cast<uint64_t>(g), 0, 2 * g + replay, g % 17 + 1));
    }
  }
  PlotOptions options;
  const PlotDocument twice = Plot(Collect(events), options);
  EXPECT_EQ(Count(twice.text, "<g class=\"ns-panel\""), options.max_graphs);
  EXPECT_LE(Height(twice.text), 420.0 * static_cast<double>(options.max_graphs));
  EXPECT_EQ(twice.left_out.graphs, 3000 - options.max_graphs);
  // The heaviest (17 us a replay: g % 17 == 16) first, by id among equals.
  EXPECT_NE(twice.text.find(">Graph 16 <tspan"), std::string::npos);
  EXPECT_LT(twice.text.find(">Graph 16 <tspan"), twice.text.find(">Graph 33 <tspan"));
}

TEST(PlotWeights, AGraphThatRanOnceIsAPanelWhenAloneOrNamed) {
  std::vector<std::string> events = {Event("a", 1, 0, 0, 1), Event("b", 1, 1, 0, 2)};
  EXPECT_EQ(Count(Plot(Collect(events)).text, "<g class=\"ns-panel\""), 1u);
  events.push_back(Event("c", 2, 0, 1, 3));
  EXPECT_EQ(Count(Plot(Collect(events)).text, "<g class=\"ns-panel\""), 0u);  // the table
  PlotOptions graph;
  graph.graph_id = 1;
  const std::string named = Plot(Collect(events), graph).text;
  EXPECT_EQ(Count(named, "<g class=\"ns-panel\""), 1u);
  EXPECT_EQ(named.find("ns-one-shots"), std::string::npos);
}

// The fill of each cell run of each heat-map row, "#rrggbb".
std::vector<std::vector<std::string>> RowFills(const std::string& svg) {
  std::vector<std::vector<std::string>> out;
  for (const Element& row : Elements(svg, "<g class=\"ns-row\"")) {
    size_t start = svg.find(row.tag);
    std::string body = svg.substr(start, row.end - start);
    out.emplace_back();
    for (const Element& rect : Elements(body, "<rect "))
      out.back().push_back(AttrOf(rect.tag, "fill"));
  }
  return out;
}

int Channel(const std::string& hex, int i) {
  return std::stoi(hex.substr(1 + 2 * static_cast<size_t>(i), 2), nullptr, 16);
}

// Before: a log scale of absolute microseconds over all rows, so +78 % in a 500 us node beside a
// 2 us one moved its colour by a tenth of the scale.
TEST(PlotWeights, HeatMapColoursEachRowAgainstItsMedian) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 100; ++replay) {
    events.push_back(Event("void tiny(float*)", 3, 0, replay, 2));
    events.push_back(Event("void big(float*)", 3, 1, replay, replay >= 70 ? 890 : 500));
  }
  PlotOptions heat;
  heat.heatmap = true;
  const std::string svg = Plot(Collect(events), heat).text;
  std::vector<std::vector<std::string>> fills = RowFills(svg);
  ASSERT_EQ(fills.size(), 2u);
  EXPECT_EQ(fills[0], std::vector<std::string>{"#f7f7f7"});  // steady: one pale run
  ASSERT_EQ(fills[1].size(), 2u);                            // the drift: two runs
  EXPECT_EQ(fills[1][0], "#f7f7f7");
  EXPECT_GT(Channel(fills[1][1], 0) - Channel(fills[1][1], 2), 100) << fills[1][1];  // red
  EXPECT_NE(svg.find("data-m=\"500\""), std::string::npos);  // the median, for the tooltip
  EXPECT_NE(svg.find(" text-anchor=\"end\">500 \xC2\xB5s</text>"), std::string::npos);
  for (const char* label : {">+100 %<", ">+50 %<", ">median<",
                            ">\xE2\x88\x92"
                            "50 %<",
                            ">each cell vs.<", ">its row's median<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
}

TEST(PlotWeights, JitterShowsBothWaysWithoutDrift) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 40; ++replay) {
    events.push_back(Event("void jittery(float*)", 3, 0, replay, 95 + 5 * (replay % 3)));
  }
  PlotOptions heat;
  heat.heatmap = true;
  const std::string svg = Plot(Collect(events), heat).text;
  std::vector<std::vector<std::string>> fills = RowFills(svg);
  ASSERT_EQ(fills.size(), 1u);
  int warm = 0, cool = 0;
  for (const std::string& f : fills[0]) {
    warm += Channel(f, 0) > Channel(f, 2) + 30 ? 1 : 0;
    cool += Channel(f, 2) > Channel(f, 0) + 30 ? 1 : 0;
  }
  EXPECT_GE(warm, 10);  // the scale narrows to +-10 %: 5 % is half of it
  EXPECT_GE(cool, 10);
  EXPECT_NE(svg.find(">+10 %<"), std::string::npos);
}

}  // namespace
}  // namespace nodescope::analysis
