// The per-replay figures of one graph (GraphStats' GPU time, span and idle time per replay): its
// nodes' occurrences taken replay by replay, in (correlation id, start, end) order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/stats/node_series.h"

namespace nodescope::analysis {

struct GraphStats;

struct ReplayPoint {
  int64_t correlation = 0;
  double start = 0;
  double end = 0;  // start + dur
  double dur = 0;
};

// The occurrences of a graph's nodes in replay order: by correlation id, then start, then end
// (points equal in all three come in no particular order, as from a sort). Without copying the
// occurrences, in the usual cases:
// - every node runs once per replay (each node's j-th occurrence is of the j-th replay, replays
//   in correlation order): replay by replay, its points in the order of the previous replay's,
//   sorted again only where that order no longer holds;
// - else, when each node's occurrences are in replay order (they are sorted by start; a trace
//   launches replays in correlation order): the nodes' lists merged through a heap of one
//   cursor per node.
// Otherwise every occurrence is copied and sorted (32 bytes per occurrence held).
class ReplayOrder {
 public:
  explicit ReplayOrder(std::span<const NodeSeries> nodes);
  // The next point into `p`; false past the last.
  bool Next(ReplayPoint& p);

 private:
  enum class Mode : uint8_t { kByReplay, kMerge, kSorted };
  struct Cursor {
    ReplayPoint point;  // the node's next point
    const NodeOccurrence* next;
    const NodeOccurrence* end;
  };

  static bool Later(const Cursor& x, const Cursor& y);  // the heap's order: x after y
  // Loads the next replay into replay_ and order_ (kByReplay); false past the last.
  bool NextReplay();

  Mode mode_;
  size_t at_ = 0;  // kByReplay: in order_; kSorted: in sorted_
  // kByReplay:
  std::span<const NodeSeries> nodes_;
  size_t replays_ = 0;               // each node's occurrences
  size_t next_replay_ = 0;           // the occurrence index of the next replay to load
  std::vector<ReplayPoint> replay_;  // the current replay's points, by node
  std::vector<uint32_t> order_;      // indices into replay_, in replay order
  // kMerge: a min-heap by point, one cursor per node with points left.
  std::vector<Cursor> heap_;
  // kSorted: every point, sorted.
  std::vector<ReplayPoint> sorted_;
};

// Fills the per-replay figures of `g` (replays, gaps_mean, idle_*, gpu_*, span_*, first_replay_*)
// from the occurrences of `nodes`, every node of one graph.
void ComputeReplays(std::span<const NodeSeries> nodes, GraphStats& g);

}  // namespace nodescope::analysis
