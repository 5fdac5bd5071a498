#include "metrics/figures_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace nodescope::metrics {
namespace {

void Escaped(std::string_view s, std::string& out) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

bool Unescaped(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      *out += s[i];
      continue;
    }
    if (++i == s.size()) return false;
    if (s[i] == '\\') {
      *out += '\\';
    } else if (s[i] == 't') {
      *out += '\t';
    } else if (s[i] == 'n') {
      *out += '\n';
    } else {
      return false;
    }
  }
  return true;
}

bool Uint(std::string_view s, uint64_t* v) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool Double(std::string_view s, double* v) {
  if (s.empty() || s.size() > 64) return false;
  const std::string text(s);
  char* end = nullptr;
  *v = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*v);
}

void Histogram(const HistogramValues& h, std::string& out) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", h.sum);
  out += buf;
  out += '\t';
  for (size_t i = 0; i < h.buckets.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(h.buckets[i]);
  }
}

bool ParseHistogram(std::string_view sum, std::string_view buckets, HistogramValues* h) {
  if (!Double(sum, &h->sum)) return false;
  h->buckets.clear();
  while (true) {
    const size_t comma = buckets.find(',');
    uint64_t n = 0;
    if (!Uint(buckets.substr(0, comma), &n)) return false;
    h->buckets.push_back(n);
    if (comma == std::string_view::npos) break;
    buckets.remove_prefix(comma + 1);
  }
  return h->buckets.size() == DurationBuckets().size() + 1;
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t tab = line.find('\t');
    out.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return out;
    line.remove_prefix(tab + 1);
  }
}

}  // namespace

std::string EncodeFigures(const ProcessFigures& f) {
  std::string out;
  out += "rank\t";
  Escaped(f.rank, out);
  // Appended piece by piece: g++ 12 -Wrestrict warns on "literal" + std::to_string(...).
  for (const auto& [key, value] : {std::pair<const char*, uint64_t>{"\nseen\t", f.replays_seen},
                                   {"\nkept\t", f.replays_kept},
                                   {"\ndropped\t", f.dropped}}) {
    out += key;
    out += std::to_string(value);
  }
  out += '\n';
  for (const auto& [reason, n] : f.withheld) {
    out += "withheld\t";
    Escaped(reason, out);
    out += '\t';
    out += std::to_string(n);
    out += '\n';
  }
  for (const NodeFigures& n : f.nodes) {
    out += "node\t";
    Escaped(n.graph, out);
    out += '\t';
    out += std::to_string(n.node);
    out += '\t';
    Escaped(n.kernel, out);
    out += '\t';
    Escaped(n.device, out);
    out += '\t';
    Histogram(n.durations, out);
    out += '\n';
  }
  for (const GraphFigures& g : f.graphs) {
    out += "graph\t";
    Escaped(g.graph, out);
    out += '\t';
    Escaped(g.device, out);
    out += '\t';
    Histogram(g.replays, out);
    out += '\n';
  }
  return out;
}

StatusOr<ProcessFigures> DecodeFigures(std::string_view text, uint64_t pid) {
  ProcessFigures f;
  f.pid = pid;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return InvalidArgumentError("figures: no final newline");
    const std::vector<std::string_view> v = Fields(text.substr(0, nl));
    text.remove_prefix(nl + 1);
    const std::string_view kind = v[0];
    bool ok = false;
    if (kind == "rank" && v.size() == 2) {
      ok = Unescaped(v[1], &f.rank);
    } else if ((kind == "seen" || kind == "kept" || kind == "dropped") && v.size() == 2) {
      ok = Uint(v[1], kind == "seen"   ? &f.replays_seen
                      : kind == "kept" ? &f.replays_kept
                                       : &f.dropped);
    } else if (kind == "withheld" && v.size() == 3) {
      std::string reason;
      uint64_t n = 0;
      ok = Unescaped(v[1], &reason) && Uint(v[2], &n);
      if (ok) f.withheld.emplace_back(std::move(reason), n);
    } else if (kind == "node" && v.size() == 7) {
      NodeFigures n;
      uint64_t ordinal = 0;
      ok = Unescaped(v[1], &n.graph) && Uint(v[2], &ordinal) && ordinal <= UINT32_MAX &&
           Unescaped(v[3], &n.kernel) && Unescaped(v[4], &n.device) &&
           ParseHistogram(v[5], v[6], &n.durations);
      n.node = static_cast<uint32_t>(ordinal);
      if (ok) f.nodes.push_back(std::move(n));
    } else if (kind == "graph" && v.size() == 5) {
      GraphFigures g;
      ok = Unescaped(v[1], &g.graph) && Unescaped(v[2], &g.device) &&
           ParseHistogram(v[3], v[4], &g.replays);
      if (ok) f.graphs.push_back(std::move(g));
    }
    if (!ok) return InvalidArgumentError("figures: line " + std::to_string(number) + " malformed");
  }
  return f;
}

}  // namespace nodescope::metrics
