// nodescope.Trace's C++ half: load() (one read per file, a file per core), `nodes --diff`
// and `plot` over what it holds.
#include "trace_data.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>
#include <utility>

#include "analysis/stats/node_stats.h"
#include "columns.h"

namespace py = pybind11;

namespace nodescope::python {
namespace {

constexpr uint64_t kOrdinalMask = 0xffffffffULL;

struct FileRead {
  StatusOr<std::vector<analysis::GraphNodes>> nodes = InternalError("not read");
  analysis::AliasReport check;
};

// One file: its nodes per process (as `nodescope nodes`), and its key check (as `nodescope
// check`) from the same events.
FileRead ReadFile(const std::string& path) {
  FileRead out;
  analysis::AliasChecker checker;
  out.nodes = analysis::CollectNodeSeriesPerProcess(path, nullptr, analysis::NodeSeriesOptions{},
                                                    [&checker](const analysis::TraceEvent& e) {
                                                      checker.Add(e);
                                                      return OkStatus();
                                                    });
  if (out.nodes.ok() && !out.nodes->empty()) out.check = checker.Finish(out.nodes->at(0).metadata);
  return out;
}

}  // namespace

void ThrowStatus(const Status& status) {
  py::gil_scoped_acquire gil;
  py::object error = py::module_::import("nodescope._errors")
                         .attr("from_status")(static_cast<int>(status.code()),
                                              StatusCodeName(status.code()), status.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw py::error_already_set();
}

std::shared_ptr<TraceData> TraceData::Load(const std::vector<std::string>& paths) {
  auto data = std::make_shared<TraceData>();
  data->paths_ = paths;
  StatusOr<analysis::RankTraces> ranks = InternalError("not read");
  {
    py::gil_scoped_release release;
    std::vector<FileRead> reads(paths.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < paths.size(); i = next++) reads[i] = ReadFile(paths[i]);
    };
    // As the CLI (LoadRankTraces): a file per thread, as many threads as cores.
    const size_t threads =
        std::min(paths.size(), size_t{std::max(1u, std::thread::hardware_concurrency())});
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    std::vector<StatusOr<std::vector<analysis::GraphNodes>>> loaded;
    for (FileRead& r : reads) {
      loaded.push_back(std::move(r.nodes));
      data->checks_.push_back(std::move(r.check));
    }
    ranks = analysis::AssembleRankTraces(paths, std::move(loaded));
  }
  if (!ranks.ok()) ThrowStatus(ranks.status());
  data->ranks_ = std::move(*ranks);
  return data;
}

std::vector<std::string> TraceData::Warnings() const {
  std::vector<std::string> out;
  for (const analysis::RankInput& in : ranks_.inputs) {
    const analysis::GraphNodes& g = *in.nodes;
    if (g.aliased_nodes > 0) {
      std::string w = in.source;
      w += ": ";
      w += std::to_string(g.aliased_nodes);
      w += " of ";
      w += std::to_string(g.nodes.size());
      w += " node keys are aliased (events of different names on one key), so their figures "
           "mix different nodes; check() counts them, `nodescope check` lists them";
      out.push_back(std::move(w));
    }
  }
  for (size_t f = 0; f < ranks_.files.size() && f < paths_.size(); ++f) {
    const analysis::FileLimits& file = ranks_.files[f];
    if (file.untracked_events > 0) {
      std::string w = paths_[f];
      w += ": ";
      w += std::to_string(file.untracked_events);
      w += " keyed events of nodes past the first ";
      w += std::to_string(file.nodes_held);
      w += " are left out (at most ";
      w += std::to_string(analysis::NodeSeriesOptions::kDefaultMaxNodes);
      w += " distinct nodes are held per file)";
      out.push_back(std::move(w));
    }
    if (file.sampled_nodes > 0) {
      std::string w = paths_[f];
      w += ": more occurrences than the ";
      w += std::to_string(analysis::NodeSeriesOptions::kDefaultMaxSamples);
      w += " held: percentiles, drift and per-replay figures of ";
      w += std::to_string(file.sampled_nodes);
      w += " nodes are estimated from a sample of their graph's replays";
      out.push_back(std::move(w));
    }
  }
  return out;
}

namespace {

// One side's columns of the diff; a missing side: ids -1, replays 0, NaN figures.
struct DiffSide {
  std::vector<int64_t> node, ordinal, replays;
  std::vector<uint32_t> name, scope;
  std::vector<double> mean, total;

  void Add(const std::optional<analysis::NodeSide>& s, StringCodes& strings) {
    node.push_back(s ? static_cast<int64_t>(s->node_id) : -1);
    ordinal.push_back(s ? static_cast<int64_t>(s->node_id & kOrdinalMask) : -1);
    name.push_back(strings.Of(s ? s->name : ""));
    scope.push_back(strings.Of(s ? s->scope : ""));
    replays.push_back(s ? static_cast<int64_t>(s->replays) : 0);
    mean.push_back(s ? s->mean_us : NAN);
    total.push_back(s ? s->total_us : NAN);
  }
  void Into(py::dict& d, const std::string& suffix) {
    d[py::str("node_id" + suffix)] = MoveArray(std::move(node));
    d[py::str("ordinal" + suffix)] = MoveArray(std::move(ordinal));
    d[py::str("name" + suffix)] = MoveArray(std::move(name));
    d[py::str("scope" + suffix)] = MoveArray(std::move(scope));
    d[py::str("replays" + suffix)] = MoveArray(std::move(replays));
    std::string mean_key = "mean";
    mean_key += suffix;
    mean_key += "_us";
    std::string total_key = "total";
    total_key += suffix;
    total_key += "_us";
    d[py::str(mean_key)] = MoveArray(std::move(mean));
    d[py::str(total_key)] = MoveArray(std::move(total));
  }
};

const char* StepKind(const analysis::NodeDiff& n) {
  if (n.fused()) return "fused";
  if (n.a && n.b) return "paired";
  return n.a ? "only_a" : "only_b";
}

}  // namespace

py::dict TraceData::DiffColumns(const TraceData& other) const {
  if (ranks_.inputs.empty() || other.ranks_.inputs.empty()) {
    ThrowStatus(FailedPreconditionError("diff: a trace without graph-keyed work"));
  }
  StringCodes strings;
  std::vector<uint32_t> match, kind;
  std::vector<int64_t> graph_a, graph_b, fused;
  std::vector<double> delta, fraction;
  DiffSide side_a, side_b;
  {
    py::gil_scoped_release release;
    analysis::NodeStatsOptions all;
    all.critical_path = false;  // as `nodes --diff`
    const std::vector<analysis::GraphDiff> graphs =
        analysis::DiffNodeStats(analysis::ComputeNodeStats(*ranks_.inputs[0].nodes, all),
                                analysis::ComputeNodeStats(*other.ranks_.inputs[0].nodes, all));
    auto id = [](const std::optional<uint64_t>& v) { return v ? static_cast<int64_t>(*v) : -1; };
    for (const analysis::GraphDiff& g : graphs) {
      for (const analysis::NodeDiff& n : g.nodes) {
        match.push_back(strings.Of(analysis::GraphMatchName(g.match)));
        kind.push_back(strings.Of(StepKind(n)));
        graph_a.push_back(id(g.graph_a));
        graph_b.push_back(id(g.graph_b));
        // A fusion's side A: its first node, the sum of the fused nodes' means and totals.
        std::optional<analysis::NodeSide> a = n.a;
        if (n.fused()) {
          a = n.fused_a.front();
          a->mean_us = a->total_us = 0;
          for (const analysis::NodeSide& f : n.fused_a) {
            a->mean_us += f.mean_us;
            a->total_us += f.total_us;
          }
        }
        fused.push_back(static_cast<int64_t>(n.fused_a.size()));
        side_a.Add(a, strings);
        side_b.Add(n.b, strings);
        delta.push_back(n.delta_us);
        fraction.push_back(n.delta_fraction);
      }
    }
  }
  py::dict d;
  d["graph_match"] = MoveArray(std::move(match));
  d["graph_id_a"] = MoveArray(std::move(graph_a));
  d["graph_id_b"] = MoveArray(std::move(graph_b));
  d["kind"] = MoveArray(std::move(kind));
  side_a.Into(d, "_a");
  side_b.Into(d, "_b");
  d["delta_us"] = MoveArray(std::move(delta));
  d["delta_fraction"] = MoveArray(std::move(fraction));
  d["fused_a"] = MoveArray(std::move(fused));
  d["strings"] = strings.List();
  return d;
}

py::dict TraceData::Plot(const analysis::PlotOptions& options, bool html) const {
  analysis::PlotOptions plot = options;
  StatusOr<analysis::PlotDocument> picture = InternalError("not drawn");
  {
    py::gil_scoped_release release;
    const auto format = html ? analysis::PlotFormat::kHtml : analysis::PlotFormat::kSvg;
    if (ranks_.inputs.size() > 1) {  // as `nodescope plot` across ranks: one node, a line a rank
      if (options.node_ids.size() != 1) {
        picture = InvalidArgumentError(
            "plot: several ranks: name one node to draw across them (node=ID or its ordinal, "
            "as nodes() lists the first rank's)");
      } else {
        StatusOr<analysis::GraphNodes> across =
            analysis::NodeAcrossRanks(ranks_, options.graph_id, options.node_ids[0]);
        if (across.ok()) {
          plot.graph_id = across->nodes.empty()
                              ? std::nullopt
                              : std::optional<uint64_t>(across->nodes[0].graph_id);
          plot.node_ids.clear();
          picture = analysis::RenderPlot(*across, plot, format);
        } else {
          picture = across.status();
        }
      }
    } else {
      static const analysis::GraphNodes kNone;
      picture = analysis::RenderPlot(ranks_.inputs.empty() ? kNone : *ranks_.inputs[0].nodes, plot,
                                     format);
    }
  }
  if (!picture.ok()) ThrowStatus(picture.status());
  const analysis::PlotOmissions& o = picture->left_out;
  py::dict left_out;
  left_out["graphs"] = o.graphs;
  left_out["graphs_total"] = o.graphs_total;
  left_out["nodes"] = o.nodes;
  left_out["nodes_total"] = o.nodes_total;
  left_out["nodes_cut"] = o.nodes_cut;
  left_out["gpu_us"] = o.gpu_us;
  left_out["gpu_us_total"] = o.gpu_us_total;
  py::dict d;
  d["text"] = py::str(picture->text);
  d["left_out"] = left_out;
  return d;
}

}  // namespace nodescope::python
