// Per-replay figures of a graph, its nodes' occurrences merged replay by replay.
#include "analysis/stats/replay_stats.h"

#include <algorithm>
#include <limits>

#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ReplayPoint PointOf(const NodeOccurrence& o) {
  return {o.correlation, o.start_us, o.start_us + o.dur_us, o.dur_us};
}

bool Before(const ReplayPoint& x, const ReplayPoint& y) {
  if (x.correlation != y.correlation) return x.correlation < y.correlation;
  return x.start != y.start ? x.start < y.start : x.end < y.end;
}

bool InReplayOrder(const std::vector<NodeOccurrence>& v) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (Before(PointOf(v[i]), PointOf(v[i - 1]))) return false;
  }
  return true;
}

// Whether every node ran once per replay: the j-th occurrences of all nodes share one correlation
// id, increasing with j.
bool OncePerReplay(std::span<const NodeSeries> nodes) {
  if (nodes.empty()) return false;
  const std::vector<NodeOccurrence>& first = nodes.front().occurrences;
  for (size_t j = 1; j < first.size(); ++j) {
    if (!(first[j - 1].correlation < first[j].correlation)) return false;
  }
  return std::all_of(nodes.begin(), nodes.end(), [&](const NodeSeries& n) {
    return std::equal(n.occurrences.begin(), n.occurrences.end(), first.begin(), first.end(),
                      [](const NodeOccurrence& a, const NodeOccurrence& b) {
                        return a.correlation == b.correlation;
                      });
  });
}

}  // namespace

ReplayOrder::ReplayOrder(std::span<const NodeSeries> nodes) {
  if (OncePerReplay(nodes)) {
    mode_ = Mode::kByReplay;
    nodes_ = nodes;
    replays_ = nodes.front().occurrences.size();
    replay_.resize(nodes.size());
    order_.resize(nodes.size());
    for (uint32_t k = 0; k < order_.size(); ++k) order_[k] = k;
    at_ = order_.size();  // the first Next() loads the first replay
    return;
  }
  if (std::all_of(nodes.begin(), nodes.end(),
                  [](const NodeSeries& n) { return InReplayOrder(n.occurrences); })) {
    mode_ = Mode::kMerge;
    heap_.reserve(nodes.size());
    for (const NodeSeries& n : nodes) {
      const std::vector<NodeOccurrence>& v = n.occurrences;
      if (!v.empty()) heap_.push_back({PointOf(v.front()), v.data() + 1, v.data() + v.size()});
    }
    std::make_heap(heap_.begin(), heap_.end(), Later);
    return;
  }
  mode_ = Mode::kSorted;
  size_t total = 0;
  for (const NodeSeries& n : nodes) total += n.occurrences.size();
  sorted_.reserve(total);
  for (const NodeSeries& n : nodes) {
    for (const NodeOccurrence& o : n.occurrences) sorted_.push_back(PointOf(o));
  }
  std::sort(sorted_.begin(), sorted_.end(), Before);
}

bool ReplayOrder::Later(const Cursor& x, const Cursor& y) { return Before(y.point, x.point); }

bool ReplayOrder::NextReplay() {
  if (next_replay_ == replays_) return false;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    replay_[k] = PointOf(nodes_[k].occurrences[next_replay_]);
  }
  ++next_replay_;
  const auto before = [this](uint32_t a, uint32_t b) { return Before(replay_[a], replay_[b]); };
  // Replays of one graph usually run their nodes in the same order.
  if (!std::is_sorted(order_.begin(), order_.end(), before)) {
    std::sort(order_.begin(), order_.end(), before);
  }
  at_ = 0;
  return true;
}

bool ReplayOrder::Next(ReplayPoint& p) {
  switch (mode_) {
    case Mode::kByReplay:
      if (at_ == order_.size() && !NextReplay()) return false;
      p = replay_[order_[at_++]];
      return true;
    case Mode::kMerge: {
      if (heap_.empty()) return false;
      std::pop_heap(heap_.begin(), heap_.end(), Later);
      Cursor& c = heap_.back();
      p = c.point;
      if (c.next == c.end) {
        heap_.pop_back();
      } else {
        // Usually later than every other node's next point: it stays at the bottom of the heap.
        c.point = PointOf(*c.next++);
        std::push_heap(heap_.begin(), heap_.end(), Later);
      }
      return true;
    }
    case Mode::kSorted:
      if (at_ == sorted_.size()) return false;
      p = sorted_[at_++];
      return true;
  }
  return false;
}

void ComputeReplays(std::span<const NodeSeries> nodes, GraphStats& g) {
  // As many replays as the node seen most at least (exactly that when each node runs once per
  // replay).
  size_t most = 0;
  for (const NodeSeries& n : nodes) most = std::max(most, n.occurrences.size());
  std::vector<double> gpu, span, idle;
  for (std::vector<double>* v : {&gpu, &span, &idle}) v->reserve(most);
  double gaps = 0;
  double first_start = std::numeric_limits<double>::infinity();
  ReplayOrder order(nodes);
  ReplayPoint p;
  bool more = order.Next(p);
  while (more) {
    const int64_t correlation = p.correlation;
    const double replay_start = p.start;
    double latest_end = replay_start;
    double gpu_time = 0;
    double idle_time = 0;
    do {
      if (p.start > latest_end) {
        idle_time += p.start - latest_end;
        gaps += 1;
      }
      latest_end = std::max(latest_end, p.end);
      gpu_time += p.dur;
      more = order.Next(p);
    } while (more && p.correlation == correlation);
    gpu.push_back(gpu_time);
    span.push_back(latest_end - replay_start);
    idle.push_back(idle_time);
    if (replay_start < first_start) {
      first_start = replay_start;
      g.first_replay_gpu_us = gpu_time;
    }
  }
  g.replays = gpu.size();
  if (gpu.empty()) return;
  const double replays = static_cast<double>(gpu.size());
  g.gaps_mean = gaps / replays;
  double idle_sum = 0;  // in replay order, before the selections below reorder `idle`
  for (double d : idle) idle_sum += d;
  g.idle_mean_us = idle_sum / replays;
  static constexpr unsigned kPercents[] = {50, 99};
  double at[2];
  SelectNearestRanks(gpu, kPercents, at);
  g.gpu_p50_us = at[0];
  g.gpu_p99_us = at[1];
  SelectNearestRanks(span, kPercents, at);
  g.span_p50_us = at[0];
  g.span_p99_us = at[1];
  SelectNearestRanks(idle, std::span(kPercents).subspan(1), std::span(at).subspan(1));
  g.idle_p99_us = at[1];
  g.first_replay_outlier = g.gpu_p50_us > 0 ? g.first_replay_gpu_us / g.gpu_p50_us : kNaN;
}

}  // namespace nodescope::analysis
