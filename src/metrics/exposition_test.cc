#include "metrics/exposition.h"

#include <gtest/gtest.h>

namespace nodescope::metrics {
namespace {

TEST(Exposition, GoldenHistogramCounterGauge) {
  const std::vector<double> bounds = {1e-6, 5e-6};
  HistogramValues h;
  h.Observe(1e-6, bounds);  // le="1e-06": a value equal to a bound is in it
  h.Observe(2e-6, bounds);
  h.Observe(0.5, bounds);  // +Inf
  ExpositionWriter w;
  w.Family("x_seconds", "histogram", "A \\ help\nline.");
  w.Histogram("x_seconds", {{"graph", "g-\"1\"\\\n"}, {"node", "3"}}, bounds, h);
  w.Family("y_total", "counter", "Y.");
  w.Sample("y_total", {{"rank", ""}}, 7);
  w.Family("z", "gauge", "Z.");
  w.Sample("z", {}, 0.25);
  EXPECT_EQ(w.text(),
            "# HELP x_seconds A \\\\ help\\nline.\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{graph=\"g-\\\"1\\\"\\\\\\n\",node=\"3\",le=\"1e-06\"} 1\n"
            "x_seconds_bucket{graph=\"g-\\\"1\\\"\\\\\\n\",node=\"3\",le=\"5e-06\"} 2\n"
            "x_seconds_bucket{graph=\"g-\\\"1\\\"\\\\\\n\",node=\"3\",le=\"+Inf\"} 3\n"
            "x_seconds_sum{graph=\"g-\\\"1\\\"\\\\\\n\",node=\"3\"} 0.500003\n"
            "x_seconds_count{graph=\"g-\\\"1\\\"\\\\\\n\",node=\"3\"} 3\n"
            "# HELP y_total Y.\n"
            "# TYPE y_total counter\n"
            "y_total{rank=\"\"} 7\n"
            "# HELP z Z.\n"
            "# TYPE z gauge\n"
            "z 0.25\n");
}

TEST(Exposition, OpenMetricsNamesCounterFamiliesWithoutTotalAndEnds) {
  ExpositionWriter w(/*openmetrics=*/true);
  w.Family("y_total", "counter", "Y.");
  w.Sample("y_total", {{"rank", "0"}}, 7);
  w.Family("z", "gauge", "Z.");
  w.Sample("z", {}, 1);
  EXPECT_EQ(w.Take(),
            "# HELP y Y.\n# TYPE y counter\ny_total{rank=\"0\"} 7\n"
            "# HELP z Z.\n# TYPE z gauge\nz 1\n# EOF\n");
}

TEST(Exposition, ValuesAndLabels) {
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(1e-6), "1e-06");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(EscapeLabelValue("a\xff"
                             "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(DurationBuckets().size(), 19u);
  EXPECT_EQ(DurationBuckets().front(), 1e-6);
  EXPECT_EQ(DurationBuckets().back(), 1.0);
}

}  // namespace
}  // namespace nodescope::metrics
