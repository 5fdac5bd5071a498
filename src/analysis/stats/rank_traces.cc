// Loading a job's rank traces and looking across them (rank_traces.h).
#include "analysis/stats/rank_traces.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <utility>

namespace nodescope::analysis {
namespace {

using std::to_string;

// A file's processes: one, or one per rank of a merged trace.
using Loaded = StatusOr<std::vector<GraphNodes>>;

std::string Rank(int64_t rank) { return rank >= 0 ? "rank " + to_string(rank) : "rank ?"; }

}  // namespace

StatusOr<RankTraces> AssembleRankTraces(const std::vector<std::string>& names,
                                        std::vector<Loaded> loaded) {
  struct Item {
    int64_t rank;
    size_t order;
    std::string source;
    GraphNodes nodes;
  };
  std::vector<Item> items;
  RankTraces out;
  for (size_t f = 0; f < loaded.size(); ++f) {
    if (!loaded[f].ok()) return loaded[f].status();
    std::vector<GraphNodes>& processes = *loaded[f];
    const bool merged = !processes.empty() && !processes[0].metadata.merged_ranks.empty();
    FileLimits& file = out.files.emplace_back();
    file.processes = processes.size();
    for (const GraphNodes& g : processes) {
      file.nodes_held += g.nodes.size();
      file.untracked_events += g.untracked_events;
      for (const NodeSeries& n : g.nodes) file.sampled_nodes += n.sampled() ? 1 : 0;
    }
    for (size_t slot = 0; slot < processes.size(); ++slot) {
      GraphNodes& g = processes[slot];
      if (merged && g.nodes.empty()) continue;  // a rank with no graph work
      const std::vector<int64_t>& ranks = g.metadata.merged_ranks;
      int64_t rank =
          merged ? (slot < ranks.size() ? ranks[slot] : -1) : g.metadata.rank.value_or(-1);
      std::string source = merged ? names[f] + " (slot " + to_string(slot) + ")" : names[f];
      items.push_back({rank, items.size(), std::move(source), std::move(g)});
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return (a.rank >= 0 && b.rank >= 0) ? a.rank < b.rank : (a.rank >= 0 && b.rank < 0);
  });
  for (Item& item : items) {
    out.nodes.push_back(std::make_unique<GraphNodes>(std::move(item.nodes)));
    RankInput in;
    in.rank = item.rank;
    in.source = std::move(item.source);
    in.nodes = out.nodes.back().get();
    in.base_time_ns = in.nodes->metadata.base_time_ns.value_or(0);
    out.inputs.push_back(std::move(in));
  }
  return out;
}

StatusOr<RankTraces> LoadRankTraces(const std::vector<std::string>& paths,
                                    const NodeSeriesOptions& limits, size_t threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, paths.size());
  std::vector<Loaded> loaded(paths.size(), Loaded(InternalError("not read")));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      loaded[i] = CollectNodeSeriesPerProcess(paths[i], nullptr, limits);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return AssembleRankTraces(paths, std::move(loaded));
}

StatusOr<GraphNodes> NodeAcrossRanks(const RankTraces& traces, std::optional<uint64_t> graph_id,
                                     uint64_t node) {
  NodeStatsOptions filter;
  filter.graph_id = graph_id;
  for (const CrossGraph& g : CompareRanks(traces.inputs, filter)) {
    for (const CrossNode& n : g.nodes) {
      if (n.node_id != node &&
          ((n.node_id >> 32) != g.graph_id || (n.node_id & 0xFFFFFFFFu) != node)) {
        continue;
      }
      GraphNodes out;
      auto pool = std::make_shared<NamePool>(size_t{64} << 20);
      auto intern = [&](std::string_view s) {
        std::optional<uint32_t> id = pool->Intern(s);
        return id ? pool->Get(*id) : std::string_view();
      };
      for (const RankNode& r : n.ranks) {
        const GraphNodes& rank_nodes = *traces.inputs[r.input].nodes;
        for (const NodeSeries& s : rank_nodes.nodes) {
          if (s.graph_id != r.graph_id || s.node_id != r.node_id) continue;
          NodeSeries copy = s;
          copy.graph_id = g.graph_id;
          copy.node_id = (g.graph_id << 32) | r.input;
          copy.name = intern(Rank(r.rank) + ": " + std::string(s.name));
          copy.cat = intern(s.cat);
          copy.scope = intern(s.scope);
          out.gpu_events += s.count();
          out.keyed_events += s.count();
          out.nodes.push_back(std::move(copy));
        }
      }
      out.metadata = traces.inputs[0].nodes->metadata;
      out.strings = std::move(pool);
      return out;
    }
  }
  return NotFoundError("no node " + to_string(node) + " in the first rank's graphs" +
                       (graph_id ? " (graph " + to_string(*graph_id) + ")" : std::string()));
}

std::vector<CrossGraph> RankedCrossGraphs(const std::vector<RankInput>& inputs,
                                          const NodeStatsOptions& options, size_t top) {
  std::vector<CrossGraph> graphs = CompareRanks(inputs, options);
  if (inputs.empty()) return graphs;
  std::vector<std::pair<uint64_t, double>> totals;  // (graph id, GPU time), by graph id
  for (const GraphStats& g : ComputeGraphSummaries(*inputs[0].nodes)) {
    totals.emplace_back(g.graph_id, g.gpu_total_us);
  }
  auto total = [&](uint64_t id) {
    auto it = std::lower_bound(totals.begin(), totals.end(), std::pair<uint64_t, double>(id, -1));
    return it != totals.end() && it->first == id ? it->second : 0.0;
  };
  std::stable_sort(graphs.begin(), graphs.end(), [&](const CrossGraph& a, const CrossGraph& b) {
    return total(a.graph_id) > total(b.graph_id);
  });
  if (top > 0 && graphs.size() > top) graphs.resize(top);
  return graphs;
}

StatusOr<RankTraces> RankTracesFromText(
    const std::vector<std::pair<std::string, std::string>>& traces) {
  std::vector<std::string> names;
  std::vector<Loaded> loaded;
  for (const auto& [name, json] : traces) {
    names.push_back(name);
    loaded.push_back(CollectNodeSeriesPerProcessFromText(name, json));
  }
  return AssembleRankTraces(names, std::move(loaded));
}

}  // namespace nodescope::analysis
