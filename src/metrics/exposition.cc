#include "metrics/exposition.h"

#include <charconv>
#include <cmath>

#include "base/utf8_text.h"

namespace nodescope::metrics {

const std::vector<double>& DurationBuckets() {
  // Never destroyed: a traced process's metrics feed and an in-process session's threads use
  // them from exit handlers, which may run after static destructors of later-made statics.
  static const std::vector<double>* b =
      new std::vector<double>{1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3,
                              2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1,  0.2,  0.5,  1.0};
  return *b;
}

namespace {
// Ill-formed UTF-8 bytes become U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += s[i++];
      continue;
    }
    uint32_t cp = 0;
    const size_t n = Utf8SequenceLength(s, i, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}
}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  const std::string valid = ValidUtf8(value);
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), static_cast<long long>(v));
    return std::string(buf, r.ptr);
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

uint64_t HistogramValues::count() const {
  uint64_t n = 0;
  for (uint64_t b : buckets) n += b;
  return n;
}

void HistogramValues::Observe(double seconds, const std::vector<double>& bounds) {
  if (buckets.size() != bounds.size() + 1) buckets.assign(bounds.size() + 1, 0);
  size_t i = 0;
  while (i < bounds.size() && seconds > bounds[i]) ++i;  // le: value <= bound
  ++buckets[i];
  sum += seconds;
}

void HistogramValues::Add(const HistogramValues& other) {
  if (buckets.size() < other.buckets.size()) buckets.resize(other.buckets.size(), 0);
  for (size_t i = 0; i < other.buckets.size(); ++i) buckets[i] += other.buckets[i];
  sum += other.sum;
}

std::string ExpositionWriter::Take() {
  if (openmetrics_) text_ += "# EOF\n";
  return std::move(text_);
}

void ExpositionWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  constexpr std::string_view kTotal = "_total";
  if (openmetrics_ && type == "counter" && name.size() > kTotal.size() &&
      name.substr(name.size() - kTotal.size()) == kTotal) {
    name.remove_suffix(kTotal.size());
  }
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  for (char c : help) {  // HELP escapes backslash and newline only
    if (c == '\\') {
      text_ += "\\\\";
    } else if (c == '\n') {
      text_ += "\\n";
    } else {
      text_ += c;
    }
  }
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void ExpositionWriter::LabelSet(const Labels& labels, std::string_view le) {
  if (labels.empty() && le.empty()) return;
  text_ += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) text_ += ',';
    first = false;
    text_ += k;
    text_ += "=\"";
    text_ += EscapeLabelValue(v);
    text_ += '"';
  }
  if (!le.empty()) {
    if (!first) text_ += ',';
    text_ += "le=\"";
    text_ += le;
    text_ += '"';
  }
  text_ += '}';
}

void ExpositionWriter::Sample(std::string_view name, const Labels& labels, double value) {
  text_ += name;
  LabelSet(labels, {});
  text_ += ' ';
  text_ += FormatValue(value);
  text_ += '\n';
}

void ExpositionWriter::Histogram(std::string_view name, const Labels& labels,
                                 const std::vector<double>& bounds, const HistogramValues& values) {
  uint64_t cumulative = 0;
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i <= bounds.size(); ++i) {
    if (i < values.buckets.size()) cumulative += values.buckets[i];
    text_ += bucket;
    LabelSet(labels, i < bounds.size() ? FormatValue(bounds[i]) : std::string("+Inf"));
    text_ += ' ';
    text_ += FormatValue(static_cast<double>(cumulative));
    text_ += '\n';
  }
  Sample(std::string(name) + "_sum", labels, values.sum);
  Sample(std::string(name) + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace nodescope::metrics
