// Tick values, units, colours and bucketing for the plots.
#include "analysis/plot/plot_scale.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace nodescope::analysis {
namespace {

constexpr std::array<std::string_view, 12> kSeriesColors = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f3b73", "#8cd17d"};

// ColorBrewer's RdBu (9 classes), from blue to red.
constexpr std::array<std::array<int, 3>, kDivergingControls> kDiverging = {{{0x21, 0x66, 0xac},
                                                                            {0x43, 0x93, 0xc3},
                                                                            {0x92, 0xc5, 0xde},
                                                                            {0xd1, 0xe5, 0xf0},
                                                                            {0xf7, 0xf7, 0xf7},
                                                                            {0xfd, 0xdb, 0xc7},
                                                                            {0xf4, 0xa5, 0x82},
                                                                            {0xd6, 0x60, 0x4d},
                                                                            {0xb2, 0x18, 0x2b}}};

int DecimalsFor(double step) {
  int d = -static_cast<int>(std::floor(std::log10(step) + 1e-9));
  return d < 0 ? 0 : d;
}

}  // namespace

Ticks NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : std::fabs(lo));
  double raw = (hi - lo) / std::max(target, 1);
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / magnitude;
  double step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * magnitude;
  auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  Ticks ticks;
  for (long long k = first; k <= last; ++k) ticks.values.push_back(static_cast<double>(k) * step);
  ticks.decimals = DecimalsFor(step);
  return ticks;
}

Ticks LogTicks(double lo, double hi, size_t max_ticks) {
  static constexpr std::array<std::array<double, 3>, 3> kMantissas = {
      {{1, 2, 5}, {1, 3, 0}, {1, 0, 0}}};
  int first = static_cast<int>(std::floor(std::log10(lo)));
  int last = static_cast<int>(std::ceil(std::log10(hi)));
  Ticks ticks;
  for (const std::array<double, 3>& mantissas : kMantissas) {
    ticks.values.clear();
    for (int e = first; e <= last; ++e) {
      for (double m : mantissas) {
        double v = m * std::pow(10.0, e);
        if (m > 0 && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.values.push_back(v);
      }
    }
    if (ticks.values.size() <= max_ticks) break;
  }
  return ticks;
}

TimeUnit UnitFor(double max_us) {
  if (max_us < 1) return {"ns", 1000};
  if (max_us >= 10000) return {"ms", 0.001};
  return {"\xC2\xB5s", 1};
}

std::string_view SeriesColor(size_t i) { return kSeriesColors[i % kSeriesColors.size()]; }

std::string Diverging(double t) {
  if (!(t >= 0)) t = t < 0 ? 0 : 0.5;  // NaN: the middle
  if (t > 1) t = 1;
  double pos = t * (kDivergingControls - 1);
  auto i = std::min(static_cast<size_t>(pos), static_cast<size_t>(kDivergingControls - 2));
  double f = pos - static_cast<double>(i);
  char buf[8];
  int rgb[3];
  for (size_t c = 0; c < 3; ++c) {
    rgb[c] = static_cast<int>(std::lround(kDiverging[i][c] * (1 - f) + kDiverging[i + 1][c] * f));
  }
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

std::vector<Bucket> BucketDurations(const std::vector<NodeOccurrence>& occurrences, size_t replays,
                                    size_t buckets) {
  std::vector<Bucket> out(buckets);
  for (size_t b = 0; b < buckets; ++b) {
    Bucket& bucket = out[b];
    bucket.first = b * replays / buckets;
    bucket.last = (b + 1) * replays / buckets - 1;
    double sum = 0;
    for (size_t i = bucket.first; i <= bucket.last && i < occurrences.size(); ++i) {
      double d = occurrences[i].dur_us;
      bucket.min_us = bucket.count == 0 ? d : std::min(bucket.min_us, d);
      bucket.max_us = bucket.count == 0 ? d : std::max(bucket.max_us, d);
      sum += d;
      ++bucket.count;
    }
    if (bucket.count > 0) bucket.mean_us = sum / static_cast<double>(bucket.count);
  }
  return out;
}

double DurationQuantile(const std::vector<NodeOccurrence>& occurrences, double q) {
  if (occurrences.empty()) return 0;
  std::vector<double> d;
  d.reserve(occurrences.size());
  for (const NodeOccurrence& o : occurrences) d.push_back(o.dur_us);
  auto k = static_cast<size_t>(std::llround(q * static_cast<double>(d.size() - 1)));
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
  return d[k];
}

}  // namespace nodescope::analysis
