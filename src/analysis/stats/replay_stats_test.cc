// ReplayOrder gives the order of a full sort in each of its three ways; SelectNearestRanks the
// percentiles of a sorted copy.
#include "analysis/stats/replay_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {
namespace {

std::vector<ReplayPoint> Drain(std::span<const NodeSeries> nodes) {
  std::vector<ReplayPoint> out;
  ReplayOrder order(nodes);
  ReplayPoint p;
  while (order.Next(p)) out.push_back(p);
  return out;
}

// What ReplayOrder stands for: every occurrence, sorted by (correlation, start, end).
std::vector<ReplayPoint> Sorted(const std::vector<NodeSeries>& nodes) {
  std::vector<ReplayPoint> out;
  for (const NodeSeries& n : nodes) {
    for (const NodeOccurrence& o : n.occurrences) {
      out.push_back({o.correlation, o.start_us, o.start_us + o.dur_us, o.dur_us});
    }
  }
  std::sort(out.begin(), out.end(), [](const ReplayPoint& x, const ReplayPoint& y) {
    if (x.correlation != y.correlation) return x.correlation < y.correlation;
    return x.start != y.start ? x.start < y.start : x.end < y.end;
  });
  return out;
}

void ExpectSameOrder(const std::vector<NodeSeries>& nodes) {
  const std::vector<ReplayPoint> got = Drain(nodes);
  const std::vector<ReplayPoint> want = Sorted(nodes);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].correlation, want[i].correlation) << i;
    EXPECT_EQ(got[i].start, want[i].start) << i;
    EXPECT_EQ(got[i].dur, want[i].dur) << i;
  }
}

// `nodes` nodes, `replays` replays of correlation 100 + r; the nodes' order within a replay
// shuffled by `rng` when `shuffle`, else by node index.
std::vector<NodeSeries> Graph(size_t nodes, size_t replays, bool shuffle, std::mt19937& rng) {
  std::vector<NodeSeries> out(nodes);
  std::vector<size_t> order(nodes);
  for (size_t r = 0; r < replays; ++r) {
    for (size_t k = 0; k < nodes; ++k) order[k] = k;
    if (shuffle && r % 3 == 0) std::shuffle(order.begin(), order.end(), rng);
    double t = 1000.0 * static_cast<double>(r);
    for (size_t k : order) {
      const double dur = 1 + static_cast<double>(rng() % 100) / 8;
      out[k].occurrences.push_back({t, dur, static_cast<int64_t>(100 + r)});
      t += dur + (rng() % 4 == 0 ? 0 : 0.5);  // some nodes start as the previous ends
    }
  }
  return out;
}

TEST(ReplayOrder, EveryNodeOncePerReplay) {
  std::mt19937 rng(1);
  ExpectSameOrder(Graph(1, 50, false, rng));
  ExpectSameOrder(Graph(7, 50, false, rng));
  ExpectSameOrder(Graph(7, 50, true, rng));  // the order changes every third replay
}

TEST(ReplayOrder, NodesMissingFromSomeReplaysAreMerged) {
  std::mt19937 rng(2);
  std::vector<NodeSeries> nodes = Graph(6, 40, true, rng);
  for (size_t k = 0; k < nodes.size(); ++k) {
    std::vector<NodeOccurrence>& v = nodes[k].occurrences;
    for (size_t r = v.size(); r-- > 0;) {
      if ((r + k) % 5 == 0) v.erase(v.begin() + static_cast<ptrdiff_t>(r));
    }
  }
  nodes[2].occurrences.clear();
  ExpectSameOrder(nodes);
}

TEST(ReplayOrder, ReplaysOutOfCorrelationOrderAreSorted) {
  std::mt19937 rng(3);
  std::vector<NodeSeries> nodes = Graph(5, 30, false, rng);
  for (NodeSeries& n : nodes) {
    for (NodeOccurrence& o : n.occurrences) o.correlation = 1000 - o.correlation;
  }
  ExpectSameOrder(nodes);
  nodes[0].occurrences[3].correlation = 0;  // one without a correlation id
  ExpectSameOrder(nodes);
}

TEST(ReplayOrder, Empty) {
  EXPECT_TRUE(Drain({}).empty());
  std::vector<NodeSeries> nodes(3);
  EXPECT_TRUE(Drain(nodes).empty());
}

TEST(SelectNearestRanks, AsASortedCopy) {
  std::mt19937 rng(4);
  const unsigned percents[] = {0, 5, 50, 50, 95, 99, 100};
  for (size_t n : {1, 2, 3, 10, 20, 99, 100, 101, 1000}) {
    std::vector<double> values;
    for (size_t i = 0; i < n; ++i) values.push_back(static_cast<double>(rng() % 50));
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    double out[std::size(percents)];
    SelectNearestRanks(values, percents, out);
    for (size_t i = 0; i < std::size(percents); ++i) {
      EXPECT_EQ(out[i], NearestRankPercentile(sorted, percents[i])) << n << " p" << percents[i];
    }
  }
  std::vector<double> none;
  double out[2];
  SelectNearestRanks(none, std::span(percents, 2), out);
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
}

}  // namespace
}  // namespace nodescope::analysis
