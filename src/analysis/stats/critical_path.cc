// The critical path, slack and what-if of one graph's replays (critical_path.h says how).
#include "analysis/stats/critical_path.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "analysis/stats/critical_path_plan.h"

namespace nodescope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kNoEnd = -std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// The held occurrences grouped by replay: entries[begin[r], begin[r + 1]) are replay r's, each
// (series index, occurrence index). Allocated once per graph.
struct Replays {
  std::vector<uint32_t> begin;
  std::vector<std::pair<uint32_t, uint32_t>> entries;
  size_t count() const { return begin.empty() ? 0 : begin.size() - 1; }
};

Replays GroupByReplay(std::span<const NodeSeries> series) {
  size_t total = 0;
  for (const NodeSeries& s : series) total += s.occurrences.size();
  std::vector<uint32_t> slot_of(total);  // the replay of each occurrence, series by series
  std::vector<int64_t> correlation_of_slot;
  std::unordered_map<int64_t, uint32_t> slots;
  // The slot the j-th occurrence of the previous series had: replays come in the same order in
  // every node, so this is nearly always the answer, and the hash map is asked only otherwise.
  std::vector<uint32_t> guess;
  size_t at = 0;
  for (const NodeSeries& s : series) {
    uint32_t previous = kNone;
    for (size_t j = 0; j < s.occurrences.size(); ++j, ++at) {
      const int64_t c = s.occurrences[j].correlation;
      uint32_t slot = kNone;
      if (j < guess.size() && correlation_of_slot[guess[j]] == c) {
        slot = guess[j];
      } else if (previous != kNone && previous + 1 < correlation_of_slot.size() &&
                 correlation_of_slot[previous + 1] == c) {
        slot = previous + 1;
      } else {
        auto [it, added] = slots.try_emplace(c, static_cast<uint32_t>(correlation_of_slot.size()));
        if (added) correlation_of_slot.push_back(c);
        slot = it->second;
      }
      if (j < guess.size()) {
        guess[j] = slot;
      } else {
        guess.push_back(slot);
      }
      slot_of[at] = previous = slot;
    }
  }
  Replays out;
  out.begin.assign(correlation_of_slot.size() + 1, 0);
  for (uint32_t slot : slot_of) ++out.begin[slot + 1];
  for (size_t r = 1; r < out.begin.size(); ++r) out.begin[r] += out.begin[r - 1];
  std::vector<uint32_t> next(out.begin.begin(), out.begin.end() - 1);
  out.entries.resize(total);
  at = 0;
  for (uint32_t k = 0; k < series.size(); ++k) {
    for (uint32_t j = 0; j < series[k].occurrences.size(); ++j) {
      out.entries[next[slot_of[at++]]++] = {k, j};
    }
  }
  return out;
}

// The nearest-rank median of v[0, n) (reordered), as NearestRankPercentile(…, 50).
double Median(double* v, size_t n) {
  if (n == 0) return kNaN;
  const size_t rank = std::max<size_t>((n + 1) / 2, 1);
  std::nth_element(v, v + rank - 1, v + n);
  return v[rank - 1];
}

// Buffers of one graph's per-replay passes, by position in the plan's topological order.
class Passes {
 public:
  Passes(const PathPlan& plan, std::span<const NodeSeries> series)
      : plan_(plan),
        series_(series),
        stamp_(plan.size(), 0),
        start_(plan.size()),
        end_(plan.size()),
        dur_(plan.size()),
        latest_pred_(plan.size()),
        gap_(plan.size()),
        tail_(plan.size()),
        before_(plan.size()),
        after_(plan.size()),
        mark_(plan.size(), 0) {}

  // Reads replay `r`'s records into the buffers; whether (and why not) it can be analysed.
  std::optional<PathSkip> Gather(const Replays& replays, size_t r) {
    ++generation_;
    size_t recorded = 0;
    for (uint32_t e = replays.begin[r]; e < replays.begin[r + 1]; ++e) {
      const auto [k, j] = replays.entries[e];
      const int32_t p = plan_.series_point[k];
      if (p < 0) return PathSkip::kUnknownNode;
      const NodeOccurrence& o = series_[k].occurrences[j];
      const double end = o.start_us + o.dur_us;
      if (plan_.role[p] == PointRole::kConditional) {
        if (stamp_[p] != generation_) {
          stamp_[p] = generation_;
          start_[p] = o.start_us;
          end_[p] = end;
        } else {
          start_[p] = std::min(start_[p], o.start_us);
          end_[p] = std::max(end_[p], end);
        }
        continue;
      }
      if (stamp_[p] == generation_) return PathSkip::kRepeatedNode;
      stamp_[p] = generation_;
      start_[p] = o.start_us;
      end_[p] = end;
      ++recorded;
    }
    if (recorded < plan_.recorded) return PathSkip::kMissingNode;
    return std::nullopt;
  }

  // The passes over the replay last gathered: fills slack[k] (NaN where node k did not run),
  // saved[k] (measured span - what-if span) and on_path[k] by reported node k; returns the
  // measured span.
  double Run(double speedup, float* slack, float* saved, uint64_t* on_path) {
    const size_t m = plan_.size();
    double first = std::numeric_limits<double>::infinity();
    double last = kNoEnd;
    // Forward: the measured schedule, each node's latest predecessor end and launch latency.
    for (size_t v = 0; v < m; ++v) {
      double latest = kNoEnd;
      for (uint32_t i = plan_.pred_begin[v]; i < plan_.pred_begin[v + 1]; ++i) {
        latest = std::max(latest, end_[plan_.preds[i]]);
      }
      latest_pred_[v] = latest;
      before_[v] = v == 0 ? kNoEnd : std::max(before_[v - 1], Ran(v - 1) ? end_[v - 1] : kNoEnd);
      if (Ran(v)) {
        dur_[v] = end_[v] - start_[v];
        gap_[v] = latest == kNoEnd ? 0 : start_[v] - latest;
        first = std::min(first, start_[v]);
        last = std::max(last, end_[v]);
      } else {
        end_[v] = latest;
        dur_[v] = gap_[v] = 0;
      }
    }
    // Backward: the longest stretch after each node's end (end - LF), the best path that starts
    // at a root after each position.
    double root_paths = kNoEnd;
    for (size_t v = m; v-- > 0;) {
      double tail = 0;
      for (uint32_t i = plan_.succ_begin[v]; i < plan_.succ_begin[v + 1]; ++i) {
        const uint32_t w = plan_.succs[i];
        tail = std::max(tail, gap_[w] + dur_[w] + tail_[w]);
      }
      tail_[v] = tail;
      after_[v] = root_paths;
      if (Ran(v) && latest_pred_[v] == kNoEnd) {
        root_paths = std::max(root_paths, end_[v] + tail);
      }
    }
    // The critical path: from the latest ends back through the latest predecessor ends, ties
    // (within kTieUs) all followed.
    ++generation_;
    for (size_t v = m; v-- > 0;) {
      if (Ran(v, generation_ - 1) && end_[v] >= last - kTieUs) mark_[v] = generation_;
      if (mark_[v] != generation_ || latest_pred_[v] == kNoEnd) continue;
      for (uint32_t i = plan_.pred_begin[v]; i < plan_.pred_begin[v + 1]; ++i) {
        const uint32_t u = plan_.preds[i];
        if (end_[u] >= latest_pred_[v] - kTieUs) mark_[u] = generation_;
      }
    }
    // What-if: span' = max(longest path through v - saved, longest path avoiding v); the edges
    // that jump over a position in the topological order, in a max-heap with lazy removal.
    heap_.clear();
    const double span = last - first;
    const double kept = 1 / speedup;
    for (size_t v = 0; v < m; ++v) {
      if (v > 0) {
        const size_t a = v - 1;
        for (uint32_t i = plan_.succ_begin[a]; i < plan_.succ_begin[a + 1]; ++i) {
          const uint32_t b = plan_.succs[i];
          if (b <= v || end_[a] == kNoEnd) continue;
          heap_.push_back({end_[a] + gap_[b] + dur_[b] + tail_[b], b});
          std::push_heap(heap_.begin(), heap_.end());
        }
      }
      while (!heap_.empty() && heap_.front().right <= v) {
        std::pop_heap(heap_.begin(), heap_.end());
        heap_.pop_back();
      }
      const int32_t k = plan_.reported[v];
      if (k < 0) continue;
      if (!Ran(v, generation_ - 1)) {
        slack[k] = std::numeric_limits<float>::quiet_NaN();
        saved[k] = 0;
        continue;
      }
      const double through = end_[v] + tail_[v];
      slack[k] = static_cast<float>(std::max(0.0, last - through));
      double avoiding = std::max(before_[v], after_[v]);
      if (!heap_.empty()) avoiding = std::max(avoiding, heap_.front().value);
      const double whatif_end = std::max(through - dur_[v] * (1 - kept), avoiding);
      saved[k] = static_cast<float>(std::max(0.0, last - whatif_end));
      if (mark_[v] == generation_) ++on_path[k];
    }
    return span;
  }

 private:
  struct Jump {
    double value;
    uint32_t right;
    bool operator<(const Jump& other) const { return value < other.value; }
  };

  bool Ran(size_t v) const { return Ran(v, generation_); }
  bool Ran(size_t v, uint32_t generation) const {
    return plan_.role[v] != PointRole::kPass && stamp_[v] == generation;
  }

  const PathPlan& plan_;
  std::span<const NodeSeries> series_;
  uint32_t generation_ = 0;
  std::vector<uint32_t> stamp_;  // == generation_: the node ran in the replay gathered
  std::vector<double> start_, end_, dur_;
  std::vector<double> latest_pred_;  // latest end among the predecessors; kNoEnd: a root
  std::vector<double> gap_;          // d(v); 0 for a root or a point that did not run
  std::vector<double> tail_;         // replay end - LF(v): the longest stretch after its end
  std::vector<double> before_;       // the latest end at an earlier position
  std::vector<double> after_;        // the longest path starting at a root at a later position
  std::vector<uint32_t> mark_;       // == generation_: on the critical path
  std::vector<Jump> heap_;
};

}  // namespace

const char* PathSkipName(PathSkip reason) {
  switch (reason) {
    case PathSkip::kMissingNode:
      return "missing_node";
    case PathSkip::kUnknownNode:
      return "unknown_node";
    case PathSkip::kRepeatedNode:
      return "repeated_node";
    case PathSkip::kIncompleteDag:
      return "incomplete_dag";
    case PathSkip::kInvalidDag:
      return "invalid_dag";
    case PathSkip::kCount:
      break;
  }
  return "?";
}

GraphPath ComputeCriticalPath(const GraphDag& dag, std::span<const NodeSeries> series,
                              const CriticalPathOptions& options) {
  GraphPath out;
  out.graph_id = dag.graph_id;
  out.speedup = options.speedup;
  out.span_p50_us = kNaN;
  const Replays replays = GroupByReplay(series);
  out.replays = replays.count();
  const PathPlan plan = BuildPathPlan(dag, series);
  out.node_of_series.assign(series.size(), -1);
  if (!plan.valid || !dag.complete) {
    const PathSkip why = plan.valid ? PathSkip::kIncompleteDag : PathSkip::kInvalidDag;
    out.skipped[static_cast<size_t>(why)] = out.replays;
    return out;
  }
  for (size_t k = 0; k < series.size(); ++k) {
    const int32_t p = plan.series_point[k];
    if (p >= 0) out.node_of_series[k] = plan.reported[p];
  }
  out.nodes.resize(plan.reported_ids.size());
  for (size_t k = 0; k < out.nodes.size(); ++k) {
    out.nodes[k].node_id = plan.reported_ids[k];
    out.nodes[k].conditional = plan.role[plan.reported_point[k]] == PointRole::kConditional;
  }
  // First the verdicts, so that the figures take one allocation of the right size.
  Passes passes(plan, series);
  std::vector<uint8_t> verdict(replays.count());
  for (size_t r = 0; r < replays.count(); ++r) {
    const std::optional<PathSkip> skip = passes.Gather(replays, r);
    verdict[r] = static_cast<uint8_t>(skip ? *skip : PathSkip::kCount);
    if (skip) {
      ++out.skipped[static_cast<size_t>(*skip)];
    } else {
      ++out.analysed;
    }
  }
  const size_t n = out.analysed;
  const size_t nodes = out.nodes.size();
  // Replay by replay, each replay's row written in one sweep. Floats (7 significant digits):
  // slack and the time saved are parts of a span, 1 ns exact below 16 ms.
  const std::unique_ptr<float[]> slack(new float[nodes * n]);
  const std::unique_ptr<float[]> saved(new float[nodes * n]);
  std::vector<double> spans(n), column(n);
  std::vector<uint64_t> on_path(nodes, 0);
  size_t a = 0;
  for (size_t r = 0; r < replays.count(); ++r) {
    if (verdict[r] != static_cast<uint8_t>(PathSkip::kCount)) continue;
    (void)passes.Gather(replays, r);
    spans[a] = passes.Run(options.speedup, &slack[a * nodes], &saved[a * nodes], on_path.data());
    ++a;
  }
  out.span_p50_us = Median(std::vector<double>(spans).data(), n);
  for (size_t k = 0; k < nodes; ++k) {
    NodePath& node = out.nodes[k];
    size_t ran = 0;
    for (size_t i = 0; i < n; ++i) {
      const float x = slack[i * nodes + k];
      if (!std::isnan(x)) column[ran++] = x;
    }
    node.ran = ran;
    node.on_path = on_path[k];
    node.share = n > 0 ? static_cast<double>(node.on_path) / static_cast<double>(n) : kNaN;
    node.slack_min_us = ran > 0 ? *std::min_element(column.begin(), column.begin() + ran) : kNaN;
    node.slack_p50_us = Median(column.data(), ran);
    for (size_t i = 0; i < n; ++i) column[i] = spans[i] - saved[i * nodes + k];
    node.whatif_span_p50_us = Median(column.data(), n);
    node.gain_us = out.span_p50_us - node.whatif_span_p50_us;
  }
  return out;
}

}  // namespace nodescope::analysis
