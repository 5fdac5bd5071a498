// Shared by the per-node statistics tests: small traces generated as kineto writes them, read
// back through CollectNodeSeriesFromText.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/stats/node_series.h"

namespace nodescope::analysis::testing {

inline std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

struct Event {
  std::string cat = "kernel";
  std::string name;
  double ts = 0;
  double dur = 0;
  int64_t correlation = 0;
  uint64_t graph = 0;
  uint64_t ordinal = 0;  // node id = graph << 32 | ordinal
  std::string scope;
};

inline std::string Json(const Event& e) {
  std::string s = R"({"ph":"X","cat":")" + e.cat + R"(","name":")" + e.name +
                  R"(","pid":0,"tid":7,"ts":)" + Num(e.ts) + R"(,"dur":)" + Num(e.dur) +
                  R"(,"args":{"correlation":)" + std::to_string(e.correlation);
  if (e.graph != 0) {
    s += R"(,"graph id":)" + std::to_string(e.graph) + R"(,"graph node id":)" +
         std::to_string(e.graph << 32 | e.ordinal);
  }
  if (!e.scope.empty()) s += R"(,"scope":")" + e.scope + "\"";
  return s + "}}";
}

inline std::string Trace(const std::vector<Event>& events) {
  std::string json = R"({"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + Json(events[i]);
  return json + "]}";
}

inline GraphNodes Read(const std::vector<Event>& events, const NodeSeriesOptions& limits = {}) {
  StatusOr<GraphNodes> nodes = CollectNodeSeriesFromText("trace.json", Trace(events), limits);
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return nodes.ok() ? std::move(nodes).value() : GraphNodes{};
}

}  // namespace nodescope::analysis::testing
