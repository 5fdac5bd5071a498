// Test helpers of the plots (plot_svg_test, plot_weights_test): small traces written as JSON
// text, and a reader of the pictures' elements and attributes, with a well-formedness check.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/plot/plot_svg.h"

namespace nodescope::analysis::plot_testing {

// A GPU event of node `ordinal` of graph `graph` in replay `replay`.
inline std::string Event(std::string_view name, uint64_t graph, uint64_t ordinal, int replay,
                         double dur, std::string_view cat = "kernel") {
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

inline std::string Trace(const std::vector<std::string>& events) {
  std::string json = "{\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
  return json + "]}";
}

inline GraphNodes Collect(const std::vector<std::string>& events) {
  StatusOr<GraphNodes> nodes = CollectNodeSeriesFromText("trace.json", Trace(events));
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return nodes.ok() ? std::move(nodes).value() : GraphNodes{};
}

inline std::string Render(const GraphNodes& nodes, const PlotOptions& options = {}) {
  StatusOr<std::string> svg = RenderPlotSvg(nodes, options);
  EXPECT_TRUE(svg.ok()) << svg.status().ToString();
  return svg.ok() ? *svg : "";
}

inline size_t Count(const std::string& text, const std::string& what) {
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
inline std::vector<Element> Elements(const std::string& svg, const std::string& start) {
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
inline std::vector<std::pair<Element, Element>> Pairs(const std::string& svg,
                                                      const std::string& first,
                                                      const std::string& second) {
  std::vector<std::pair<Element, Element>> out;
  for (const Element& e : Elements(svg, first)) {
    if (svg.compare(e.end, second.size(), second) != 0) continue;
    out.emplace_back(e, Elements(svg.substr(e.end, svg.find('\n', e.end) - e.end), second)[0]);
  }
  return out;
}

inline std::string AttrOf(const std::string& tag, const std::string& name) {
  size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  at += name.size() + 3;
  return tag.substr(at, tag.find('"', at) - at);
}

// "x,y x,y ..." of a polyline.
inline std::vector<std::pair<double, double>> Points(const std::string& list) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(list);
  std::string point;
  while (in >> point) {
    size_t comma = point.find(',');
    out.emplace_back(std::stod(point.substr(0, comma)), std::stod(point.substr(comma + 1)));
  }
  return out;
}

inline bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Whether `tag` (between < and >) is a name and name="value" attributes, maybe ending in '/'.
inline bool WellFormedStartTag(const std::string& tag) {
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
inline std::string XmlProblem(const std::string& xml) {
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

}  // namespace nodescope::analysis::plot_testing
