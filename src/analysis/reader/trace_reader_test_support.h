// Helpers shared by the trace reader's tests (trace_reader_test.cc, trace_reader_windows_test.cc).
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/reader/trace_reader.h"

namespace nodescope::analysis {

// An owned copy of the fields a test looks at (the reader's string_views end with the call).
struct Seen {
  std::string ph, cat, name, scope;
  TraceId::Kind pid_kind = TraceId::Kind::kAbsent;
  int64_t pid = 0;
  std::string pid_text, tid_text;
  std::optional<double> ts, dur;
  std::optional<uint64_t> graph_id, node_id;
  std::optional<int64_t> correlation, external_id;
  uint64_t offset = 0;
  friend bool operator==(const Seen&, const Seen&) = default;
};

inline StatusOr<TraceMetadata> Read(std::string_view json, std::vector<Seen>* seen = nullptr,
                                    size_t window_bytes = TraceReadOptions().window_bytes) {
  TraceReadOptions options;
  options.window_bytes = window_bytes;
  return ReadTraceText(
      "trace.json", json,
      [seen](const TraceEvent& e) {
        if (seen != nullptr) {
          Seen s;
          s.ph = e.ph, s.cat = e.cat, s.name = e.name;
          s.scope = e.scope.value_or("");
          s.pid_kind = e.pid.kind, s.pid = e.pid.number;
          s.pid_text = e.pid.text, s.tid_text = e.tid.text;
          s.ts = e.ts_us, s.dur = e.dur_us;
          s.graph_id = e.graph_id, s.node_id = e.graph_node_id;
          s.correlation = e.correlation, s.external_id = e.external_id;
          s.offset = e.offset;
          seen->push_back(s);
        }
        return OkStatus();
      },
      options);
}

inline std::string WriteTemp(const std::string& content) {
  char tmpl[] = "/tmp/nodescope-reader-XXXXXX";
  int fd = mkstemp(tmpl);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(tmpl, std::ios::binary) << content;
  return tmpl;
}

// The status of reading `json`, which must fail with DATA_LOSS.
inline std::string ErrorOf(std::string_view json) {
  auto r = Read(json);
  EXPECT_FALSE(r.ok()) << json;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
  return r.status().message();
}

}  // namespace nodescope::analysis
