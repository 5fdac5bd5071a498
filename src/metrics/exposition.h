// The Prometheus text exposition format (version 0.0.4), written by hand: families with HELP and
// TYPE, label values escaped, histograms as cumulative _bucket{le=...} lines with _sum and _count.
// Checked by `promtool check metrics` (tests/metrics) and by golden text (exposition_test.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nodescope::metrics {

// The Content-Type a scrape is answered with: the text format, or OpenMetrics 1.0 when the
// scraper's Accept header names application/openmetrics-text (Prometheus does by default).
inline constexpr char kTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr char kOpenMetricsContentType[] =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

// Bucket upper bounds, in seconds, for device work from a microsecond to a second: 1-2-5 steps
// (1 us, 2 us, 5 us, 10 us, ... 500 ms, 1 s), then +Inf. 19 finite buckets. A median read back
// with histogram_quantile() lies in the same bucket as the true one.
const std::vector<double>& DurationBuckets();

using Labels = std::vector<std::pair<std::string, std::string>>;

// `value` escaped as a label value: backslash, double quote and newline as \\, \", \n. Invalid
// UTF-8 is replaced (U+FFFD), since Prometheus refuses it.
std::string EscapeLabelValue(std::string_view value);
// A number as the format writes it: integers without a fraction, others shortest round-trip,
// +Inf / -Inf / NaN spelled so.
std::string FormatValue(double v);

// Histogram counts in one series: per bucket (not cumulative), one more than the bounds for
// +Inf; the sum of observations.
struct HistogramValues {
  std::vector<uint64_t> buckets;
  double sum = 0;
  uint64_t count() const;
  void Observe(double seconds, const std::vector<double>& bounds);
  void Add(const HistogramValues& other);  // same bounds
};

class ExpositionWriter {
 public:
  // OpenMetrics differs from the text format, as far as written here, in two things: a counter
  // family is named without its samples' `_total` (HELP and TYPE lines), and the text ends with
  // "# EOF".
  explicit ExpositionWriter(bool openmetrics = false) : openmetrics_(openmetrics) {}
  // HELP and TYPE lines ("counter", "gauge", "histogram"). Call once per family, before its
  // samples; a family's samples are written together.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const Labels& labels, double value);
  void Histogram(std::string_view name, const Labels& labels, const std::vector<double>& bounds,
                 const HistogramValues& values);
  const std::string& text() const { return text_; }
  // The text, "# EOF" added in OpenMetrics.
  std::string Take();

 private:
  void LabelSet(const Labels& labels, std::string_view le);
  bool openmetrics_;
  std::string text_;
};

}  // namespace nodescope::metrics
