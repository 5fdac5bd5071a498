#include "metrics/record_figures.h"

#include <algorithm>
#include <string_view>

#include "analysis/stats/kernel_name.h"
#include "attribution/annotations.h"
#include "export/chrome_trace_writer.h"
#include "model/graph_name.h"

namespace nodescope::metrics {
namespace {

// Kernel labels are shortened to this many characters (trace_figures.h says the same).
constexpr size_t kKernelChars = 60;

std::string DeviceLabel(int64_t d) { return d < 0 ? std::string() : std::to_string(d); }

}  // namespace

double DurationSeconds(uint64_t start_ns, uint64_t end_ns) {
  const uint64_t ns = end_ns > start_ns ? end_ns - start_ns : 0;
  return static_cast<double>(ns) / 1000.0 * 1e-6;
}

void RecordFigures::Add(const Trace& trace) {
  const std::vector<double>& bounds = DurationBuckets();
  std::unique_ptr<RangeLinks> links;  // built when a new node has a capture-time range
  for (const auto& dag : trace.graph_dags) {
    if (dag != nullptr && dag->graph_id <= UINT32_MAX) {
      dags_.try_emplace(static_cast<uint32_t>(dag->graph_id), dag);
    }
  }
  trace.gpu.ForEach([&](const GpuActivity& a) {
    if (a.graph_id == 0 || a.kind >= ActivityKind::kCount) return;
    if (a.metrics_fed != 0) return;
    auto [it, fresh] = nodes_.try_emplace({a.graph_id, a.graph_node_id});
    Node& n = it->second;
    if (fresh) {
      n.name = GpuRecordName(trace, a);
      if (a.capture_range_id != 0) {
        if (!links) links = std::make_unique<RangeLinks>(trace);
        n.scope = RangePath(trace, *links, a.capture_range_id);
      }
      n.kernel = analysis::ShortKernelName(n.name, kKernelChars);
      n.device = a.device;
      n.durations.buckets.assign(bounds.size() + 1, 0);
    }
    n.durations.Observe(DurationSeconds(a.start_ns, a.end_ns), bounds);
    auto [r, first] = open_.try_emplace({a.graph_id, a.correlation_id});
    if (first) {
      r->second = {a.start_ns, a.end_ns, static_cast<int64_t>(a.device)};
    } else {
      r->second.start_ns = std::min(r->second.start_ns, a.start_ns);
      r->second.end_ns = std::max(r->second.end_ns, a.end_ns);
    }
  });
  graph_launches_ = std::max<uint64_t>(
      graph_launches_, trace.sampling.every > 1 ? trace.sampling.graph_launches : 0);
  dropped_ = std::max(dropped_, trace.drops.Total());
  for (const auto& [reason, n] : trace.attribution.withheld) {
    auto w = std::find_if(withheld_.begin(), withheld_.end(),
                          [&](const auto& x) { return x.first == reason; });
    if (w == withheld_.end()) {
      withheld_.emplace_back(reason, n);
    } else {
      w->second = std::max(w->second, n);
    }
  }
  if (trace.job.rank >= 0) rank_ = std::to_string(trace.job.rank);
}

bool RecordFigures::NeedsRanges(const Trace& trace) const {
  bool needs = false;
  trace.gpu.ForEach([&](const GpuActivity& a) {
    if (needs || a.graph_id == 0 || a.capture_range_id == 0 || a.metrics_fed != 0) return;
    needs = nodes_.find({a.graph_id, a.graph_node_id}) == nodes_.end();
  });
  return needs;
}

void RecordFigures::CloseReplays(uint64_t until_ns) {
  const std::vector<double>& bounds = DurationBuckets();
  for (auto it = open_.begin(); it != open_.end();) {
    const Replay& r = it->second;
    if (until_ns != UINT64_MAX && r.end_ns > until_ns) {
      ++it;
      continue;
    }
    HistogramValues& h = replays_[{it->first.first, r.device}];
    if (h.buckets.empty()) h.buckets.assign(bounds.size() + 1, 0);
    h.Observe(DurationSeconds(r.start_ns, r.end_ns), bounds);
    closed_.insert(it->first.first);
    ++replays_kept_;
    it = open_.erase(it);
  }
}

ProcessFigures RecordFigures::Figures(uint64_t pid) const {
  ProcessFigures out;
  out.pid = pid;
  out.rank = rank_;
  // Graph names as analysis::GraphNames makes them: nodes by (graph id, node id).
  std::vector<uint32_t> graph_ids;
  std::vector<std::string> names;
  std::vector<GraphNameNode> members;
  std::vector<std::string_view> scopes;
  for (auto begin = nodes_.begin(); begin != nodes_.end();) {
    const uint32_t id = begin->first.first;
    members.clear();
    scopes.clear();
    auto end = begin;
    for (; end != nodes_.end() && end->first.first == id; ++end) {
      members.push_back({static_cast<uint32_t>(end->first.second & 0xffffffffu), end->second.name});
      scopes.push_back(end->second.scope);
    }
    auto dag = dags_.find(id);
    graph_ids.push_back(id);
    names.push_back(
        GraphName(members, dag == dags_.end() ? nullptr : dag->second.get(), CommonScope(scopes)));
    begin = end;
  }
  UniqueGraphNames(names);
  auto name_of = [&](uint32_t id) {
    auto it = std::lower_bound(graph_ids.begin(), graph_ids.end(), id);
    return it != graph_ids.end() && *it == id ? names[it - graph_ids.begin()] : std::to_string(id);
  };
  for (const auto& [key, n] : nodes_) {
    if (closed_.count(key.first) == 0) continue;
    NodeFigures f;
    f.graph = name_of(key.first);
    f.node = static_cast<uint32_t>(key.second & 0xffffffffu);
    f.kernel = n.kernel;
    f.device = DeviceLabel(n.device);
    f.durations = n.durations;
    out.nodes.push_back(std::move(f));
  }
  for (const auto& [key, h] : replays_) {
    GraphFigures g;
    g.graph = name_of(key.first);
    g.device = DeviceLabel(key.second);
    g.replays = h;
    out.graphs.push_back(std::move(g));
  }
  out.replays_kept = replays_kept_;
  out.replays_seen = std::max(replays_kept_, graph_launches_);
  out.dropped = dropped_;
  out.withheld = withheld_;
  return out;
}

}  // namespace nodescope::metrics
