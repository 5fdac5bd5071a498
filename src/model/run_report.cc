// The report line's writing and strict parsing (run_report.h).
#include "model/run_report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/atomic_file.h"
#include "base/diagnostics.h"
#include "base/env.h"

namespace nodescope::report {
namespace {

constexpr char kTraceKind[] = "trace";
constexpr char kEmptyKind[] = "empty";
constexpr char kErrorKind[] = "error";

void AppendEscaped(std::string_view text, std::string* out) {
  for (char c : text) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      *out += c;
    }
  }
}

StatusOr<std::string> Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (next == '\\') {
      out += '\\';
    } else if (next == 't') {
      out += '\t';
    } else if (next == 'n') {
      out += '\n';
    } else {
      return InvalidArgumentError("bad escape in a report value");
    }
    ++i;
  }
  return out;
}

// The numeric fields of a trace line, in order, and where each goes.
std::array<std::pair<const char*, uint64_t*>, 11> Numbers(Line& l) {
  return {{{"pid", &l.pid},
           {"gpu_events", &l.summary.gpu_events},
           {"kernels", &l.summary.kernels},
           {"memcpys", &l.summary.memcpys},
           {"memsets", &l.summary.memsets},
           {"graph_events", &l.summary.graph_events},
           {"api_calls", &l.summary.api_calls},
           {"dropped", &l.summary.dropped},
           {"buffers_refused", &l.summary.buffers_refused},
           {"flush_ms", &l.flush_ms},
           {"write_ms", &l.write_ms}}};
}

}  // namespace

std::string Format(const Line& line) {
  Line copy = line;
  std::string out;
  if (line.kind == Line::Kind::kTrace) {
    out = kTraceKind;
    for (const auto& [key, value] : Numbers(copy)) {
      out += std::string("\t") + key + "=" + std::to_string(*value);
      if (value == &copy.pid) out += "\trank=" + (line.rank >= 0 ? std::to_string(line.rank) : "");
    }
    out += "\tpath=";
    AppendEscaped(line.path, &out);
  } else if (line.kind == Line::Kind::kEmpty) {
    out = std::string(kEmptyKind) + "\tpid=" + std::to_string(line.pid) +
          "\tapi_calls=" + std::to_string(line.summary.api_calls);
  } else {
    out = std::string(kErrorKind) + "\tpid=" + std::to_string(line.pid) + "\tmessage=";
    AppendEscaped(line.message, &out);
  }
  out += '\n';
  return out;
}

StatusOr<Line> Parse(std::string_view text) {
  if (text.size() > kMaxLineBytes) return InvalidArgumentError("report line too long");
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t tab = text.find('\t', start);
    fields.push_back(text.substr(start, tab == std::string_view::npos ? text.npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  Line line;
  if (fields[0] == kTraceKind && fields.size() > 2) {
    // rank=R, the one field that may be empty: checked and taken out, the rest as before.
    std::string_view rank = fields[2];
    if (rank.substr(0, 5) != "rank=")
      return InvalidArgumentError("expected rank= in a report line");
    if (rank.size() > 5) {
      StatusOr<uint64_t> r = ParseDecimal(rank.substr(5), 0, INT32_MAX);
      if (!r.ok()) return InvalidArgumentError("rank is " + r.status().message());
      line.rank = static_cast<int64_t>(*r);
    }
    fields.erase(fields.begin() + 2);
  }
  std::vector<std::pair<std::string_view, uint64_t*>> numbers;
  std::string_view text_key;
  std::string* text_value = nullptr;
  if (fields[0] == kTraceKind) {
    line.kind = Line::Kind::kTrace;
    for (const auto& [key, value] : Numbers(line)) numbers.emplace_back(key, value);
    text_key = "path";
    text_value = &line.path;
  } else if (fields[0] == kEmptyKind) {
    line.kind = Line::Kind::kEmpty;
    numbers = {{"pid", &line.pid}, {"api_calls", &line.summary.api_calls}};
  } else if (fields[0] == kErrorKind) {
    line.kind = Line::Kind::kError;
    numbers.emplace_back("pid", &line.pid);
    text_key = "message";
    text_value = &line.message;
  } else {
    return InvalidArgumentError("not a report line");
  }
  if (fields.size() != numbers.size() + (text_value != nullptr ? 2 : 1)) {
    return InvalidArgumentError("a report line with the wrong number of fields");
  }
  for (size_t i = 0; i < numbers.size(); ++i) {
    std::string_view f = fields[i + 1];
    std::string_view key = numbers[i].first;
    if (f.substr(0, key.size()) != key || f.substr(key.size(), 1) != "=") {
      return InvalidArgumentError("expected " + std::string(key) + "= in a report line");
    }
    StatusOr<uint64_t> v = ParseDecimal(f.substr(key.size() + 1), 0, UINT64_MAX);
    if (!v.ok()) return InvalidArgumentError(std::string(key) + " is " + v.status().message());
    *numbers[i].second = *v;
  }
  if (text_value != nullptr) {  // the last field, free text
    std::string_view last = fields.back();
    if (last.substr(0, text_key.size()) != text_key || last.substr(text_key.size(), 1) != "=") {
      return InvalidArgumentError("expected " + std::string(text_key) + "= in a report line");
    }
    ASSIGN_OR_RETURN(*text_value, Unescape(last.substr(text_key.size() + 1)));
  }
  if (line.pid == 0 || line.pid > 0x7fffffff) return InvalidArgumentError("pid out of range");
  return line;
}

std::string TracePathFor(const char* output, const char* root_pid, long pid, int64_t rank) {
  std::string pid_text = std::to_string(pid);
  if (rank >= 0) pid_text = "rank" + std::to_string(rank);  // names the file instead of the pid
  if (output == nullptr || *output == '\0') return "nodescope-" + pid_text + ".json";
  std::string out = output;
  if (rank < 0 && (root_pid == nullptr || *root_pid == '\0' || pid_text == root_pid)) return out;
  StatusOr<OutputKind> kind = ClassifyOutput(out);
  if (kind.ok() && *kind == OutputKind::kDirect) return "nodescope-" + pid_text + ".json";
  // A child process of the traced program: same folder and stem, its own pid.
  size_t slash = out.rfind('/');
  size_t dot = out.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return out + "-" + pid_text;
  }
  return out.substr(0, dot) + "-" + pid_text + out.substr(dot);
}

int ReportFdFromEnv() {
  uint64_t fd = UINT64_MAX;
  Status s = ReadEnvDecimal(kFdVariable, 0, INT32_MAX, &fd);
  if (!s.ok()) {
    LogWarning("report_fd_invalid", "%s (no summary goes to nodescope run)", s.message().c_str());
    return -1;
  }
  struct stat st {};
  if (fd == UINT64_MAX || fstat(static_cast<int>(fd), &st) != 0 || !S_ISFIFO(st.st_mode)) {
    return -1;
  }
  return static_cast<int>(fd);
}

void WriteLine(int fd, const Line& line) {
  if (fd < 0) return;
  std::string text = Format(line);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace nodescope::report
