// Scales for the plots: nice ticks, time units, colours, and buckets of replays.
// Buckets: when a node has more replays than the plot has pixels, each column summarizes several.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/node_series.h"

namespace nodescope::analysis {

struct Ticks {
  std::vector<double> values;  // ascending
  int decimals = 0;            // enough to print each value exactly (linear ticks)
};

// Ticks 1, 2 or 5 x 10^k apart, about `target` intervals, from the largest multiple of the step
// <= lo to the smallest >= hi (so the axis ends on a tick).
Ticks NiceTicks(double lo, double hi, int target);
// Ticks in [lo, hi] (lo > 0) for a log scale: 1, 2, 5 x 10^k, or 1, 3 x 10^k, or powers of ten,
// the first of these that gives at most `max_ticks`.
Ticks LogTicks(double lo, double hi, size_t max_ticks);

struct TimeUnit {
  std::string_view name;  // "ns", "µs", "ms"
  double per_us = 1;      // a duration in microseconds times this is in `name`
};
// The unit that keeps tick labels short for durations up to `max_us`.
TimeUnit UnitFor(double max_us);

// Line colours: 12 distinct hues (Tableau 10 and two more); i wraps around.
std::string_view SeriesColor(size_t i);

// A diverging colour for t in [0, 1] (clamped): blue (0) -> near-white (0.5) -> red (1),
// interpolated in RGB between the nine colours of ColorBrewer's RdBu, reversed. "#rrggbb".
// The heat map's: below a node's median is blue, at it pale, above it red.
std::string Diverging(double t);
inline constexpr int kDivergingControls = 9;

// Replays [first, last] (0-based, inclusive) of one column of a plot, and a node's durations there.
struct Bucket {
  size_t first = 0;
  size_t last = 0;
  size_t count = 0;  // 0 when the node has fewer occurrences than `first` + 1
  double mean_us = 0;
  double min_us = 0;
  double max_us = 0;
};
// Splits replays [0, replays) into `buckets` (<= replays) consecutive runs of near-equal length
// and summarizes `occurrences` (in replay order) in each.
std::vector<Bucket> BucketDurations(const std::vector<NodeOccurrence>& occurrences, size_t replays,
                                    size_t buckets);

// The q-quantile (nearest rank, 0 <= q <= 1) of the durations; 0 for none.
double DurationQuantile(const std::vector<NodeOccurrence>& occurrences, double q);

}  // namespace nodescope::analysis
