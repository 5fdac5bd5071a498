#include "tables.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analysis/stats/gpu_activity.h"
#include "analysis/stats/node_stats.h"
#include "analysis/stats/rank_traces.h"
#include "analysis/stats/trace_overview.h"

namespace py = pybind11;

namespace nodescope::python {
namespace {

constexpr uint64_t kOrdinalMask = 0xffffffffULL;

template <typename T>
py::array_t<T> Array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// The column itself, moved into the array's owner: no copy.
template <typename T>
py::array_t<T> MoveArray(std::vector<T>&& v) {
  auto* held = new std::vector<T>(std::move(v));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(held->size()), held->data(), owner);
}

// Columns filled row by row: numbers in vectors, text in lists.
class Columns {
 public:
  void Num(const char* key, double v) { nums_[key].push_back(v); }
  void Int(const char* key, int64_t v) { ints_[key].push_back(v); }
  void Text(const char* key, std::string_view v) { texts_[key].push_back(std::string(v)); }
  void Bool(const char* key, bool v) { bools_[key].push_back(v); }
  py::dict Dict() const {
    py::dict d;
    for (const auto& [k, v] : nums_) d[py::str(k)] = Array(v);
    for (const auto& [k, v] : ints_) d[py::str(k)] = Array(v);
    for (const auto& [k, v] : texts_) d[py::str(k)] = py::cast(v);
    for (const auto& [k, v] : bools_) d[py::str(k)] = py::cast(v);
    return d;
  }

 private:
  std::unordered_map<std::string, std::vector<double>> nums_;
  std::unordered_map<std::string, std::vector<int64_t>> ints_;
  std::unordered_map<std::string, std::vector<std::string>> texts_;
  std::unordered_map<std::string, std::vector<bool>> bools_;
};

analysis::RankTraces Load(const std::vector<std::string>& paths) {
  StatusOr<analysis::RankTraces> traces = [&] {
    py::gil_scoped_release release;
    return analysis::LoadRankTraces(paths, analysis::NodeSeriesOptions{});
  }();
  if (!traces.ok()) ThrowStatus(traces.status());
  return std::move(traces).value();
}

void NodeRow(Columns& c, const analysis::RankInput& in, const analysis::GraphStats& g,
             const std::string& graph_name, const analysis::NodeStats& n) {
  c.Int("rank", in.rank);
  c.Text("source", in.source);
  c.Int("graph_id", static_cast<int64_t>(g.graph_id));
  c.Text("graph", graph_name);
  c.Int("node_id", static_cast<int64_t>(n.node_id));
  c.Int("ordinal", static_cast<int64_t>(n.node_id & kOrdinalMask));
  c.Text("name", n.name);
  c.Text("cat", n.cat);
  c.Text("scope", n.scope);
  c.Int("replays", static_cast<int64_t>(n.replays));
  c.Int("samples", static_cast<int64_t>(n.samples));
  c.Num("total_us", n.total_us);
  c.Num("mean_us", n.mean_us);
  c.Num("p50_us", n.p50_us);
  c.Num("p95_us", n.p95_us);
  c.Num("p99_us", n.p99_us);
  c.Num("max_us", n.max_us);
  c.Num("min_us", n.min_us);
  c.Num("stddev_us", n.stddev_us);
  c.Num("drift", n.drift);
  c.Num("share", n.share);
  const auto& cp = n.critical_path;
  c.Num("critical_path_share", cp ? cp->share : NAN);
  c.Num("slack_p50_us", cp ? cp->slack_p50_us : NAN);
  c.Num("slack_min_us", cp ? cp->slack_min_us : NAN);
  c.Num("whatif_span_p50_us", cp ? cp->whatif_span_p50_us : NAN);
  c.Num("whatif_gain_us", cp ? cp->gain_us : NAN);
}

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

}  // namespace

py::dict NodeColumns(const std::vector<std::string>& paths) {
  const analysis::RankTraces traces = Load(paths);
  Columns c;
  for (const analysis::RankInput& in : traces.inputs) {
    std::vector<analysis::GraphStats> graphs;
    std::vector<std::pair<uint64_t, std::string>> names;
    {
      py::gil_scoped_release release;
      graphs = analysis::ComputeNodeStats(*in.nodes);
      names = analysis::GraphNames(*in.nodes);
    }
    std::unordered_map<uint64_t, std::string> name_of(names.begin(), names.end());
    for (const analysis::GraphStats& g : graphs) {
      for (const analysis::NodeStats& n : g.nodes) NodeRow(c, in, g, name_of[g.graph_id], n);
    }
  }
  return c.Dict();
}

py::dict OverviewColumns(const std::vector<std::string>& paths) {
  const analysis::RankTraces traces = Load(paths);
  Columns c;
  for (const analysis::RankInput& in : traces.inputs) {
    analysis::TraceOverview o;
    {
      py::gil_scoped_release release;
      o = analysis::ComputeOverview(*in.nodes);
    }
    for (const analysis::OverviewLine& l : o.lines) {
      c.Int("rank", in.rank);
      c.Text("source", in.source);
      c.Text("kind", LineKind(l.kind));
      c.Int("graph_id",
            l.kind == analysis::OverviewLine::Kind::kGraph ? static_cast<int64_t>(l.graph_id) : -1);
      c.Text("name", l.name);
      c.Text("cat", l.cat);
      c.Int("count", static_cast<int64_t>(l.count));
      c.Num("total_us", l.total_us);
      c.Num("share", l.share);
      c.Num("mean_us", l.mean_us);
      c.Num("p50_us", l.p50_us);
      c.Num("p99_us", l.p99_us);
      c.Num("max_us", l.max_us);
      c.Int("node_count", static_cast<int64_t>(l.node_count));
      c.Bool("sampled", l.sampled);
    }
  }
  return c.Dict();
}

py::dict KernelColumns(const std::string& path) {
  StatusOr<analysis::GpuActivityTable> read = [&] {
    py::gil_scoped_release release;
    return analysis::CollectGpuActivities(path);
  }();
  if (!read.ok()) ThrowStatus(read.status());
  analysis::GpuActivityTable& t = *read;
  py::dict d;
  d["ts_us"] = MoveArray(std::move(t.ts_us));
  d["dur_us"] = MoveArray(std::move(t.dur_us));
  d["name"] = MoveArray(std::move(t.name));
  d["cat"] = MoveArray(std::move(t.cat));
  d["device"] = MoveArray(std::move(t.device));
  d["stream"] = MoveArray(std::move(t.stream));
  d["correlation"] = MoveArray(std::move(t.correlation));
  d["graph_id"] = MoveArray(std::move(t.graph_id));
  d["node_id"] = MoveArray(std::move(t.node_id));
  d["ordinal"] = MoveArray(std::move(t.ordinal));
  d["rank"] = MoveArray(std::move(t.rank));
  d["scope"] = MoveArray(std::move(t.scope));
  d["strings"] = py::cast(t.strings);
  return d;
}

py::dict CheckReport(const std::string& path) {
  StatusOr<analysis::AliasReport> read = [&] {
    py::gil_scoped_release release;
    return analysis::CheckTraceFile(path);
  }();
  if (!read.ok()) ThrowStatus(read.status());
  const analysis::AliasReport& r = *read;
  py::dict d;
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
  return d;
}

}  // namespace nodescope::python
