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

// A node of one process: graph ids (and so node ids) are per process.
struct NodeKey {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  uint32_t slot = 0;
  friend bool operator==(const NodeKey&, const NodeKey&) = default;
};
struct NodeKeyHash {
  uint64_t operator()(const NodeKey& k) const {
    return MixBits(k.node_id ^ MixBits(k.graph_id ^ (uint64_t{k.slot} << 40)));
  }
};
struct GraphKey {
  uint64_t graph_id = 0;
  uint32_t slot = 0;
  friend bool operator==(const GraphKey&, const GraphKey&) = default;
};
struct GraphKeyHash {
  uint64_t operator()(const GraphKey& k) const { return MixBits(MixBits(k.graph_id) ^ k.slot); }
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

// Groups a whole trace's keyed events: every process of a merged trace together, so the limits
// hold for the trace, whatever its number of processes (one grouper per process held up to the
// limits for each: 156 MB per process of 262144 nodes, 5.9 GB for 32 of them).
struct Grouper {
  // by_process: a node is (process slot, graph id, node id); else (graph id, node id), every
  // event counted as slot 0's.
  Grouper(const NodeSeriesOptions& options, bool by_process)
      : limits(options),
        per_process(by_process),
        strings(std::make_shared<NamePool>(options.max_name_bytes)) {}

  struct GraphState {
    uint32_t slot = 0;
    unsigned level = 0;
    size_t held = 0;                // capacity of its nodes' occurrence vectors
    std::vector<uint32_t> members;  // indices into nodes
  };
  // What GraphNodes counts, per process.
  struct SlotCounts {
    uint64_t gpu_events = 0;
    uint64_t keyed_events = 0;
    uint64_t untracked_events = 0;
    RunningStats eager_other;
  };
  struct Eager {
    uint32_t slot = 0;
    EagerSeries series;
  };

  NodeSeriesOptions limits;
  bool per_process;
  std::shared_ptr<NamePool> strings;
  std::vector<NodeSeries> nodes;  // every process's
  std::vector<SlotCounts> slots;  // one per process slot up to the highest seen
  // (slot, graph id, node id) -> nodes[i]. The node id alone is unique only while it carries
  // its graph id, which a trace need not do.
  FlatIndexMap<NodeKey, NodeKeyHash> index;
  FlatIndexMap<GraphKey, GraphKeyHash> graph_index;  // (slot, graph id) -> graphs[i]
  std::vector<GraphState> graphs;
  std::vector<uint32_t> graph_of;      // nodes[i] -> graphs[graph_of[i]]
  size_t held = 0;                     // occurrence slots allocated, all nodes together
  std::vector<Eager> eager;            // every process's
  FlatIndexMap<uint64_t> eager_index;  // (slot << 32 | name id in `strings`) -> eager[i]

  std::optional<std::string_view> Intern(std::string_view s) {
    std::optional<uint32_t> id = strings->Intern(s);
    if (!id) return std::nullopt;
    return strings->Get(*id);
  }

  // A new node for `e`, or kAbsent when the limits leave no room for it.
  uint32_t AddNode(const TraceEvent& e, uint32_t slot) {
    if (nodes.size() >= limits.max_nodes) return FlatIndexMap<NodeKey>::kAbsent;
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
    const auto i = static_cast<uint32_t>(nodes.size());
    nodes.push_back(std::move(s));
    uint32_t g =
        graph_index.FindOrInsert(GraphKey{*e.graph_id, slot}, static_cast<uint32_t>(graphs.size()));
    if (g == graphs.size()) graphs.push_back(GraphState{slot, 0, 0, {}});
    graphs[g].members.push_back(i);
    graph_of.push_back(g);
    index.FindOrInsert(NodeKey{*e.graph_id, *e.graph_node_id, slot}, i);
    return i;
  }

  // Keeps one replay in two of graph `g` (all of them dropped at level 64).
  void Halve(GraphState& g) {
    ++g.level;
    for (uint32_t i : g.members) {
      NodeSeries& node = nodes[i];
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
    const uint64_t key = SampleKey(nodes[i], o);
    for (;;) {
      GraphState& g = graphs[graph_of[i]];
      if (!Kept(key, g.level)) return;
      std::vector<NodeOccurrence>& v = nodes[i].occurrences;
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
    nodes[i].occurrences.push_back(o);
  }

  // An unkeyed kernel, copy or fill: added to its name's figures (or to the slot's other ones
  // past the limits). Events without a usable duration are not counted.
  void AddEager(const TraceEvent& e, uint32_t slot) {
    if (!e.dur_us || !(*e.dur_us >= 0 && *e.dur_us <= 1e17)) return;
    const bool room = eager.size() < limits.max_eager_names;
    const std::optional<uint32_t> id = room ? strings->Intern(e.name) : strings->Find(e.name);
    uint32_t i = FlatIndexMap<uint64_t>::kAbsent;
    if (id) {
      const uint64_t key = (uint64_t{slot} << 32) | *id;
      i = eager_index.Find(key);
      if (i == FlatIndexMap<uint64_t>::kAbsent && room) {
        if (std::optional<std::string_view> cat = Intern(e.cat)) {
          i = static_cast<uint32_t>(eager.size());
          eager.push_back(Eager{slot, EagerSeries{strings->Get(*id), *cat, {}}});
          eager_index.FindOrInsert(key, i);
        }
      }
    }
    if (i == FlatIndexMap<uint64_t>::kAbsent) {
      slots[slot].eager_other.Add(*e.dur_us);
    } else {
      eager[i].series.durations.Add(*e.dur_us);
    }
  }

  Status Visit(const TraceEvent& e) {
    RETURN_IF_ERROR(CheckEvent(e));  // what `nodescope check` refuses too
    const uint32_t slot = per_process ? ProcessSlot(e.pid) : 0;  // below kMaxProcessSlots
    if (slot >= slots.size()) [[unlikely]] {
      slots.resize(slot + 1);
    }
    if (e.ph != "X" || !IsGpuCat(e.cat)) return OkStatus();
    SlotCounts& counts = slots[slot];
    ++counts.gpu_events;
    if (!IsKeyedGpuEvent(e)) {
      AddEager(e, slot);
      return OkStatus();
    }
    ++counts.keyed_events;
    uint32_t i = index.Find(NodeKey{*e.graph_id, *e.graph_node_id, slot});
    if (i != FlatIndexMap<NodeKey>::kAbsent) {
      if (!nodes[i].aliased && e.name != nodes[i].name) [[unlikely]] {
        nodes[i].aliased = true;
      }
    } else {
      i = AddNode(e, slot);
    }
    if (i == FlatIndexMap<NodeKey>::kAbsent) {
      ++counts.untracked_events;
      return OkStatus();
    }
    nodes[i].durations.Add(*e.dur_us);
    Hold(i, NodeOccurrence{*e.ts_us, *e.dur_us, e.correlation.value_or(0)});
    return OkStatus();
  }

  // One GraphNodes per process slot (one at least), each with the trace's metadata.
  std::vector<GraphNodes> Finish(const TraceMetadata& metadata) {
    if (slots.empty()) slots.resize(1);
    std::vector<GraphNodes> out(slots.size());
    std::vector<size_t> per_slot(slots.size());
    for (const GraphState& g : graphs) per_slot[g.slot] += g.members.size();
    for (size_t s = 0; s < slots.size(); ++s) {
      GraphNodes& o = out[s];
      o.nodes.reserve(per_slot[s]);
      o.metadata = metadata;
      o.metadata.graph_dags.clear();                     // held once, in `dags`
      for (const GraphDag& dag : metadata.graph_dags) {  // by (process, graph id)
        if (dag.process == s) o.dags.push_back(dag);
      }
      o.gpu_events = slots[s].gpu_events;
      o.keyed_events = slots[s].keyed_events;
      o.untracked_events = slots[s].untracked_events;
      o.eager_other = slots[s].eager_other;
      o.limits = limits;
      o.strings = strings;
    }
    index = {};
    graph_index = {};
    for (size_t i = 0; i < nodes.size(); ++i) {
      const GraphState& g = graphs[graph_of[i]];
      nodes[i].sample_level = static_cast<uint8_t>(g.level);
      out[g.slot].nodes.push_back(std::move(nodes[i]));
    }
    nodes = {};
    graphs = {};
    graph_of = {};
    eager_index = {};
    for (Eager& e : eager) out[e.slot].eager.push_back(e.series);
    eager = {};
    for (GraphNodes& o : out) {
      std::sort(o.eager.begin(), o.eager.end(), [](const EagerSeries& a, const EagerSeries& b) {
        return a.durations.sum != b.durations.sum ? a.durations.sum > b.durations.sum
                                                  : a.name < b.name;
      });
      std::sort(o.nodes.begin(), o.nodes.end(), [](const NodeSeries& a, const NodeSeries& b) {
        return a.graph_id != b.graph_id ? a.graph_id < b.graph_id : a.node_id < b.node_id;
      });
      for (NodeSeries& s : o.nodes) {
        if ((s.node_id >> 32) != s.graph_id) ++o.mismatched_nodes;
        if (s.aliased) ++o.aliased_nodes;
        const auto by_start = [](const NodeOccurrence& a, const NodeOccurrence& b) {
          return a.start_us < b.start_us;
        };
        // Usually in time order already; stable_sort would take a buffer as large as the vector.
        if (!std::is_sorted(s.occurrences.begin(), s.occurrences.end(), by_start)) {
          std::stable_sort(s.occurrences.begin(), s.occurrences.end(), by_start);
        }
      }
    }
    return out;
  }
};

}  // namespace

StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcess(const std::string& path,
                                                              const ProgressFn& progress,
                                                              const NodeSeriesOptions& limits) {
  return CollectNodeSeriesPerProcess(path, progress, limits, nullptr);
}

StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcess(const std::string& path,
                                                              const ProgressFn& progress,
                                                              const NodeSeriesOptions& limits,
                                                              const TraceEventVisitor& also) {
  Grouper g(limits, /*by_process=*/true);
  TraceReadOptions options;
  options.progress = progress;
  auto visit = [&g, &also](const TraceEvent& e) {
    RETURN_IF_ERROR(g.Visit(e));
    return also ? also(e) : OkStatus();
  };
  ASSIGN_OR_RETURN(TraceMetadata metadata, ReadTraceFile(path, visit, options));
  return g.Finish(metadata);
}

StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcessFromText(
    std::string_view name, std::string_view json, const NodeSeriesOptions& limits) {
  Grouper g(limits, /*by_process=*/true);
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceText(name, json, [&g](const TraceEvent& e) { return g.Visit(e); }));
  return g.Finish(metadata);
}

StatusOr<GraphNodes> CollectNodeSeries(const std::string& path, const ProgressFn& progress,
                                       const NodeSeriesOptions& limits) {
  Grouper g(limits, /*by_process=*/false);
  TraceReadOptions options;
  options.progress = progress;
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceFile(
                       path, [&g](const TraceEvent& e) { return g.Visit(e); }, options));
  return std::move(g.Finish(metadata)[0]);
}

StatusOr<GraphNodes> CollectNodeSeriesFromText(std::string_view name, std::string_view json,
                                               const NodeSeriesOptions& limits) {
  Grouper g(limits, /*by_process=*/false);
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceText(name, json, [&g](const TraceEvent& e) { return g.Visit(e); }));
  return std::move(g.Finish(metadata)[0]);
}

}  // namespace nodescope::analysis
