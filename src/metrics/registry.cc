#include "metrics/registry.h"

#include <algorithm>

namespace nodescope::metrics {
namespace {

uint64_t NodeRecords(const ProcessFigures& p) {
  uint64_t n = 0;
  for (const NodeFigures& f : p.nodes) n += f.durations.count();
  return n;
}

}  // namespace

void Registry::AssignNew(const ProcessFigures& p) {
  std::vector<const NodeFigures*> fresh;
  for (const NodeFigures& f : p.nodes) {
    NodeKey key{f.graph, f.node, f.kernel, p.rank, f.device};
    if (assigned_.find(key) == assigned_.end()) fresh.push_back(&f);
  }
  std::stable_sort(fresh.begin(), fresh.end(), [](const NodeFigures* a, const NodeFigures* b) {
    return a->durations.sum > b->durations.sum;  // GPU time, largest first
  });
  for (const NodeFigures* f : fresh) {
    const bool own = own_series_ < max_node_series_;
    assigned_.emplace(NodeKey{f->graph, f->node, f->kernel, p.rank, f->device}, own);
    if (own) {
      ++own_series_;
    } else {
      ++folded_;
    }
  }
}

void Registry::Update(ProcessFigures figures, double now_unix_s) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = processes_.find(figures.pid);
  if (it != processes_.end()) {
    if (NodeRecords(figures) < NodeRecords(it->second) ||
        figures.replays_seen < it->second.replays_seen) {
      ++it->second.updates;  // stale or shrunk: keep what was served
      return;
    }
    figures.updates = it->second.updates + 1;
  } else {
    figures.updates = 1;
  }
  figures.updated_unix_s = now_unix_s;
  AssignNew(figures);
  processes_[figures.pid] = std::move(figures);
}

size_t Registry::node_series() const {
  std::lock_guard<std::mutex> lock(mu_);
  return own_series_;
}
uint64_t Registry::folded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return folded_;
}

std::string Registry::Render(bool openmetrics) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::vector<double>& bounds = DurationBuckets();
  // Per-node series (own or "other"), summed over processes; every series ever assigned is
  // written, with zeros where no process holds it now.
  std::map<NodeKey, HistogramValues> nodes;
  for (const auto& [key, own] : assigned_) {
    const auto& [graph, node, kernel, rank, device] = key;
    NodeKey series = own ? key : NodeKey{graph, UINT32_MAX, "other", rank, device};
    HistogramValues& h = nodes[series];
    if (h.buckets.empty()) h.buckets.assign(bounds.size() + 1, 0);
  }
  std::map<std::tuple<std::string, std::string, std::string>, HistogramValues> graphs;
  for (const auto& [pid, p] : processes_) {
    for (const NodeFigures& f : p.nodes) {
      NodeKey key{f.graph, f.node, f.kernel, p.rank, f.device};
      auto a = assigned_.find(key);
      if (a == assigned_.end()) continue;
      NodeKey series = a->second ? key : NodeKey{f.graph, UINT32_MAX, "other", p.rank, f.device};
      nodes[series].Add(f.durations);
    }
    for (const GraphFigures& g : p.graphs) {
      HistogramValues& h = graphs[{g.graph, p.rank, g.device}];
      if (h.buckets.empty()) h.buckets.assign(bounds.size() + 1, 0);
      h.Add(g.replays);
    }
  }
  ExpositionWriter w(openmetrics);
  w.Family("nodescope_node_duration_seconds", "histogram",
           "Device time of each graph node's kernel, copy or fill, per replay kept. graph: the "
           "graph's stable name; node: its ordinal (\"other\": nodes past the series limit).");
  for (const auto& [key, h] : nodes) {
    const auto& [graph, node, kernel, rank, device] = key;
    w.Histogram("nodescope_node_duration_seconds",
                {{"graph", graph},
                 {"node", node == UINT32_MAX ? std::string("other") : std::to_string(node)},
                 {"kernel", kernel},
                 {"rank", rank},
                 {"device", device}},
                bounds, h);
  }
  w.Family("nodescope_graph_replay_duration_seconds", "histogram",
           "Device time of each graph replay kept: its first node's start to its last node's end.");
  for (const auto& [key, h] : graphs) {
    const auto& [graph, rank, device] = key;
    w.Histogram("nodescope_graph_replay_duration_seconds",
                {{"graph", graph}, {"rank", rank}, {"device", device}}, bounds, h);
  }
  w.Family("nodescope_graph_replays_seen_total", "counter",
           "Graph launches the traced process made, sampled or not.");
  for (const auto& [pid, p] : processes_) {
    w.Sample("nodescope_graph_replays_seen_total", {{"rank", p.rank}, {"pid", std::to_string(pid)}},
             static_cast<double>(p.replays_seen));
  }
  w.Family("nodescope_graph_replays_kept_total", "counter",
           "Graph launches whose device work was traced (all of them unless --sample).");
  for (const auto& [pid, p] : processes_) {
    w.Sample("nodescope_graph_replays_kept_total", {{"rank", p.rank}, {"pid", std::to_string(pid)}},
             static_cast<double>(p.replays_kept));
  }
  w.Family("nodescope_records_dropped_total", "counter",
           "Device records lost before attribution (the vendor's drops, the store full).");
  for (const auto& [pid, p] : processes_) {
    w.Sample("nodescope_records_dropped_total", {{"rank", p.rank}, {"pid", std::to_string(pid)}},
             static_cast<double>(p.dropped));
  }
  w.Family("nodescope_records_withheld_total", "counter",
           "Graph records written without a node key, by the reason the key was withheld.");
  for (const auto& [pid, p] : processes_) {
    for (const auto& [reason, n] : p.withheld) {
      w.Sample("nodescope_records_withheld_total",
               {{"rank", p.rank}, {"pid", std::to_string(pid)}, {"reason", reason}},
               static_cast<double>(n));
    }
  }
  w.Family("nodescope_node_series", "gauge",
           "Per-node duration series with a node of their own (at most the --metrics-series "
           "limit).");
  w.Sample("nodescope_node_series", {}, static_cast<double>(own_series_));
  w.Family("nodescope_node_series_folded", "gauge",
           "Nodes folded into node=\"other\" because the series limit was reached.");
  w.Sample("nodescope_node_series_folded", {}, static_cast<double>(folded_));
  w.Family("nodescope_metrics_updates_total", "counter",
           "Figures received from the traced process (one per interval, and the final trace).");
  for (const auto& [pid, p] : processes_) {
    w.Sample("nodescope_metrics_updates_total", {{"rank", p.rank}, {"pid", std::to_string(pid)}},
             static_cast<double>(p.updates));
  }
  w.Family("nodescope_metrics_last_update_timestamp_seconds", "gauge",
           "When the figures of the traced process were last updated (Unix time).");
  for (const auto& [pid, p] : processes_) {
    w.Sample("nodescope_metrics_last_update_timestamp_seconds",
             {{"rank", p.rank}, {"pid", std::to_string(pid)}}, p.updated_unix_s);
  }
  return w.Take();
}

}  // namespace nodescope::metrics
