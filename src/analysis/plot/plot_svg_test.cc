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

namespace nodescope::analysis {
namespace {

// A GPU event of node `ordinal` of graph `graph` in replay `replay`.
std::string Event(std::string_view name, uint64_t graph, uint64_t ordinal, int replay, double dur,
                  std::string_view cat = "kernel") {
  std::string escaped;
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      escaped += buf;
      continue;
    }
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return R"({"ph":"X","cat":")" + std::string(cat) + R"(","name":")" + escaped +
         R"(","pid":0,"tid":7,"ts":)" + std::to_string(1000 * replay + 10 * ordinal) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"correlation":)" +
         std::to_string(replay) + R"(,"graph id":)" + std::to_string(graph) +
         R"(,"graph node id":)" + std::to_string(graph << 32 | ordinal) + "}}";
}

std::string Trace(const std::vector<std::string>& events) {
  std::string json = "{\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
  return json + "]}";
}

GraphNodes Collect(const std::vector<std::string>& events) {
  StatusOr<GraphNodes> nodes = CollectNodeSeriesFromText("trace.json", Trace(events));
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return nodes.ok() ? std::move(nodes).value() : GraphNodes{};
}

std::string Render(const GraphNodes& nodes, const PlotOptions& options = {}) {
  StatusOr<std::string> svg = RenderPlotSvg(nodes, options);
  EXPECT_TRUE(svg.ok()) << svg.status().ToString();
  return svg.ok() ? *svg : "";
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// An element of the picture: its start tag, the text right after it, and where it ends.
struct Element {
  std::string tag;   // "<text class=\"tk\" x=\"1\">"
  std::string text;  // character data up to the next '<'
  size_t end = 0;    // just past the element (its end tag, or the tag when empty)
};

// Every element whose start tag begins with `start` ("<polyline ", "<g class=\"ns-row\"").
std::vector<Element> Elements(const std::string& svg, const std::string& start) {
  std::vector<Element> out;
  for (size_t at = svg.find(start); at != std::string::npos; at = svg.find(start, at + 1)) {
    Element e;
    size_t close = svg.find('>', at);
    e.tag = svg.substr(at, close + 1 - at);
    e.text = svg.substr(close + 1, svg.find('<', close) - close - 1);
    if (e.tag.ends_with("/>")) {
      e.end = close + 1;
    } else {
      std::string name = e.tag.substr(1, e.tag.find_first_of(" >") - 1);
      e.end = svg.find("</" + name + ">", close) + name.size() + 3;
    }
    out.push_back(e);
  }
  return out;
}

// Elements starting with `first` immediately followed by one starting with `second`.
std::vector<std::pair<Element, Element>> Pairs(const std::string& svg, const std::string& first,
                                               const std::string& second) {
  std::vector<std::pair<Element, Element>> out;
  for (const Element& e : Elements(svg, first)) {
    if (svg.compare(e.end, second.size(), second) != 0) continue;
    out.emplace_back(e, Elements(svg.substr(e.end, svg.find('\n', e.end) - e.end), second)[0]);
  }
  return out;
}

std::string AttrOf(const std::string& tag, const std::string& name) {
  size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  at += name.size() + 3;
  return tag.substr(at, tag.find('"', at) - at);
}

// "x,y x,y ..." of a polyline.
std::vector<std::pair<double, double>> Points(const std::string& list) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(list);
  std::string point;
  while (in >> point) {
    size_t comma = point.find(',');
    out.emplace_back(std::stod(point.substr(0, comma)), std::stod(point.substr(comma + 1)));
  }
  return out;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Whether `tag` (between < and >) is a name and name="value" attributes, maybe ending in '/'.
bool WellFormedStartTag(const std::string& tag) {
  size_t i = 0;
  if (tag.empty() || !std::isalpha(static_cast<unsigned char>(tag[0]))) return false;
  while (i < tag.size() && IsNameChar(tag[i])) ++i;
  while (i < tag.size()) {
    size_t spaces = i;
    while (i < tag.size() && std::isspace(static_cast<unsigned char>(tag[i]))) ++i;
    if (i == tag.size() || (tag[i] == '/' && i + 1 == tag.size())) return true;
    if (i == spaces) return false;  // attributes are separated by white space
    size_t name = i;
    while (i < tag.size() && IsNameChar(tag[i])) ++i;
    if (i == name || tag.compare(i, 2, "=\"") != 0) return false;
    size_t close = tag.find('"', i + 2);
    if (close == std::string::npos) return false;
    i = close + 1;
  }
  return true;
}

// A small well-formedness check: balanced tags, quoted attributes, known entities, no stray < or
// &. Returns "" when fine, else what is wrong.
std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  size_t i = 0;
  auto entity_ok = [&](size_t at) {
    for (const char* entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      if (xml.compare(at, std::strlen(entity), entity) == 0) return true;
    }
    size_t digits = at + 2;
    while (digits < xml.size() && std::isdigit(static_cast<unsigned char>(xml[digits]))) ++digits;
    return xml.compare(at, 2, "&#") == 0 && digits > at + 2 && digits < xml.size() &&
           xml[digits] == ';';
  };
  if (xml.starts_with("<?xml")) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    if (xml[i] == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
    if (xml[i] == '>') return "stray > at " + std::to_string(i);  // fine in XML, never ours
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    size_t end = i + 1;
    char quote = 0;
    for (; end < xml.size(); ++end) {
      char c = xml[end];
      if (quote != 0) {
        if (c == quote) quote = 0;
        if (c == '<') return "< inside an attribute at " + std::to_string(end);
        if (c == '&' && !entity_ok(end))
          return "bad entity in an attribute at " + std::to_string(end);
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '<') {
        return "< inside a tag at " + std::to_string(end);
      } else if (c == '>') {
        break;
      }
    }
    if (end == xml.size()) return "unterminated tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.starts_with("/")) {
      std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "unbalanced </" + name + ">";
      open.pop_back();
    } else if (tag.starts_with("!")) {
      // <!DOCTYPE ...>: not in our SVG
      return "unexpected <!";
    } else {
      if (!WellFormedStartTag(tag)) return "malformed tag <" + tag + ">";
      if (!tag.ends_with("/")) open.push_back(tag.substr(0, tag.find_first_of(" \t\n/")));
    }
    i = end + 1;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

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
  EXPECT_NE(svg.find(">Graph 4 <tspan class=\"pd\">· 3 nodes · 10 replays</tspan>"),
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
  EXPECT_NE(svg.find("url(#ns-viridis)"), std::string::npos);  // the colour bar
  EXPECT_NE(svg.find("<linearGradient id=\"ns-viridis\""), std::string::npos);

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

// Memory bounds (issue 9): a picture draws at most max_nodes nodes, and says what it left out.
TEST(PlotSvg, AtMostMaxNodesPerPictureAndSaysSo) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) {
    for (uint64_t graph = 1; graph <= 3; ++graph) {
      for (uint64_t node = 0; node < 2; ++node)
        events.push_back(Event("k", graph, node, replay, 1));
    }
  }
  GraphNodes nodes = Collect(events);
  PlotOptions options;
  options.max_nodes = 3;
  const std::string svg = Render(nodes, options);
  EXPECT_NE(svg.find("Graph 1 <tspan class=\"pd\">\xC2\xB7 2 nodes"), std::string::npos) << svg;
  EXPECT_NE(svg.find("Graph 2 <tspan class=\"pd\">\xC2\xB7 1 of 2 nodes"), std::string::npos);
  EXPECT_EQ(svg.find("Graph 3 <tspan"), std::string::npos);
  EXPECT_NE(svg.find("(1 more graphs not drawn: at most 3 nodes per picture; choose with "
                     "--graph)"),
            std::string::npos);
  EXPECT_EQ(Render(nodes).find("not drawn"), std::string::npos);  // within the default
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
