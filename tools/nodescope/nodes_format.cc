// Text helpers of `nodescope nodes`: path shortening, units, CSV fields, a table.
#include "nodes_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "base/terminal_text.h"
#include "base/utf8_text.h"

namespace nodescope::cli {

std::string ShortenPath(std::string_view s, size_t width) {
  if (width == 0 || DisplayWidth(s) <= width) return std::string(s);
  const std::string ellipsis(kEllipsis);
  // At least the last two parts stay: "…/mlp" would not say which layer.
  const size_t last_slash = s.rfind('/');
  for (size_t slash = s.find('/'); slash < last_slash; slash = s.find('/', slash + 1)) {
    std::string rest = ellipsis + std::string(s.substr(slash));  // "…/layer.2/mlp"
    if (DisplayWidth(rest) <= width) return rest;
  }
  if (last_slash == std::string_view::npos) return ShortenMiddle(s, width);
  // Narrower still: the end, where the innermost parts are ("…er.2/mlp").
  if (width == 1) return ellipsis;
  return ellipsis + std::string(s.substr(OffsetOfCodePoint(s, DisplayWidth(s) - (width - 1))));
}

std::string CsvField(std::string_view s) {
  const std::string text = TerminalText(s);  // also turns a leading tab or CR into text
  const bool formula = !text.empty() && std::string_view("=+-@").find(text[0]) != std::string::npos;
  if (!formula && text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = formula ? "\"'" : "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Fixed4(double v) {
  if (std::isnan(v)) return "-";
  const double a = std::fabs(v);
  // Thresholds below the powers of ten, so that 9.9996 prints as 10.00, not 10.000.
  const int decimals = a < 9.9995 ? 3 : a < 99.995 ? 2 : a < 999.95 ? 1 : 0;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Duration(double us) {
  if (std::isnan(us)) return "-";
  const double a = std::fabs(us);
  if (a < 999.95) return Fixed4(us) + " us";  // not "1000.0 us"
  if (a < 999.95e3) return Fixed4(us / 1e3) + " ms";
  return Fixed4(us / 1e6) + " s";
}

TimeUnit UnitFor(double max_us) {
  if (!(max_us >= 1e4)) return {"us", 1};  // also NaN
  if (max_us < 1e7) return {"ms", 1e3};
  return {"s", 1e6};
}

TextTable::TextTable(std::vector<std::string> headers, size_t left_aligned_from)
    : headers_(std::move(headers)),
      left_aligned_from_(left_aligned_from),
      shorteners_(headers_.size(), ShortenMiddle) {}

void TextTable::UnitRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  units_ = std::move(cells);
  has_units_ = true;
}

void TextTable::Row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string_view TextTable::Separator(size_t column) const {
  return column < left_aligned_from_ ? " " : "  ";
}

std::string TextTable::Render(size_t indent, size_t width) const {
  const size_t last = headers_.size() - 1;
  const size_t first_left = std::min(left_aligned_from_, last);
  std::vector<size_t> full(headers_.size(), 0);  // widths of the unshortened cells
  for (size_t c = 0; c <= last; ++c) {
    full[c] = DisplayWidth(headers_[c]);
    for (const auto& row : rows_) full[c] = std::max(full[c], DisplayWidth(row[c]));
    if (has_units_) full[c] = std::max(full[c], DisplayWidth(units_[c]));
  }
  // Widths of the left-aligned columns before the last (a scope) when they start at column
  // `start`: each at most a third of what is left of the line. Returns where the last starts.
  std::vector<size_t> widths = full;
  auto fit_left_columns = [&](size_t start) {
    const size_t share = width > start ? (width - start) / 3 : 0;
    size_t used = start;
    for (size_t c = first_left; c < last; ++c) {
      const size_t cap = std::min(full[c], std::max(kMinLastColumn / 2, share));
      widths[c] = full[c];
      if (cap < full[c]) {  // as wide as its cells once shortened, which may be narrower
        widths[c] = DisplayWidth(headers_[c]);
        for (const auto& row : rows_) {
          widths[c] = std::max(widths[c], DisplayWidth(shorteners_[c](row[c], cap)));
        }
      }
      used += widths[c] + Separator(c + 1).size();
    }
    return used;
  };
  size_t right = indent;  // where the left-aligned columns start in a row
  for (size_t c = 0; c < first_left; ++c) right += full[c] + Separator(c + 1).size();
  bool own_line = false;
  size_t last_width = 0;  // no limit
  if (width > 0) {
    size_t used = fit_left_columns(right);
    size_t room = width > used ? width - used : 0;
    // Too narrow for the names (one would lose part of itself, not only its return type and
    // parameters): the left-aligned columns go on a line of their own.
    if (room < full[last] && room < kOwnLineBelow) {
      for (const auto& row : rows_) {
        const std::string cut = shorteners_[last](row[last], std::max(room, kMinLastColumn));
        if (cut.find(kEllipsis) != std::string::npos &&
            row[last].find(kEllipsis) == std::string::npos) {
          own_line = true;
          break;
        }
      }
    }
    if (own_line) {
      used = fit_left_columns(indent + 4);
      room = width > used ? width - used : 0;
    }
    last_width = std::max(room, kMinLastColumn);
  }
  std::string out;
  // The right-aligned cells of a row, or all of them when the row is one line.
  auto row_part = [&](const std::vector<std::string>& cells) {
    std::string text(indent, ' ');
    for (size_t c = 0; c < last; ++c) {
      if (c == first_left && own_line) break;
      const std::string cell = shorteners_[c](cells[c], widths[c]);
      const size_t pad = widths[c] - DisplayWidth(cell);
      if (c < left_aligned_from_) text.append(pad, ' ');
      text += cell;
      if (c >= left_aligned_from_) text.append(pad, ' ');
      text += Separator(c + 1);
    }
    if (!own_line) text += shorteners_[last](cells[last], last_width);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  };
  // The left-aligned cells of a row on their own line; nothing when they are all empty.
  auto own_line_part = [&](const std::vector<std::string>& cells) {
    if (std::all_of(cells.begin() + static_cast<std::ptrdiff_t>(first_left), cells.end(),
                    [](const std::string& cell) { return cell.empty(); })) {
      return;
    }
    std::string text(indent + 4, ' ');
    for (size_t c = first_left; c < last; ++c) {
      const std::string cell = shorteners_[c](cells[c], widths[c]);
      text += cell;
      text.append(widths[c] - DisplayWidth(cell), ' ');
      text += Separator(c + 1);
    }
    text += shorteners_[last](cells[last], last_width);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  };
  row_part(headers_);
  if (has_units_) row_part(units_);
  if (own_line) {
    own_line_part(headers_);
    if (has_units_) own_line_part(units_);
  }
  for (const auto& row : rows_) {
    row_part(row);
    if (own_line) own_line_part(row);
  }
  return out;
}

}  // namespace nodescope::cli
