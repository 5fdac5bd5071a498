// Grouping keyed GPU events into per-node series, within a bounded number of nodes and of
// occurrences held.
#include "analysis/stats/node_series.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "analysis/stats/event_checks.h"
#include "base/flat_index_map.h"

namespace nodescope::analysis {

void RunningStats::Add(double x) {
  ++count;
  sum += x;
  if (count == 1) {
    min = max = mean = x;
    m2 = 0;
    return;
  }
  min = std::min(min, x);
  max = std::max(max, x);
  const double delta = x - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (x - mean);
}

double RunningStats::PopulationStddev() const {
  return count == 0 ? 0 : std::sqrt(std::max(0.0, m2) / static_cast<double>(count));
}

namespace {

bool IsGpuCat(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

struct NodeKey {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  friend bool operator==(const NodeKey&, const NodeKey&) = default;
};
struct NodeKeyHash {
  uint64_t operator()(const NodeKey& k) const { return MixBits(k.node_id ^ MixBits(k.graph_id)); }
};

// Which replay an occurrence belongs to, as a uniformly spread 64-bit number: every node of one
// replay shares its correlation id, so a graph keeps or drops whole replays. Occurrences without
// a correlation id are spread by their start instead.
uint64_t SampleKey(const NodeSeries& node, const NodeOccurrence& o) {
  if (o.correlation != 0) return MixBits(static_cast<uint64_t>(o.correlation));
  return MixBits(std::bit_cast<uint64_t>(o.start_us) ^ MixBits(node.node_id));
}

// Level L keeps the keys whose top L bits are 0: one replay in 2^L.
bool Kept(uint64_t key, unsigned level) {
  return level == 0 || (level < 64 && (key >> (64 - level)) == 0);
}

struct Grouper {
  explicit Grouper(const NodeSeriesOptions& options) : limits(options) {
    out.limits = options;
    strings = std::make_shared<NamePool>(options.max_name_bytes);
  }

  struct GraphState {
    uint64_t graph_id = 0;
    unsigned level = 0;
    size_t held = 0;                // capacity of its nodes' occurrence vectors
    std::vector<uint32_t> members;  // indices into out.nodes
  };

  NodeSeriesOptions limits;
  GraphNodes out;
  std::shared_ptr<NamePool> strings;
  // (graph id, node id) -> out.nodes[i]. The node id alone is unique only while it carries its
  // graph id, which a trace need not do.
  FlatIndexMap<NodeKey, NodeKeyHash> index;
  FlatIndexMap<uint64_t> graph_index;  // graph id -> graphs[i]
  std::vector<GraphState> graphs;
  std::vector<uint32_t> graph_of;  // out.nodes[i] -> graphs[graph_of[i]]
  size_t held = 0;                 // occurrence slots allocated, all nodes together

  std::optional<std::string_view> Intern(std::string_view s) {
    std::optional<uint32_t> id = strings->Intern(s);
    if (!id) return std::nullopt;
    return strings->Get(*id);
  }

  // A new node for `e`, or kAbsent when the limits leave no room for it.
  uint32_t AddNode(const TraceEvent& e) {
    if (out.nodes.size() >= limits.max_nodes) return FlatIndexMap<NodeKey>::kAbsent;
    std::optional<std::string_view> name = Intern(e.name);
    std::optional<std::string_view> cat = name ? Intern(e.cat) : std::nullopt;
    std::optional<std::string_view> scope = std::string_view();
    if (cat && e.scope) scope = Intern(*e.scope);
    if (!name || !cat || !scope) return FlatIndexMap<NodeKey>::kAbsent;
    NodeSeries s;
    s.graph_id = *e.graph_id;
    s.node_id = *e.graph_node_id;
    s.name = *name;
    s.cat = *cat;
    s.scope = *scope;
    const auto i = static_cast<uint32_t>(out.nodes.size());
    out.nodes.push_back(std::move(s));
    uint32_t g = graph_index.FindOrInsert(*e.graph_id, static_cast<uint32_t>(graphs.size()));
    if (g == graphs.size()) graphs.push_back(GraphState{*e.graph_id, 0, 0, {}});
    graphs[g].members.push_back(i);
    graph_of.push_back(g);
    index.FindOrInsert(NodeKey{*e.graph_id, *e.graph_node_id}, i);
    return i;
  }

  // Keeps one replay in two of graph `g` (all of them dropped at level 64).
  void Halve(GraphState& g) {
    ++g.level;
    for (uint32_t i : g.members) {
      NodeSeries& node = out.nodes[i];
      std::vector<NodeOccurrence>& v = node.occurrences;
      std::erase_if(v, [&](const NodeOccurrence& o) { return !Kept(SampleKey(node, o), g.level); });
      const size_t before = v.capacity();
      v.shrink_to_fit();
      held -= before - v.capacity();
      g.held -= before - v.capacity();
    }
  }

  // Halves the graphs holding the most until a quarter of max_samples is free. False when
  // nothing can be freed.
  bool Evict() {
    std::vector<std::pair<size_t, uint32_t>> heap;  // (held, graph)
    for (uint32_t i = 0; i < graphs.size(); ++i) {
      if (graphs[i].held > 0) heap.emplace_back(graphs[i].held, i);
    }
    std::make_heap(heap.begin(), heap.end());
    const size_t target = limits.max_samples - limits.max_samples / 4;
    bool freed = false;
    while (held > target && !heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      GraphState& g = graphs[heap.back().second];
      heap.pop_back();
      const size_t before = held;
      Halve(g);
      freed = freed || held < before;
      if (g.held > 0 && g.level < 64) {
        heap.emplace_back(g.held, static_cast<uint32_t>(&g - graphs.data()));
        std::push_heap(heap.begin(), heap.end());
      }
    }
    return freed;
  }

  // Appends `o` to node `i` when its replay is in the sample and there is room for it.
  void Hold(uint32_t i, const NodeOccurrence& o) {
    const uint64_t key = SampleKey(out.nodes[i], o);
    for (;;) {
      GraphState& g = graphs[graph_of[i]];
      if (!Kept(key, g.level)) return;
      std::vector<NodeOccurrence>& v = out.nodes[i].occurrences;
      if (v.size() < v.capacity()) break;
      const size_t cap = v.capacity();
      // Doubling, or what is left below the limit.
      const size_t room = held < limits.max_samples ? limits.max_samples - held : 0;
      const size_t grown = std::min(std::max<size_t>(4, cap * 2), cap + room);
      if (grown > cap) {
        v.reserve(grown);
        held += v.capacity() - cap;
        g.held += v.capacity() - cap;
        break;
      }
      if (!Evict()) return;
    }
    out.nodes[i].occurrences.push_back(o);
  }

  Status Visit(const TraceEvent& e) {
    if (e.ph != "X" || !IsGpuCat(e.cat)) return OkStatus();
    ++out.gpu_events;
    if (!e.graph_id || !e.graph_node_id || *e.graph_node_id == 0) return OkStatus();
    ++out.keyed_events;
    RETURN_IF_ERROR(CheckEvent(e));  // what `nodescope check` refuses too
    uint32_t i = index.Find(NodeKey{*e.graph_id, *e.graph_node_id});
    if (i == FlatIndexMap<NodeKey>::kAbsent) i = AddNode(e);
    if (i == FlatIndexMap<NodeKey>::kAbsent) {
      ++out.untracked_events;
      return OkStatus();
    }
    out.nodes[i].durations.Add(*e.dur_us);
    Hold(i, NodeOccurrence{*e.ts_us, *e.dur_us, e.correlation.value_or(0)});
    return OkStatus();
  }

  GraphNodes Finish(TraceMetadata metadata) {
    out.metadata = std::move(metadata);
    for (size_t i = 0; i < out.nodes.size(); ++i) {
      out.nodes[i].sample_level = static_cast<uint8_t>(graphs[graph_of[i]].level);
    }
    graphs.clear();
    graph_of.clear();
    std::sort(out.nodes.begin(), out.nodes.end(), [](const NodeSeries& a, const NodeSeries& b) {
      return a.graph_id != b.graph_id ? a.graph_id < b.graph_id : a.node_id < b.node_id;
    });
    for (NodeSeries& s : out.nodes) {
      if ((s.node_id >> 32) != s.graph_id) ++out.mismatched_nodes;
      std::stable_sort(
          s.occurrences.begin(), s.occurrences.end(),
          [](const NodeOccurrence& a, const NodeOccurrence& b) { return a.start_us < b.start_us; });
    }
    out.strings = std::move(strings);
    return std::move(out);
  }
};

// One Grouper per process slot of a merged trace.
struct PerProcess {
  explicit PerProcess(const NodeSeriesOptions& options) : limits(options) {}

  Status Visit(const TraceEvent& e) {
    RETURN_IF_ERROR(CheckEvent(e));  // also that the slot is below kMaxProcessSlots
    const uint32_t slot = ProcessSlot(e.pid);
    while (groupers.size() <= slot) groupers.push_back(std::make_unique<Grouper>(limits));
    return groupers[slot]->Visit(e);
  }

  std::vector<GraphNodes> Finish(const TraceMetadata& metadata) {
    if (groupers.empty()) groupers.push_back(std::make_unique<Grouper>(limits));
    std::vector<GraphNodes> out;
    for (auto& g : groupers) out.push_back(g->Finish(metadata));
    return out;
  }

  NodeSeriesOptions limits;
  std::vector<std::unique_ptr<Grouper>> groupers;
};

}  // namespace

StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcess(const std::string& path,
                                                              const ProgressFn& progress,
                                                              const NodeSeriesOptions& limits) {
  PerProcess p(limits);
  TraceReadOptions options;
  options.progress = progress;
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceFile(
                       path, [&p](const TraceEvent& e) { return p.Visit(e); }, options));
  return p.Finish(metadata);
}

StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcessFromText(
    std::string_view name, std::string_view json, const NodeSeriesOptions& limits) {
  PerProcess p(limits);
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceText(name, json, [&p](const TraceEvent& e) { return p.Visit(e); }));
  return p.Finish(metadata);
}

StatusOr<GraphNodes> CollectNodeSeries(const std::string& path, const ProgressFn& progress,
                                       const NodeSeriesOptions& limits) {
  Grouper g(limits);
  TraceReadOptions options;
  options.progress = progress;
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceFile(
                       path, [&g](const TraceEvent& e) { return g.Visit(e); }, options));
  return g.Finish(std::move(metadata));
}

StatusOr<GraphNodes> CollectNodeSeriesFromText(std::string_view name, std::string_view json,
                                               const NodeSeriesOptions& limits) {
  Grouper g(limits);
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceText(name, json, [&g](const TraceEvent& e) { return g.Visit(e); }));
  return g.Finish(std::move(metadata));
}

}  // namespace nodescope::analysis
