// libFuzzer target: the trace reader on any bytes, read whole and in small windows (which must
// agree on valid JSON; most inputs are on one line, so windows are cut between tokens, not at
// newlines), with a small limit on the window too, then the alias check and the node series over
// it. See scripts/fuzz.sh.
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/stats/alias_check.h"
#include "analysis/stats/node_series.h"

namespace nodescope::analysis {
namespace {

// An owned copy of what the visitor sees.
struct Event {
  uint64_t offset = 0;
  std::string ph, cat, name, pid_text, tid_text;
  TraceId::Kind pid_kind = TraceId::Kind::kAbsent, tid_kind = TraceId::Kind::kAbsent;
  int64_t pid = 0, tid = 0;
  std::optional<double> ts, dur;
  std::optional<uint64_t> graph_id, node_id;
  std::optional<int64_t> correlation, external_id;
  std::optional<std::string> scope;
  friend bool operator==(const Event&, const Event&) = default;
};

struct Result {
  StatusOr<TraceMetadata> meta = InternalError("not read");
  std::vector<Event> events;
};

Result Read(std::string_view json, size_t window_bytes, AliasChecker* checker,
            size_t max_window_bytes = TraceReadOptions().max_window_bytes,
            size_t* peak_window_bytes = nullptr) {
  Result result;
  TraceReadOptions options;
  options.window_bytes = window_bytes;
  options.max_window_bytes = max_window_bytes;
  options.peak_window_bytes = peak_window_bytes;
  result.meta = ReadTraceText(
      "fuzz.json", json,
      [&](const TraceEvent& e) {
        Event c;
        c.offset = e.offset;
        c.ph = e.ph, c.cat = e.cat, c.name = e.name;
        c.pid_kind = e.pid.kind, c.pid = e.pid.number, c.pid_text = e.pid.text;
        c.tid_kind = e.tid.kind, c.tid = e.tid.number, c.tid_text = e.tid.text;
        c.ts = e.ts_us, c.dur = e.dur_us;
        c.graph_id = e.graph_id, c.node_id = e.graph_node_id;
        c.correlation = e.correlation, c.external_id = e.external_id;
        if (e.scope) c.scope = std::string(*e.scope);
        result.events.push_back(std::move(c));
        if (checker != nullptr) checker->Add(e);
        return OkStatus();
      },
      options);
  return result;
}

[[noreturn]] void Fail(const char* what, const Result& a, const Result& b) {
  std::fprintf(stderr,
               "trace_reader_fuzzer: %s\n  whole:    %s, %zu events\n  windowed: %s, %zu events\n",
               what, a.meta.ok() ? "ok" : a.meta.status().ToString().c_str(), a.events.size(),
               b.meta.ok() ? "ok" : b.meta.status().ToString().c_str(), b.events.size());
  std::abort();
}

// Whole and windowed reads agree on valid JSON. On invalid JSON they may not: On-Demand checks
// the values the reader reads, not those it skips (unused "args"), where a mismatched bracket
// can shift what follows differently depending on where a window starts.
void Check(std::string_view json, bool valid_json, const Result& whole, const Result& windowed) {
  // Bad input: DATA_LOSS naming the file, never anything else.
  for (const Result* r : {&whole, &windowed}) {
    // (gzip input: "fuzz.json (inflated): byte N: ..." for what is wrong in the inflated JSON)
    const std::string m = r->meta.ok() ? std::string() : r->meta.status().message();
    if (!r->meta.ok() &&
        (r->meta.status().code() != StatusCode::kDataLoss ||
         (m.rfind("fuzz.json: ", 0) != 0 && m.rfind("fuzz.json (inflated): ", 0) != 0))) {
      Fail("bad input gave an unexpected status", whole, windowed);
    }
  }
  if (!valid_json) return;
  if (whole.meta.ok() != windowed.meta.ok()) {
    Fail("whole and windowed reads disagree", whole, windowed);
  }
  if (!whole.meta.ok()) return;
  if (whole.events != windowed.events || whole.meta->events != windowed.meta->events ||
      whole.meta->withheld != windowed.meta->withheld ||
      whole.meta->dropped_total != windowed.meta->dropped_total ||
      whole.meta->has_nodescope != windowed.meta->has_nodescope) {
    Fail("whole and windowed reads saw different events", whole, windowed);
  }
  for (const Event& e : whole.events) {
    if (e.offset >= json.size() || json[e.offset] != '{') Fail("event offset", whole, windowed);
  }
}

}  // namespace
}  // namespace nodescope::analysis

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nodescope::analysis;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  AliasChecker checker;
  const Result whole = Read(json, TraceReadOptions().window_bytes, &checker);
  if (whole.meta.ok()) (void)checker.Finish(*whole.meta);
  simdjson::dom::parser validator;
  simdjson::dom::element ignored;
  const bool valid_json = !validator.parse(data, size).get(ignored);
  // The smallest window, and one that depends on the input, cut the input in many places.
  Check(json, valid_json, whole, Read(json, 64, nullptr));
  Check(json, valid_json, whole, Read(json, 64 + size % 509, nullptr));
  // A small limit on the window: the buffer stays within it, and the reads agree unless an
  // event (or the trace's head or tail) does not fit in it.
  const size_t limit = 256 + size % 1021;
  size_t peak = 0;
  const Result limited = Read(json, 64, nullptr, limit, &peak);
  if (peak > limit + 128) Fail("the window outgrew its limit", whole, limited);
  if (limited.meta.ok() ||
      limited.meta.status().message().find(" is larger than ") == std::string::npos) {
    Check(json, valid_json, whole, limited);
  }
  (void)CollectNodeSeriesFromText("fuzz.json", json);
  return 0;
}
