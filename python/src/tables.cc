// nodescope.Trace's tables from what load() holds (trace_data.h): nodes(), graphs(), check(),
// the summary of its repr, and kernels(), which reads its file again.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "analysis/stats/gpu_activity.h"
#include "analysis/stats/node_stats.h"
#include "analysis/stats/trace_overview.h"
#include "columns.h"
#include "trace_data.h"

namespace py = pybind11;

namespace nodescope::python {
namespace {

constexpr uint64_t kOrdinalMask = 0xffffffffULL;

struct NodeTable {
  StringCodes strings;
  std::vector<int64_t> rank, graph_id, node_id, ordinal, replays, samples;
  std::vector<uint32_t> source, graph, name, cat, scope;
  std::vector<double> total, mean, p50, p95, p99, max, min, stddev, drift, share;
  std::vector<double> cp_share, slack_p50, slack_min, whatif_span, whatif_gain;

  void Add(const analysis::RankInput& in, uint32_t source_code, uint32_t graph_code,
           const analysis::NodeStats& n) {
    rank.push_back(in.rank);
    source.push_back(source_code);
    graph_id.push_back(static_cast<int64_t>(n.graph_id));
    graph.push_back(graph_code);
    node_id.push_back(static_cast<int64_t>(n.node_id));
    ordinal.push_back(static_cast<int64_t>(n.node_id & kOrdinalMask));
    name.push_back(strings.Of(n.name));
    cat.push_back(strings.Of(n.cat));
    scope.push_back(strings.Of(n.scope));
    replays.push_back(static_cast<int64_t>(n.replays));
    samples.push_back(static_cast<int64_t>(n.samples));
    for (auto [col, v] : {std::pair{&total, n.total_us},
                          {&mean, n.mean_us},
                          {&p50, n.p50_us},
                          {&p95, n.p95_us},
                          {&p99, n.p99_us},
                          {&max, n.max_us},
                          {&min, n.min_us},
                          {&stddev, n.stddev_us},
                          {&drift, n.drift},
                          {&share, n.share}}) {
      col->push_back(v);
    }
    const auto& cp = n.critical_path;
    cp_share.push_back(cp ? cp->share : NAN);
    slack_p50.push_back(cp ? cp->slack_p50_us : NAN);
    slack_min.push_back(cp ? cp->slack_min_us : NAN);
    whatif_span.push_back(cp ? cp->whatif_span_p50_us : NAN);
    whatif_gain.push_back(cp ? cp->gain_us : NAN);
  }

  py::dict Dict() {
    py::dict d;
    d["rank"] = MoveArray(std::move(rank));
    d["source"] = MoveArray(std::move(source));
    d["graph_id"] = MoveArray(std::move(graph_id));
    d["graph"] = MoveArray(std::move(graph));
    d["node_id"] = MoveArray(std::move(node_id));
    d["ordinal"] = MoveArray(std::move(ordinal));
    d["name"] = MoveArray(std::move(name));
    d["cat"] = MoveArray(std::move(cat));
    d["scope"] = MoveArray(std::move(scope));
    d["replays"] = MoveArray(std::move(replays));
    d["samples"] = MoveArray(std::move(samples));
    d["total_us"] = MoveArray(std::move(total));
    d["mean_us"] = MoveArray(std::move(mean));
    d["p50_us"] = MoveArray(std::move(p50));
    d["p95_us"] = MoveArray(std::move(p95));
    d["p99_us"] = MoveArray(std::move(p99));
    d["max_us"] = MoveArray(std::move(max));
    d["min_us"] = MoveArray(std::move(min));
    d["stddev_us"] = MoveArray(std::move(stddev));
    d["drift"] = MoveArray(std::move(drift));
    d["share"] = MoveArray(std::move(share));
    d["critical_path_share"] = MoveArray(std::move(cp_share));
    d["slack_p50_us"] = MoveArray(std::move(slack_p50));
    d["slack_min_us"] = MoveArray(std::move(slack_min));
    d["whatif_span_p50_us"] = MoveArray(std::move(whatif_span));
    d["whatif_gain_us"] = MoveArray(std::move(whatif_gain));
    d["strings"] = strings.List();
    return d;
  }
};

const char* LineKind(analysis::OverviewLine::Kind kind) {
  switch (kind) {
    case analysis::OverviewLine::Kind::kGraph:
      return "graph";
    case analysis::OverviewLine::Kind::kEager:
      return "eager";
    case analysis::OverviewLine::Kind::kEagerOther:
      return "eager_other";
  }
  return "";
}

bool Sampled(const analysis::TraceMetadata& m) { return m.sampling && m.sampling->every > 1; }

}  // namespace

py::dict TraceData::NodeColumns() const {
  NodeTable t;
  {
    py::gil_scoped_release release;
    for (const analysis::RankInput& in : ranks_.inputs) {
      const uint32_t source = t.strings.Of(in.source);
      std::vector<analysis::GraphStats> graphs = analysis::ComputeNodeStats(*in.nodes);
      std::unordered_map<uint64_t, std::string> names;
      for (auto& [id, name] : analysis::GraphNames(*in.nodes)) names[id] = std::move(name);
      for (analysis::GraphStats& g : graphs) {  // by graph id; nodes by ordinal
        std::sort(g.nodes.begin(), g.nodes.end(),
                  [](const analysis::NodeStats& a, const analysis::NodeStats& b) {
                    const uint64_t oa = a.node_id & kOrdinalMask, ob = b.node_id & kOrdinalMask;
                    return oa != ob ? oa < ob : a.node_id < b.node_id;
                  });
        const uint32_t graph = t.strings.Of(names[g.graph_id]);
        for (const analysis::NodeStats& n : g.nodes) t.Add(in, source, graph, n);
      }
    }
  }
  return t.Dict();
}

py::dict TraceData::OverviewColumns() const {
  StringCodes strings;
  std::vector<int64_t> rank, graph_id, count, node_count;
  std::vector<uint32_t> source, kind, name, cat;
  std::vector<double> total, share, mean, p50, p99, max;
  std::vector<uint8_t> sampled;
  for (const analysis::RankInput& in : ranks_.inputs) {
    analysis::TraceOverview o;
    {
      py::gil_scoped_release release;
      o = analysis::ComputeOverview(*in.nodes);
    }
    const uint32_t src = strings.Of(in.source);
    for (const analysis::OverviewLine& l : o.lines) {
      const bool graph = l.kind == analysis::OverviewLine::Kind::kGraph;
      rank.push_back(in.rank);
      source.push_back(src);
      kind.push_back(strings.Of(LineKind(l.kind)));
      graph_id.push_back(graph ? static_cast<int64_t>(l.graph_id) : -1);
      name.push_back(strings.Of(l.name));
      cat.push_back(strings.Of(l.cat));
      count.push_back(static_cast<int64_t>(l.count));
      total.push_back(l.total_us);
      share.push_back(l.share);
      mean.push_back(l.mean_us);
      p50.push_back(l.p50_us);
      p99.push_back(l.p99_us);
      max.push_back(l.max_us);
      node_count.push_back(static_cast<int64_t>(l.node_count));
      sampled.push_back(l.sampled ? 1 : 0);
    }
  }
  py::dict d;
  d["rank"] = MoveArray(std::move(rank));
  d["source"] = MoveArray(std::move(source));
  d["kind"] = MoveArray(std::move(kind));
  d["graph_id"] = MoveArray(std::move(graph_id));
  d["name"] = MoveArray(std::move(name));
  d["cat"] = MoveArray(std::move(cat));
  d["count"] = MoveArray(std::move(count));
  d["total_us"] = MoveArray(std::move(total));
  d["share"] = MoveArray(std::move(share));
  d["mean_us"] = MoveArray(std::move(mean));
  d["p50_us"] = MoveArray(std::move(p50));
  d["p99_us"] = MoveArray(std::move(p99));
  d["max_us"] = MoveArray(std::move(max));
  d["node_count"] = MoveArray(std::move(node_count));
  d["sampled"] = BoolArray(std::move(sampled));
  d["strings"] = strings.List();
  return d;
}

py::list TraceData::CheckReports() const {
  py::list files;
  for (size_t f = 0; f < checks_.size(); ++f) {
    const analysis::AliasReport& r = checks_[f];
    py::dict d;
    d["source"] = paths_[f];
    d["verdict"] = r.verdict();
    d["clean"] = r.clean();
    d["events"] = r.events;
    d["gpu_events"] = r.gpu_events;
    d["kernels"] = r.kernels;
    d["copies"] = r.copies;
    d["fills"] = r.fills;
    d["with_both_keys"] = r.with_both_keys;
    d["zero_keys"] = r.zero_keys;
    d["one_key_only"] = r.one_key_only;
    d["graph_ids"] = r.graph_ids;
    d["node_ids"] = r.node_ids;
    d["keys"] = r.keys;
    d["aliased_keys"] = r.aliased.size();
    d["mismatched_keys"] = r.mismatched.size();
    d["unchecked_events"] = r.unchecked_events;
    d["min_per_node"] = r.min_per_node;
    d["median_per_node"] = r.median_per_node;
    d["max_per_node"] = r.max_per_node;
    d["dropped_total"] = r.dropped_total ? py::cast(*r.dropped_total) : py::none();
    files.append(d);
  }
  return files;
}

py::dict TraceData::Summary() const {
  py::list ranks;
  for (const analysis::RankInput& in : ranks_.inputs) {
    const analysis::GraphNodes& g = *in.nodes;
    size_t graphs = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      graphs += i == 0 || g.nodes[i].graph_id != g.nodes[i - 1].graph_id ? 1 : 0;
    }
    py::dict r;
    r["rank"] = in.rank;
    r["source"] = in.source;
    r["graphs"] = graphs;
    r["nodes"] = g.nodes.size();
    r["gpu_events"] = g.gpu_events;
    r["keyed_events"] = g.keyed_events;
    r["eager_names"] = g.eager.size();
    r["dags"] = g.dags.size();
    r["sampled"] = Sampled(g.metadata);
    ranks.append(r);
  }
  py::dict d;
  d["ranks"] = ranks;
  d["files"] = paths_;
  return d;
}

py::dict KernelColumns(const std::string& path) {
  StatusOr<analysis::GpuActivityTable> read = [&] {
    py::gil_scoped_release release;
    return analysis::CollectGpuActivities(path);
  }();
  if (!read.ok()) ThrowStatus(read.status());
  analysis::GpuActivityTable& t = *read;
  py::dict d;
  d["ts"] = MoveArray(std::move(t.ts_us));
  d["dur"] = MoveArray(std::move(t.dur_us));
  d["name"] = MoveArray(std::move(t.name));
  d["kind"] = MoveArray(std::move(t.kind));
  d["cat"] = MoveArray(std::move(t.cat));
  d["device"] = MoveArray(std::move(t.device));
  d["stream"] = MoveArray(std::move(t.stream));
  d["correlation"] = MoveArray(std::move(t.correlation));
  d["graph_id"] = MoveArray(std::move(t.graph_id));
  d["node_id"] = MoveArray(std::move(t.node_id));
  d["ordinal"] = MoveArray(std::move(t.ordinal));
  d["rank"] = MoveArray(std::move(t.rank));
  d["scope"] = MoveArray(std::move(t.scope));
  d["sampled"] = Sampled(t.metadata);
  d["strings"] = py::cast(t.strings);
  return d;
}

}  // namespace nodescope::python
