// Text helpers of `nodescope nodes`: path shortening, units, CSV fields, a table.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8_text.h"  // DisplayWidth, ShortenMiddle

namespace nodescope::cli {

// A scope path ("model/layer.2/mlp") cut to `width` code points by dropping its outer parts
// first ("…/layer.2/mlp", keeping at least two parts), then keeping its end ("…er.2/mlp"); a
// name without '/' is cut in the middle. width 0: unchanged.
std::string ShortenPath(std::string_view s, size_t width);

// One RFC 4180 field of text from a trace: escaped as TerminalText() does (no control
// character, line break or bidirectional override stays), quoted (with doubled quotes) when it
// holds a comma or a quote, and, when it starts with = + - or @ (a formula to a spreadsheet),
// quoted with a ' in front: "'=1+2".
std::string CsvField(std::string_view s);

// A number for a table cell: about four significant digits (9.750, 26.00, 390.0, 4096).
std::string Fixed4(double v);
// A duration with its unit, chosen so the number stays below 1000: "52.00 us", "1.234 ms".
std::string Duration(double us);

// A time unit for a table column, chosen from the column's largest value so that cells stay
// short: us below 10 ms, then ms below 10 s, then s.
struct TimeUnit {
  const char* name;
  double us_per_unit;
};
TimeUnit UnitFor(double max_us);

// A plain text table: right-aligned columns, then left-aligned ones. To fit a width, the last
// column takes the rest of the line and other left-aligned ones at most a third of what the
// right-aligned ones leave; where the last column would then be narrower than kOwnLineBelow and
// one of its cells would lose part of itself (an "…"), the left-aligned columns go on a line of
// their own under each row, indented by four more spaces, and share it the same way. Cells are
// shortened in the middle, or as SetShortener() says (a kernel name column:
// analysis::FitKernelName).
class TextTable {
 public:
  using Shortener = std::string (*)(std::string_view, size_t);
  TextTable(std::vector<std::string> headers, size_t left_aligned_from);
  void SetShortener(size_t column, Shortener shorten) { shorteners_.at(column) = shorten; }
  // A second header line (units), printed under the headers.
  void UnitRow(std::vector<std::string> cells);
  void Row(std::vector<std::string> cells);
  // Lines of at most `width` columns where possible (0: no limit), each starting with `indent`
  // spaces. The last column is never cut below kMinLastColumn code points.
  std::string Render(size_t indent, size_t width) const;

  static constexpr size_t kMinLastColumn = 16;
  // A last column narrower than this (and than its cells) moves to a line of its own.
  static constexpr size_t kOwnLineBelow = 40;

 private:
  // Between right-aligned columns one space, before a left-aligned one two.
  std::string_view Separator(size_t column) const;

  std::vector<std::string> headers_;
  size_t left_aligned_from_;           // columns from this index on are left-aligned
  std::vector<Shortener> shorteners_;  // by column
  std::vector<std::string> units_;
  bool has_units_ = false;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace nodescope::cli
