// Tests of how the writer writes device spans: widened by one nanosecond per nesting level inside
// them, so that viewers nest them after adding ts + dur in doubles (DeviceSpanPads).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "export/chrome_trace_writer.h"
#include "export/chrome_trace_writer_test_support.h"

namespace nodescope {
namespace {

TEST(ChromeTraceWriter, DeviceSpansWidenedOneNanosecondPerLevelInside) {
  std::string json = Write(RangesTrace());
  ExpectNested(json);
  ASSERT_EQ(LinesWith(json, R"("cat":"gpu_user_annotation")").size(), 8u);
  // "forward" on two streams: its kernels' extent (10.000-12.000 and 10.500-11.000) and 1 ns on
  // each side, as kineto widens it.
  EXPECT_EQ(LinesWith(json, R"j("name":"forward","pid":0,"tid":7,"ts":9.999,"dur":2.002,)j"
                            R"j("args":{"External id":2,"widened (ns)":1}})j")
                .size(),
            1u);
  EXPECT_EQ(LinesWith(json, R"("name":"forward","pid":0,"tid":8,"ts":10.499,"dur":0.502,)").size(),
            1u);
  // "step" around "forward" and both replays' capture spans ("capture" > "inner"): 3 ns on
  // stream 7, 2 ns on stream 8 where only "forward" is inside it.
  EXPECT_EQ(LinesWith(json, R"j("name":"step \"1\"\n","pid":0,"tid":7,"ts":9.997,"dur":42.006,)j"
                            R"j("args":{"External id":1,"widened (ns)":3}})j")
                .size(),
            1u);
  EXPECT_EQ(
      LinesWith(json, R"j("name":"step \"1\"\n","pid":0,"tid":8,"ts":10.498,"dur":0.504,)j").size(),
      1u);
  // Capture-time ranges: one span per replay.
  EXPECT_EQ(LinesWith(json, R"j("ts":39.998,"dur":2.004,"args":{"External id":5,)j"
                            R"j("widened (ns)":2,"replay correlation":30}})j")
                .size(),
            1u);
  EXPECT_EQ(LinesWith(json, R"j("ts":49.999,"dur":1.002,"args":{"External id":6,)j"
                            R"j("widened (ns)":1,"replay correlation":31}})j")
                .size(),
            1u);
}

TEST(ChromeTraceWriter, WidenedSpanAtTheEarliestRecordMovesTheBaseBack) {
  Trace t;  // start_ns 0: the earliest record is the base, and the span starts 1 ns before it
  t.ranges.push_back(Range(t, 1, 0, "r", 1, 9000, 9500));
  t.external.push_back(ExternalCorrelation{1, 1, ExternalKind::kUserRange});
  t.gpu.push_back(Kernel(t, "k", 5000, 6000, 1));
  BuildDeviceSpans(t);
  const std::string json = Write(t);
  EXPECT_NE(json.find(R"("baseTimeNanoseconds": 4999,)"), std::string::npos) << json;
  EXPECT_EQ(LinesWith(json, R"("name":"k","pid":0,"tid":7,"ts":0.001,"dur":1.000,)").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("name":"r","pid":0,"tid":7,"ts":0.000,"dur":1.002,)").size(), 1u);
}

// Bounds of the X events on one line each as a viewer computes them: ts and dur parsed from the
// written decimal text as doubles, end = ts + dur in double arithmetic. Keyed by name; only the
// lines that contain `lane` (e.g. `"pid":0,"tid":7,`).
std::map<std::string, std::vector<std::pair<double, double>>> ParsedBounds(const std::string& json,
                                                                           std::string_view lane) {
  std::map<std::string, std::vector<std::pair<double, double>>> out;
  for (const std::string& l : Lines(json)) {
    if (l.find(lane) == std::string::npos) continue;
    const size_t name = l.find(R"("name":")"), ts = l.find(R"("ts":)"), dur = l.find(R"("dur":)");
    if (l.find(R"("ph":"X")") == std::string::npos || ts == std::string::npos ||
        dur == std::string::npos || name == std::string::npos) {
      continue;
    }
    const double begin = std::strtod(l.c_str() + ts + 5, nullptr);
    const double length = std::strtod(l.c_str() + dur + 6, nullptr);
    const size_t name_end = l.find('"', name + 8);
    out[l.substr(name + 8, name_end - name - 8)].emplace_back(begin, begin + length);
  }
  return out;
}

// Three nested ranges whose spans cover exactly the same work on one stream (two kernels), at
// relative times of 0.1 s, 1.7e12 us (an epoch-like base) and 2.19e12 us (just under 2^41 us, the
// bound DeviceSpanPads documents): as parsed back, each span starts strictly before and ends
// strictly after what it contains. Written exactly, the spans and the kernels start and end on
// the same nanosecond, and ts + dur in doubles makes a parent end before its child (speedscope
// then never closes the span).
TEST(ChromeTraceWriter, DeviceSpansContainTheirChildrenAsParsedDoubles) {
  std::mt19937_64 rng(42);
  for (uint64_t magnitude :
       {uint64_t{100000000}, uint64_t{1700000000000000}, uint64_t{2190000000000000}}) {
    int ends_before_child = 0, not_strict = 0;
    for (int i = 0; i < 500; ++i) {
      Trace t;
      t.pid = 1;
      t.start_ns = 1;  // times are written relative to this: ts ~ magnitude / 1000 us
      t.ranges.push_back(Range(t, 1, 0, "outer", 1, 1, 2));
      t.ranges.push_back(Range(t, 2, 1, "mid", 1, 1, 2));
      t.ranges.push_back(Range(t, 3, 2, "inner", 1, 1, 2));
      t.external.push_back(ExternalCorrelation{3, 1, ExternalKind::kUserRange});
      t.external.push_back(ExternalCorrelation{3, 2, ExternalKind::kUserRange});
      const uint64_t a = magnitude + rng() % 1000000000;
      const uint64_t a_end = a + 1 + rng() % 100000, b = a_end + rng() % 3000;
      t.gpu.push_back(Kernel(t, "a", a, a_end, 1));
      t.gpu.push_back(Kernel(t, "b", b, b + 1 + rng() % 1000000, 2));
      BuildDeviceSpans(t);
      const std::string json = Write(t);
      ExpectNested(json);
      auto bounds = ParsedBounds(json, R"("pid":0,"tid":7,)");
      const char* chain[] = {"outer", "mid", "inner", "a", "b"};
      for (int p = 0; p < 3; ++p) {
        ASSERT_EQ(bounds[chain[p]].size(), 1u) << chain[p] << "\n" << json;
        const auto [pb, pe] = bounds[chain[p]][0];
        for (int c = p + 1; c < 5; ++c) {
          for (const auto& [cb, ce] : bounds[chain[c]]) {
            if (pe < ce) ++ends_before_child;
            if (!(pb < cb && ce < pe)) ++not_strict;
          }
        }
      }
    }
    EXPECT_EQ(ends_before_child, 0) << "spans ending before their child at " << magnitude << " ns";
    EXPECT_EQ(not_strict, 0) << "spans not strictly containing their child at " << magnitude
                             << " ns";
  }
}

}  // namespace
}  // namespace nodescope
