// Tests of the SVG / HTML plots, on small traces written as JSON text in the tests.
// Checked: well-formed XML, one polyline per node whose points map back to the durations through
// the axes, escaped names, heat-map rows, stable bytes, selection errors.
#include "analysis/plot/plot_svg.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/plot/plot_testing.h"

namespace nodescope::analysis {
namespace {

using plot_testing::AttrOf;
using plot_testing::Collect;
using plot_testing::Count;
using plot_testing::Element;
using plot_testing::Elements;
using plot_testing::Event;
using plot_testing::Pairs;
using plot_testing::Points;
using plot_testing::Render;
using plot_testing::Trace;
using plot_testing::XmlProblem;

// Durations of node `ordinal` in replay `replay` for the line tests: distinct and uneven.
double Duration(int ordinal, int replay) {
  return 2.0 + 3.0 * ordinal + 0.5 * replay + (replay % 3 == 0 ? 1.25 : 0.0);
}

GraphNodes ThreeNodesTenReplays() {
  std::vector<std::string> events;
  for (int replay = 0; replay < 10; ++replay) {
    for (int ordinal = 0; ordinal < 3; ++ordinal) {
      events.push_back(Event("void step" + std::to_string(ordinal) + "<float>(float*, int)", 4,
                             static_cast<uint64_t>(ordinal), replay, Duration(ordinal, replay)));
    }
  }
  return Collect(events);
}

// A linear map fitted to two (pixel, value) pairs.
struct Axis {
  double p0 = 0, v0 = 0, p1 = 1, v1 = 1;
  double Value(double pixel) const { return v0 + (pixel - p0) * (v1 - v0) / (p1 - p0); }
};

TEST(XmlProblem, CatchesWhatWouldBreakAParser) {
  EXPECT_EQ(XmlProblem("<a b=\"&amp;\"><c/>&#39;&lt;</a>"), "");
  EXPECT_NE(XmlProblem("<a><b></a>"), "");
  EXPECT_NE(XmlProblem("<a>x & y</a>"), "");
  EXPECT_NE(XmlProblem("<a>x < y</a>"), "");
  EXPECT_NE(XmlProblem("<a b=\"<\"></a>"), "");
  EXPECT_NE(XmlProblem("<a b=c></a>"), "");
  EXPECT_NE(XmlProblem("<a>"), "");
}

TEST(PlotSvg, LinesAreWellFormedOnePerNodeAndMapBackToDurations) {
  std::string svg = Render(ThreeNodesTenReplays());
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_EQ(Count(svg, "<polyline "), 3u);
  // Its weight first (one graph: no share), then its size.
  EXPECT_NE(svg.find(">Graph 4 <tspan class=\"pd\">· 232 µs · 3 nodes · 10 replays</tspan>"),
            std::string::npos);
  EXPECT_NE(svg.find(">duration (µs)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">replay (n-th execution of each node)</text>"), std::string::npos);

  // The axes, read from the picture: y gridlines with their labels, x tick marks with theirs.
  auto y_ticks = Pairs(svg, "<line class=\"gr\"", "<text class=\"tk yt\"");
  auto x_ticks = Pairs(svg, "<line class=\"ax\"", "<text class=\"tk\"");
  ASSERT_GE(y_ticks.size(), 2u);
  ASSERT_GE(x_ticks.size(), 2u);
  for (const auto& [tick, label] : x_ticks) {
    EXPECT_EQ(AttrOf(label.tag, "text-anchor"), "middle");
    EXPECT_EQ(AttrOf(tick.tag, "x1"), AttrOf(label.tag, "x"));
  }
  auto axis = [](const std::vector<std::pair<Element, Element>>& ticks, const char* coordinate) {
    return Axis{std::stod(AttrOf(ticks.front().first.tag, coordinate)),
                std::stod(ticks.front().second.text),
                std::stod(AttrOf(ticks.back().first.tag, coordinate)),
                std::stod(ticks.back().second.text)};
  };
  Axis y = axis(y_ticks, "y1");
  Axis x = axis(x_ticks, "x1");
  EXPECT_EQ(y_ticks.front().second.text, "0");
  EXPECT_EQ(x_ticks.back().second.text, "10");

  std::vector<Element> lines = Elements(svg, "<polyline ");
  ASSERT_EQ(lines.size(), 3u);
  for (const Element& line : lines) {
    std::string label = AttrOf(line.tag, "data-label");  // "#1 step1&lt;float&gt;"
    int ordinal = std::stoi(label.substr(1));
    EXPECT_EQ(label,
              "#" + std::to_string(ordinal) + " step" + std::to_string(ordinal) + "&lt;float&gt;");
    auto points = Points(AttrOf(line.tag, "points"));
    ASSERT_EQ(points.size(), 10u);
    for (int replay = 0; replay < 10; ++replay) {
      auto [px, py] = points[static_cast<size_t>(replay)];
      EXPECT_NEAR(x.Value(px), replay + 1, 0.01) << "node " << ordinal;
      // Points are written to 0.1 px; the axis spans about 25 us over 260 px.
      EXPECT_NEAR(y.Value(py), Duration(ordinal, replay), 0.02)
          << "node " << ordinal << " replay " << replay + 1;
    }
  }
}

TEST(PlotSvg, NamesAreEscapedEverywhere) {
  std::string name = "void f<A&B, \"q\", 'c'>(int) \x01\x1b[0m";
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) events.push_back(Event(name, 2, 0, replay, 1.5));
  PlotOptions options;
  options.source = "a<b>&c.json";
  std::string svg = Render(Collect(events), options);
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_EQ(svg.find("A&B"), std::string::npos);
  EXPECT_EQ(svg.find("<A"), std::string::npos);
  EXPECT_NE(svg.find("f&lt;A&amp;B, &quot;q&quot;, &#39;c&#39;&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b&gt;&amp;c.json"), std::string::npos);

  options.heatmap = true;
  std::string heat = Render(Collect(events), options);
  EXPECT_EQ(XmlProblem(heat), "");
  EXPECT_EQ(heat.find("A&B"), std::string::npos);
}

// A name of any length makes a picture of bounded size: tooltips hold at most kMaxNameBytes.
TEST(PlotSvg, AHugeNameIsCappedInTooltips) {
  const std::string huge = "void " + std::string(4 << 20, 'k') + "_tail(float*)";  // 4 MiB
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) {
    events.push_back(Event(huge, 2, 0, replay, 1.5));
    events.push_back(Event("void small(int)", 2, 1, replay, 2.5));
  }
  const GraphNodes nodes = Collect(events);
  for (bool heatmap : {false, true}) {
    PlotOptions options;
    options.heatmap = heatmap;
    const std::string svg = Render(nodes, options);
    EXPECT_EQ(XmlProblem(svg), "");
    EXPECT_LT(svg.size(), 32u << 10) << (heatmap ? "heat map" : "lines");
    EXPECT_NE(svg.find("kkk\xE2\x80\xA6kkk"), std::string::npos);  // the middle cut out
    EXPECT_NE(svg.find("_tail(float*)"), std::string::npos);       // the end kept
    StatusOr<std::string> html = RenderPlotHtml(nodes, options);
    ASSERT_TRUE(html.ok());
    EXPECT_LT(html->size(), 48u << 10);
  }
}

TEST(PlotSvg, ManyNodesMakeAHeatMapWithOneLabelledRowEach) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 30; ++replay) {
    for (uint64_t ordinal = 0; ordinal < 20; ++ordinal) {
      events.push_back(Event("kernel_" + std::to_string(ordinal), 9, ordinal, replay,
                             1.0 + static_cast<double>(ordinal) + 0.1 * replay));
    }
  }
  std::string svg = Render(Collect(events));
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_EQ(Count(svg, "<polyline"), 0u);
  EXPECT_NE(svg.find("data-kind=\"heat\""), std::string::npos);
  EXPECT_EQ(Elements(svg, "<g class=\"ns-row\"").size(), 20u);
  std::set<std::string> labels;
  for (const auto& [ordinal, name] :
       Pairs(svg, "<text class=\"nm\" font-weight=\"bold\"", "<text class=\"nm\"")) {
    EXPECT_EQ("kernel_" + ordinal.text.substr(1), name.text);
    labels.insert(ordinal.text);
  }
  EXPECT_EQ(labels.size(), 20u);
  EXPECT_NE(svg.find("url(#ns-diverging)"), std::string::npos);  // the colour bar
  EXPECT_NE(svg.find("<linearGradient id=\"ns-diverging\""), std::string::npos);

  PlotOptions lines;
  lines.max_lines = 20;
  EXPECT_EQ(Count(Render(Collect(events), lines), "<polyline "), 20u);
}

TEST(PlotSvg, SameInputSameBytes) {
  GraphNodes nodes = ThreeNodesTenReplays();
  EXPECT_EQ(Render(nodes), Render(nodes));
  EXPECT_EQ(Render(nodes), Render(ThreeNodesTenReplays()));
  PlotOptions heat;
  heat.heatmap = true;
  EXPECT_EQ(Render(nodes, heat), Render(ThreeNodesTenReplays(), heat));
}

// Golden files pin the whole picture; after an intended change, regenerate them with
// NODESCOPE_UPDATE_GOLDEN=1 bin/plot_svg_test --gtest_filter='*Golden*' and look at them.
void ExpectGolden(const std::string& actual, const std::string& name) {
  std::string path = std::string(NODESCOPE_TESTDATA_DIR) + "/" + name;
  if (std::getenv("NODESCOPE_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << actual;
  std::ifstream in(path);
  std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (actual != expected) {
    std::string got = ::testing::TempDir() + name;
    std::ofstream(got) << actual;
    ADD_FAILURE() << path << " differs from the output, written to " << got;
  }
}

TEST(PlotSvg, GoldenLinesAndHeatMap) {
  GraphNodes nodes = ThreeNodesTenReplays();
  PlotOptions options;
  options.source = "three_nodes.json";
  ExpectGolden(Render(nodes, options), "plot_lines.golden.svg");
  options.heatmap = true;
  ExpectGolden(Render(nodes, options), "plot_heatmap.golden.svg");
}

TEST(PlotSvg, GraphsStackAndSelectionNarrows) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 4; ++replay) {
    events.push_back(Event("a", 1, 0, replay, 1));
    events.push_back(Event("b", 1, 1, replay, 2));
    events.push_back(Event("Memcpy DtoD (Device -> Device)", 2, 0, replay, 3, "gpu_memcpy"));
  }
  GraphNodes nodes = Collect(events);
  std::string both = Render(nodes);
  EXPECT_EQ(Count(both, "class=\"ns-panel\""), 2u);
  EXPECT_LT(both.find(">Graph 1 <"), both.find(">Graph 2 <"));

  PlotOptions one;
  one.graph_id = 2;
  std::string graph2 = Render(nodes, one);
  EXPECT_EQ(Count(graph2, "class=\"ns-panel\""), 1u);
  EXPECT_NE(graph2.find("Memcpy DtoD (Device -&gt; Device)"), std::string::npos);

  PlotOptions by_id;
  by_id.node_ids = {uint64_t{1} << 32 | 1};
  std::string node_b = Render(nodes, by_id);
  EXPECT_EQ(Count(node_b, "<polyline "), 1u);
  EXPECT_NE(node_b.find("· 1 of 2 nodes · 4 replays"), std::string::npos);

  PlotOptions by_ordinal;
  by_ordinal.graph_id = 1;
  by_ordinal.node_ids = {1};
  EXPECT_EQ(Render(nodes, by_ordinal), node_b);
}

TEST(PlotSvg, SelectionErrorsNameWhatIsMissing) {
  std::vector<std::string> events = {Event("a", 1, 0, 0, 1), Event("b", 2, 0, 0, 1)};
  GraphNodes nodes = Collect(events);
  PlotOptions graph;
  graph.graph_id = 7;
  StatusOr<std::string> svg = RenderPlotSvg(nodes, graph);
  EXPECT_EQ(svg.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(svg.status().message(), "graph 7 is not in the trace; its graphs are 1, 2");

  PlotOptions node;
  node.node_ids = {99};
  EXPECT_EQ(RenderPlotSvg(nodes, node).status().message(), "node 99 is not in the trace");
  node.node_ids = {0};  // #0 is in graphs 1 and 2
  EXPECT_EQ(RenderPlotSvg(nodes, node).status().code(), StatusCode::kInvalidArgument);
  node.graph_id = 2;
  node.node_ids = {uint64_t{1} << 32};
  EXPECT_EQ(RenderPlotSvg(nodes, node).status().message(),
            "node 4294967296 is in graph 1, not in graph 2");

  GraphNodes empty = Collect({R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1})"});
  StatusOr<std::string> none = RenderPlotSvg(empty, {});
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("no GPU event carries both graph keys"),
            std::string::npos);
}

TEST(PlotSvg, ManyReplaysAreBucketedAndOutliersClipped) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 3000; ++replay) {
    events.push_back(Event("steady", 5, 0, replay, replay == 0 ? 900.0 : 10.0 + replay % 7));
  }
  std::string svg = Render(Collect(events));
  EXPECT_EQ(XmlProblem(svg), "");
  std::vector<Element> line = Elements(svg, "<polyline ");
  ASSERT_EQ(line.size(), 1u);
  size_t points = Points(AttrOf(line[0].tag, "points")).size();
  EXPECT_LE(points, 960u / 2);
  EXPECT_GE(points, 300u);
  EXPECT_EQ(Count(svg, "fill-opacity=\"0.18\""), 1u);  // the min-max band
  EXPECT_NE(svg.find("line: mean, band: min–max of ~"), std::string::npos);
  EXPECT_NE(svg.find("▲ 1 value above the axis, up to 900 µs"), std::string::npos);
}

TEST(PlotSvg, UnitFollowsTheDurations) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) events.push_back(Event("tiny", 1, 0, replay, 0.25));
  EXPECT_NE(Render(Collect(events)).find(">duration (ns)</text>"), std::string::npos);
  events.clear();
  for (int replay = 0; replay < 3; ++replay) events.push_back(Event("huge", 1, 0, replay, 25000));
  EXPECT_NE(Render(Collect(events)).find(">duration (ms)</text>"), std::string::npos);
}

TEST(PlotHtml, InlineSvgAndScriptNothingExternal) {
  PlotOptions options;
  options.source = "t<1>.json";
  StatusOr<std::string> html = RenderPlotHtml(ThreeNodesTenReplays(), options);
  ASSERT_TRUE(html.ok());
  EXPECT_TRUE(html->starts_with("<!DOCTYPE html>\n"));
  EXPECT_EQ(html->find("<?xml"), std::string::npos);
  EXPECT_NE(html->find("<title>nodescope plot: t&lt;1&gt;.json</title>"), std::string::npos);
  size_t svg = html->find("<svg "), script = html->find("<script>");
  ASSERT_NE(svg, std::string::npos);
  ASSERT_NE(script, std::string::npos);
  EXPECT_LT(svg, script);
  EXPECT_EQ(XmlProblem(html->substr(svg, html->find("</svg>") + 6 - svg)), "");
  EXPECT_EQ(html->find("src="), std::string::npos);
  EXPECT_EQ(html->find("href="), std::string::npos);
  EXPECT_EQ(html->find("https:"), std::string::npos);
}

// The strict parser of the Python standard library agrees that the output is well-formed.
TEST(PlotSvg, PythonMinidomParsesIt) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  std::string name = "void f<A&B, \"q\">(int) \x01";
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) {
    for (uint64_t ordinal = 0; ordinal < 14; ++ordinal) {
      events.push_back(Event(name, 3, ordinal, replay, 1.0 + static_cast<double>(ordinal)));
    }
  }
  GraphNodes nodes = Collect(events);
  PlotOptions lines;
  lines.max_lines = 14;
  for (const PlotOptions& options : {PlotOptions{}, lines}) {
    std::string path = ::testing::TempDir() + "plot_svg_test_" + std::to_string(getpid()) + ".svg";
    std::ofstream(path) << Render(nodes, options);
    std::string command =
        "python3 -c \"import sys, xml.dom.minidom as m; "
        "assert m.parse(sys.argv[1]).documentElement.tagName == 'svg'\" " +
        path;
    EXPECT_EQ(std::system(command.c_str()), 0);
    std::remove(path.c_str());
  }
}

// Memory bounds (issue 9): a picture draws at most max_nodes nodes, and says what it left out:
// the lightest (issue 30: by GPU time, not by id).
TEST(PlotSvg, AtMostMaxNodesPerPictureAndSaysSo) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) {
    for (uint64_t graph = 1; graph <= 3; ++graph) {
      for (uint64_t node = 0; node < 2; ++node) {  // graph 3 heaviest, its node #1 heavier
        events.push_back(Event("k", graph, node, replay, static_cast<double>(graph + 2 * node)));
      }
    }
  }
  GraphNodes nodes = Collect(events);
  PlotOptions options;
  options.max_nodes = 3;
  StatusOr<PlotDocument> plot = RenderPlot(nodes, options, PlotFormat::kSvg);
  ASSERT_TRUE(plot.ok());
  const std::string& svg = plot->text;
  // Graph 3 (8 per replay, 24 us), graph 2 (6, 18 us): drawn, heaviest first; graph 1 left out.
  EXPECT_NE(svg.find("Graph 3 <tspan class=\"pd\">\xC2\xB7 24 \xC2\xB5s (44.4 %) \xC2\xB7 2 nodes"),
            std::string::npos)
      << svg;
  EXPECT_NE(
      svg.find("Graph 2 <tspan class=\"pd\">\xC2\xB7 18 \xC2\xB5s (33.3 %) \xC2\xB7 1 of 2 nodes "
               "(the heaviest, 66.7 % of its time)"),
      std::string::npos);
  EXPECT_LT(svg.find("Graph 3 <tspan"), svg.find("Graph 2 <tspan"));
  EXPECT_EQ(svg.find("Graph 1 <tspan"), std::string::npos);
  EXPECT_EQ(Count(svg, "data-label=\"#1 k\""), 2u);  // graph 2's heavier node
  EXPECT_EQ(Count(svg, "data-label=\"#0 k\""), 1u);
  EXPECT_NE(svg.find("(drawn: 66.7 % of the GPU time, 2 of 3 graphs, heaviest first; choose with "
                     "--graph, --node)"),
            std::string::npos);
  const PlotOmissions& o = plot->left_out;
  EXPECT_EQ(o.graphs, 1u);
  EXPECT_EQ(o.graphs_total, 3u);
  EXPECT_EQ(o.nodes, 3u);  // graph 1's two, graph 2's #0
  EXPECT_EQ(o.nodes_cut, 1u);
  EXPECT_EQ(o.nodes_total, 6u);
  EXPECT_DOUBLE_EQ(o.gpu_us, 12 + 6);
  EXPECT_DOUBLE_EQ(o.gpu_us_total, 54);

  StatusOr<PlotDocument> all = RenderPlot(nodes, {}, PlotFormat::kSvg);  // within the default
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->text.find("drawn:"), std::string::npos);
  EXPECT_EQ(all->left_out.nodes, 0u);
  EXPECT_EQ(all->left_out.nodes_total, 6u);
}

TEST(PlotSvg, ASampledGraphSaysItsReplaysAreASample) {
  std::vector<std::string> events;
  for (int replay = 1; replay <= 400; ++replay) events.push_back(Event("k", 1, 0, replay, 1));
  NodeSeriesOptions limits;
  limits.max_samples = 64;
  StatusOr<GraphNodes> nodes = CollectNodeSeriesFromText("trace.json", Trace(events), limits);
  ASSERT_TRUE(nodes.ok());
  ASSERT_TRUE(nodes->nodes[0].sampled());
  const std::string svg = Render(*nodes);
  EXPECT_NE(svg.find(" replays drawn: a sample, 1 in "), std::string::npos) << svg.substr(0, 2000);
  EXPECT_EQ(Render(Collect(events)).find("a sample"), std::string::npos);
}

}  // namespace
}  // namespace nodescope::analysis
