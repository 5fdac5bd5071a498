// RecordFigures (from a session's records) against FiguresFromText (the analysis library reading
// the trace the same records are written as): the same series, counts and buckets.
#include "metrics/record_figures.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include "export/chrome_trace_writer.h"
#include "export/json_output.h"
#include "metrics/figures_text.h"
#include "metrics/trace_figures.h"

namespace nodescope::metrics {
namespace {

constexpr uint64_t kBase = 1700000000000000000ull;

// Two graphs replayed `replays` times each: graph 3 captured under "serve/decode" (a kernel, a
// copy, a mangled kernel; a DAG), graph 5 without a scope (two kernels, a fill), on device 1.
// Durations cross bucket bounds (1 us, 2 us, 5 us, ...) and land on some exactly.
Trace MakeTrace(int replays) {
  Trace t;
  t.pid = 77;
  t.start_ns = kBase;
  t.job.rank = 3;
  t.sampling.every = 4;
  t.sampling.graph_launches = static_cast<uint64_t>(replays) * 2 * 4 + 1;
  t.drops.vendor_dropped = 2;
  t.attribution.mode = "native";
  t.attribution.withheld = {{"exec_changed", 5}};
  UserRange outer{};
  outer.id = 10;
  outer.name = t.strings.Intern("serve");
  outer.start_ns = kBase;
  outer.end_ns = kBase + 1000;
  outer.pid = 77;
  outer.tid = 77;
  outer.end_tid = 77;
  UserRange inner = outer;
  inner.id = 11;
  inner.parent_id = 10;
  inner.name = t.strings.Intern("decode");
  t.ranges.push_back(outer);
  t.ranges.push_back(inner);
  auto dag = std::make_shared<GraphDag>();
  dag->graph_id = 3;
  dag->device = 0;
  for (uint64_t o = 0; o < 3; ++o) dag->nodes.push_back({(uint64_t{3} << 32) | o});
  dag->edges.push_back({(uint64_t{3} << 32) | 0, (uint64_t{3} << 32) | 1});
  dag->edges.push_back({(uint64_t{3} << 32) | 1, (uint64_t{3} << 32) | 2});
  t.graph_dags.push_back(dag);
  std::mt19937_64 rng(7);
  const uint64_t durations[] = {1000, 2000, 999, 1001, 5000, 123456, 20000000};
  uint64_t now = kBase + 10000;
  uint32_t corr = 100;
  for (int r = 0; r < replays; ++r) {
    for (uint32_t graph : {3u, 5u}) {
      ++corr;
      for (uint32_t ordinal = 0; ordinal < 3; ++ordinal) {
        GpuActivity a{};
        a.graph_id = graph;
        a.graph_node_id = (uint64_t{graph} << 32) | ordinal;
        a.correlation_id = corr;
        a.device = graph == 3 ? 0 : 1;
        a.stream = 7;
        const uint64_t d = durations[rng() % 7] + rng() % 3;
        a.start_ns = now;
        a.end_ns = now + d;
        now += d + 500;
        if (graph == 3) {
          a.capture_range_id = 11;
          if (ordinal == 1) {
            a.kind = ActivityKind::kMemcpy;
            a.copy.bytes = 4096;
            a.copy.direction = CopyDirection::kHtoD;
            a.copy.src_kind = MemoryKind::kPinned;
            a.copy.dst_kind = MemoryKind::kDevice;
          } else {
            a.kind = ActivityKind::kKernel;
            a.kernel.name = t.strings.Intern(ordinal == 0 ? "_Z6matmulPfS_i" : "softmax_kernel");
          }
        } else if (ordinal == 2) {
          a.kind = ActivityKind::kMemset;
          a.fill.bytes = 64;
          a.fill.memory_kind = MemoryKind::kDevice;
        } else {
          a.kind = ActivityKind::kKernel;
          a.kernel.name = t.strings.Intern(ordinal == 0 ? "gelu" : "layernorm");
        }
        t.gpu.push_back(a);
      }
    }
  }
  t.end_ns = now + 1000;
  return t;
}

using NodeKey = std::tuple<std::string, uint32_t, std::string, std::string>;
std::map<NodeKey, HistogramValues> ByNode(const ProcessFigures& f) {
  std::map<NodeKey, HistogramValues> out;
  for (const NodeFigures& n : f.nodes) out[{n.graph, n.node, n.kernel, n.device}] = n.durations;
  return out;
}
std::map<std::pair<std::string, std::string>, HistogramValues> ByGraph(const ProcessFigures& f) {
  std::map<std::pair<std::string, std::string>, HistogramValues> out;
  for (const GraphFigures& g : f.graphs) out[{g.graph, g.device}] = g.replays;
  return out;
}

void ExpectSame(const ProcessFigures& live, const ProcessFigures& read) {
  const auto a = ByNode(live);
  const auto b = ByNode(read);
  ASSERT_EQ(a.size(), b.size());
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    EXPECT_EQ(i->first, j->first);
    EXPECT_EQ(i->second.buckets, j->second.buckets) << std::get<0>(i->first);
    EXPECT_NEAR(i->second.sum, j->second.sum, 1e-9);
  }
  const auto g = ByGraph(live);
  const auto h = ByGraph(read);
  ASSERT_EQ(g.size(), h.size());
  for (auto i = g.begin(), j = h.begin(); i != g.end(); ++i, ++j) {
    EXPECT_EQ(i->first, j->first);
    EXPECT_EQ(i->second.buckets, j->second.buckets);
  }
  EXPECT_EQ(live.rank, read.rank);
  EXPECT_EQ(live.replays_kept, read.replays_kept);
  EXPECT_EQ(live.replays_seen, read.replays_seen);
  EXPECT_EQ(live.dropped, read.dropped);
  EXPECT_EQ(live.withheld, read.withheld);
}

ProcessFigures Read(const Trace& t) {
  StringJsonOutput json;
  EXPECT_TRUE(WriteChromeTrace(t, json).ok());
  StatusOr<ProcessFigures> read = FiguresFromText(json.str(), 77);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? *read : ProcessFigures{};
}

TEST(RecordFigures, AllAtOnceEqualsTheTraceRead) {
  const Trace t = MakeTrace(200);
  RecordFigures live;
  live.Add(t);
  live.CloseReplays(UINT64_MAX);
  const ProcessFigures read = Read(t);
  ExpectSame(live.Figures(77), read);
  // The names are the stable ones: the scope, the DAG-less graph named "graph-...".
  std::map<std::string, int> graphs;
  for (const NodeFigures& n : read.nodes) ++graphs[n.graph];
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(graphs.begin()->first.rfind("graph-", 0), 0u);
  EXPECT_EQ(graphs.rbegin()->first.rfind("serve.decode-", 0), 0u);
  EXPECT_EQ(live.open_replays(), 0u);
}

// The records of `t` that ended in (from, to], with what Add() needs besides.
Trace Ended(const Trace& t, uint64_t from, uint64_t to) {
  Trace out;
  out.pid = t.pid;
  out.start_ns = t.start_ns;
  out.end_ns = t.end_ns;
  out.job = t.job;
  out.sampling = t.sampling;
  out.drops = t.drops;
  out.attribution = t.attribution;
  out.strings.AssignFrom(t.strings);
  t.ranges.ForEach([&](const UserRange& r) { out.ranges.push_back(r); });
  out.graph_dags = t.graph_dags;
  t.gpu.ForEach([&](const GpuActivity& a) {
    if (a.end_ns > from && a.end_ns <= to) out.gpu.push_back(a);
  });
  return out;
}

TEST(RecordFigures, IntervalsAddUpToTheWhole) {
  const Trace t = MakeTrace(300);
  RecordFigures live;
  uint64_t from = 0;
  const uint64_t span = t.end_ns - kBase;
  for (uint64_t to : {kBase + span / 7, kBase + span / 3, kBase + span / 2, UINT64_MAX}) {
    live.Add(Ended(t, from, to));
    live.CloseReplays(to == UINT64_MAX ? to : to - std::min(to, kReplayCloseNs));
    EXPECT_LE(live.open_replays(), 600u);
    from = to;
  }
  EXPECT_EQ(live.open_replays(), 0u);
  ExpectSame(live.Figures(77), Read(t));
}

// A record counted by a live copy is marked in the session's trace (metrics_fed): the trace at
// exit adds only the others, whatever their end times (CUPTI hands a sampled launch's records
// over after later ones).
TEST(RecordFigures, TheTraceAtExitAddsWhatNoCopyCounted) {
  Trace t = MakeTrace(100);
  RecordFigures live;
  Trace early = Ended(t, 0, 0);  // every second record, as if the others had not come yet
  for (size_t i = 0; i < t.gpu.size(); i += 2) {
    early.gpu.push_back(t.gpu[i]);
    t.gpu[i].metrics_fed = 1;
  }
  live.Add(early);
  live.CloseReplays(kBase);
  live.Add(t);
  live.CloseReplays(UINT64_MAX);
  ExpectSame(live.Figures(77), Read(MakeTrace(100)));
}

// The pipe of `run --metrics` carries the figures as text: they come back the same.
TEST(FiguresText, RoundTrips) {
  const Trace t = MakeTrace(50);
  RecordFigures live;
  live.Add(t);
  live.CloseReplays(UINT64_MAX);
  ProcessFigures f = live.Figures(77);
  f.nodes[0].kernel = "tab\there, newline\nand \\ backslash";
  const std::string text = EncodeFigures(f);
  StatusOr<ProcessFigures> back = DecodeFigures(text, 77);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->nodes[0].kernel, f.nodes[0].kernel);
  EXPECT_EQ(EncodeFigures(*back), text);
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    EXPECT_EQ(back->nodes[i].durations.sum, f.nodes[i].durations.sum);  // exactly
  }
  for (const char* bad : {"seen\t-1\n", "node\tg\t1\tk\t0\t1\t1,2\n", "rank\tx", "what\t1\n",
                          "rank\ta\\q\n", "kept\t1\t2\n"}) {
    EXPECT_FALSE(DecodeFigures(bad, 1).ok()) << bad;
  }
}

TEST(RecordFigures, DurationsAsTheReaderReadsThem) {
  EXPECT_EQ(DurationSeconds(0, 1000), 1e-6);
  EXPECT_EQ(DurationSeconds(0, 1234), 1.234 * 1e-6);
  EXPECT_EQ(DurationSeconds(5, 4), 0.0);
}

}  // namespace
}  // namespace nodescope::metrics
