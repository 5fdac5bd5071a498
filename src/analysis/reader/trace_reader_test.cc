// Tests of the trace reader: fields and metadata, torch's string pids, and bad input of every kind.
#include "analysis/reader/trace_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nodescope::analysis {
namespace {

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

StatusOr<TraceMetadata> Read(std::string_view json, std::vector<Seen>* seen = nullptr,
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

std::string WriteTemp(const std::string& content) {
  char tmpl[] = "/tmp/nodescope-reader-XXXXXX";
  int fd = mkstemp(tmpl);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(tmpl, std::ios::binary) << content;
  return tmpl;
}

TEST(TraceReader, ReadsEventFieldsAndMetadata) {
  const std::string json = R"({
  "schemaVersion": 1,
  "nodescope": {"version":"0.1.0","dropped_records":{"vendor_dropped":3,"total":5},
                "attribution":{"mode":"native","fresh_graph_ids":2,
                               "withheld":{"exec_changed":7,"unknown_exec":0}},
                "graph_execs":1},
  "traceEvents": [
  {"ph":"X","cat":"kernel","name":"k\"1\"","pid":0,"tid":7,"ts":20.5,"dur":5,
   "args":{"correlation":10,"External id":-3,"graph id":5,"graph node id":18446744073709551615,
           "scope":"step/fwd","grid":[1,2,3]}},
  {"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU 0"}}
  ],
  "traceName": "x"
})";
  std::vector<Seen> seen;
  auto meta = Read(json, &seen);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_TRUE(meta->has_nodescope);
  EXPECT_EQ(meta->events, 2u);
  EXPECT_EQ(meta->dropped_total, 5u);
  ASSERT_EQ(meta->withheld.size(), 2u);
  EXPECT_EQ(meta->withheld[0].first, "exec_changed");
  EXPECT_EQ(meta->withheld[0].second, 7u);
  ASSERT_EQ(seen.size(), 2u);
  const Seen& k = seen[0];
  EXPECT_EQ(k.ph, "X");
  EXPECT_EQ(k.cat, "kernel");
  EXPECT_EQ(k.name, "k\"1\"");
  EXPECT_EQ(k.pid_kind, TraceId::Kind::kNumber);
  EXPECT_EQ(k.pid, 0);
  EXPECT_EQ(k.ts, 20.5);
  EXPECT_EQ(k.dur, 5.0);
  EXPECT_EQ(k.graph_id, 5u);
  EXPECT_EQ(k.node_id, 18446744073709551615ull);
  EXPECT_EQ(k.correlation, 10);
  EXPECT_EQ(k.external_id, -3);
  EXPECT_EQ(k.scope, "step/fwd");
  EXPECT_EQ(json[k.offset], '{');
  EXPECT_EQ(json.substr(k.offset, 10), "{\"ph\":\"X\",");
  EXPECT_EQ(seen[1].ph, "M");
  EXPECT_FALSE(seen[1].graph_id.has_value());
  EXPECT_FALSE(seen[1].ts.has_value());
}

TEST(TraceReader, AcceptsTorchStringPidsAndNoMetadata) {
  auto meta = Read(R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":"Spans","tid":"Traces","ts":1,"dur":2},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":18446744073709551615,"ts":1697071282463498.25,
     "dur":3.5,"args":{"External id":4}}]})");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_FALSE(meta->has_nodescope);
  EXPECT_TRUE(meta->withheld.empty());
  EXPECT_FALSE(meta->dropped_total.has_value());

  std::vector<Seen> seen;
  ASSERT_TRUE(Read(R"({"traceEvents":[{"pid":"Spans","tid":"Traces"}]})", &seen).ok());
  EXPECT_EQ(seen[0].pid_kind, TraceId::Kind::kString);
  EXPECT_EQ(seen[0].pid_text, "Spans");
  EXPECT_EQ(seen[0].tid_text, "Traces");
}

TEST(TraceReader, AcceptsTheJsonArrayFormatAndEmptyEvents) {
  std::vector<Seen> seen;
  ASSERT_TRUE(Read(R"([{"ph":"X","cat":"kernel","name":"a"}])", &seen).ok());
  EXPECT_EQ(seen.size(), 1u);
  auto meta = Read(R"({"traceEvents":[]})");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->events, 0u);
}

TEST(TraceReader, VisitorErrorStopsReading) {
  int calls = 0;
  auto r = ReadTraceText("t.json", R"({"traceEvents":[{},{},{}]})", [&](const TraceEvent&) {
    return ++calls == 2 ? InternalError("stop") : OkStatus();
  });
  EXPECT_EQ(r.status().message(), "stop");
  EXPECT_EQ(calls, 2);
}

// The status of reading `json`, which must fail with DATA_LOSS.
std::string ErrorOf(std::string_view json) {
  auto r = Read(json);
  EXPECT_FALSE(r.ok()) << json;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
  return r.status().message();
}

TEST(TraceReader, WrongTypesNameTheKeyAndTheByte) {
  std::string json = R"({"traceEvents":[{"ph":"X","args":{"graph id":"5"}}]})";
  EXPECT_EQ(ErrorOf(json), "trace.json: byte " + std::to_string(json.find("\"5\"")) +
                               ": \"graph id\" is a string, expected an unsigned integer");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"args":{"graph node id":-1}}]})"),
            "trace.json: byte 41: \"graph node id\" is -1, expected an unsigned 64-bit integer");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"args":{"graph id":1.5}}]})"),
            "trace.json: byte 36: \"graph id\" is 1.5, expected an unsigned 64-bit integer");
  EXPECT_NE(
      ErrorOf(R"({"traceEvents":[{"ts":"12"}]})").find("\"ts\" is a string, expected a number"),
      std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"name":7}]})").find("\"name\" is a number"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"pid":[1]}]})").find("\"pid\" is an array, expected an"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"args":[]}]})").find("\"args\" is an array"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"args":{"graph id":null}}]})").find("is null"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[1]})").find("an element of \"traceEvents\" is a number"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(R"({"traceEvents":{}})").find("\"traceEvents\" is an object, expected an array"),
      std::string::npos);
  EXPECT_NE(ErrorOf(R"({"nodescope":{"dropped_records":{"total":"x"}},"traceEvents":[]})")
                .find("\"total\" is a string"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"nodescope":{"attribution":{"withheld":{"r":-2}}},"traceEvents":[]})")
                .find("\"r\" is -2"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"nodescope":{"attribution":{"withheld":[]}},"traceEvents":[]})")
                .find("\"withheld\" is an array"),
            std::string::npos);
}

TEST(TraceReader, HugeNumbers) {
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"args":{"graph node id":18446744073709551616}}]})")
                .find("\"graph node id\" is 18446744073709551616, expected an unsigned 64-bit"),
            std::string::npos);
  std::string long_number(5000, '9');
  std::string message = ErrorOf(R"({"traceEvents":[{"args":{"graph id":)" + long_number + "}}]}");
  EXPECT_NE(message.find("\"graph id\" is 9999"), std::string::npos) << message;
  EXPECT_LT(message.size(), 200u);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"ts":1e999}]})").find("\"ts\" is 1e999"),
            std::string::npos);
  // Large but valid: pids above INT64_MAX keep their bits, timestamps are doubles.
  EXPECT_TRUE(Read(R"({"traceEvents":[{"pid":18446744073709551615,"ts":1e300}]})").ok());
}

TEST(TraceReader, MalformedInputGivesAnOffsetOrAReason) {
  EXPECT_EQ(ErrorOf(""), "trace.json: the file is empty");
  EXPECT_NE(ErrorOf("   \n").find("no JSON value"), std::string::npos);
  EXPECT_NE(ErrorOf("hello world").find("trace.json: "), std::string::npos);
  EXPECT_NE(ErrorOf("42").find("the trace is a number, expected a JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf(R"("traceEvents")").find("the trace is a string"), std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"schemaVersion":1,"traceEvents_":[]})"),
            "trace.json: no \"traceEvents\" array in the top-level object (not a Chrome trace?)");
  EXPECT_NE(ErrorOf(R"({"traceEvents":[]} {})").find("unexpected content after"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"ph":"X",}]})").find("byte "), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"ph" "X"}]})").find("byte "), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"ph":"X"})").find("truncated"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"ph":"X)").find("string is never closed"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"traceEvents":[{"name":"bad \q escape"}]})").find("\"name\": invalid"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("{\"traceEvents\":[{\"name\":\"\xC3\x28\"}]}"),
            "trace.json: byte 25: invalid UTF-8");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ph":"X"})"),
            "trace.json: byte 26 (end of file): the JSON ends before its arrays and objects are "
            "closed (truncated file?)");
  EXPECT_NE(ErrorOf("{\"traceEvents\":[{\"ph\":\"X\"},\n").find("byte 28 (end of file)"),
            std::string::npos);
  // Deep nesting where the reader looks and where it skips: an error or a result, never a crash.
  std::string deep = std::string(5000, '[') + std::string(5000, ']');
  EXPECT_NE(ErrorOf(R"({"traceEvents":)" + deep + "}").find("is an array, expected an object"),
            std::string::npos);
  auto skipped = Read(R"({"traceEvents":[{"args":{"grid":)" + deep + "}}]}");
  EXPECT_TRUE(skipped.ok() || skipped.status().code() == StatusCode::kDataLoss);
}

TEST(TraceReader, SyntaxErrorsPointAtTheirByte) {
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ph":"X",}]})"),
            "trace.json: byte 26: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ph" "X"}]})"), "trace.json: byte 22: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ph":"X"}]}})"),
            "trace.json: byte 28: unexpected content after the end of the trace");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ph":"X"}] "x":1})"),
            "trace.json: byte 28: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ts":tru}]})"), "trace.json: byte 22: not valid JSON here");
  // Found by the fuzzer: a string value followed by ':' was skipped as if it were a key.
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"name":"x" : 1}]})"),
            "trace.json: byte 28: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"pid":"x" : 1}]})"),
            "trace.json: byte 27: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"args":{"scope":"x":1}}]})"),
            "trace.json: byte 36: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"ts":1 : 1}]})"),
            "trace.json: byte 24: not valid JSON here");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"name":"x" "a"}]})"),
            "trace.json: byte 28: not valid JSON here");
}

// Every prefix of a real trace, and random corruptions of it, fail cleanly (run under ASan too).
TEST(TraceReader, EveryTruncationAndCorruptionFailsCleanly) {
  std::ifstream in(NODESCOPE_EXPORT_TESTDATA_DIR "/sample.json", std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string sample = buf.str();
  ASSERT_GT(sample.size(), 1000u);
  ASSERT_TRUE(Read(sample).ok());
  size_t end = sample.find_last_not_of(" \n");
  for (size_t n = 0; n <= end; ++n) {
    auto r = Read(std::string_view(sample).substr(0, n));
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes was accepted";
    ASSERT_EQ(r.status().code(), StatusCode::kDataLoss);
  }
  std::mt19937 rng(12345);
  const char bytes[] = "{}[]\",:0-9eE.\\ntfu\x80\xff";
  for (int i = 0; i < 3000; ++i) {
    std::string corrupt = sample;
    for (int k = 0; k < 3; ++k) {
      corrupt[rng() % corrupt.size()] = bytes[rng() % (sizeof(bytes) - 1)];
    }
    auto r = Read(corrupt);  // may or may not be valid: it must not crash or hang
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    }
  }
}

TEST(TraceReader, ReadsFiles) {
  std::string json =
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","args":{"graph id":1}}]})";
  std::string path = WriteTemp(json);
  int events = 0;
  auto meta = ReadTraceFile(path, [&](const TraceEvent& e) {
    EXPECT_EQ(e.name, "k");
    ++events;
    return OkStatus();
  });
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(events, 1);
  unlink(path.c_str());

  // A file of exactly one page, and one byte short of it.
  long page = sysconf(_SC_PAGESIZE);
  std::string exact = R"({"traceEvents":[],"pad":")";
  exact += std::string(static_cast<size_t>(page) - exact.size() - 2, 'x') + "\"}";
  ASSERT_EQ(exact.size(), static_cast<size_t>(page));
  path = WriteTemp(exact);
  EXPECT_TRUE(ReadTraceFile(path, [](const TraceEvent&) { return OkStatus(); }).ok());
  // The same file cut short in its last bytes.
  std::ofstream(path, std::ios::binary) << exact.substr(0, exact.size() - 1);
  auto cut = ReadTraceFile(path, [](const TraceEvent&) { return OkStatus(); });
  EXPECT_EQ(cut.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(cut.status().message().find(path + ": "), std::string::npos);
  unlink(path.c_str());
}

TEST(TraceReader, ProgressReportsFileBytesAfterEachWindow) {
  std::string json = "{\"traceEvents\":[\n";
  for (int i = 0; i < 200; ++i)
    json += R"({"ph":"X","cat":"kernel","name":"k"},)"
            "\n";
  json += "{}]}\n";
  const std::string path = WriteTemp(json);
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  TraceReadOptions options;
  options.window_bytes = 512;
  options.progress = [&](uint64_t read, uint64_t size) { calls.emplace_back(read, size); };
  ASSERT_TRUE(ReadTraceFile(
                  path, [](const TraceEvent&) { return OkStatus(); }, options)
                  .ok());
  ASSERT_GE(calls.size(), 5u);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  EXPECT_EQ(calls.back(), std::make_pair(uint64_t{json.size()}, uint64_t{json.size()}));
  unlink(path.c_str());
}

TEST(TraceReader, FileErrorsNameTheFile) {
  auto visit = [](const TraceEvent&) { return OkStatus(); };
  std::string empty = WriteTemp("");
  auto r = ReadTraceFile(empty, visit);
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.status().message(), empty + ": the file is empty");
  unlink(empty.c_str());

  r = ReadTraceFile("/nonexistent/trace.json", visit);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("/nonexistent/trace.json"), std::string::npos);

  r = ReadTraceFile("/tmp", visit);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "/tmp: is a directory");

  r = ReadTraceFile("/dev/null", visit);  // a character device: read, not mapped
  EXPECT_EQ(r.status().message(), "/dev/null: the file is empty");
}

TEST(TraceReader, ReadsAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string json = R"({"traceEvents":[{"name":"from a pipe"}]})";
  ASSERT_EQ(write(fds[1], json.data(), json.size()), static_cast<ssize_t>(json.size()));
  close(fds[1]);
  std::string name;
  auto r = ReadTraceFile("/dev/fd/" + std::to_string(fds[0]), [&](const TraceEvent& e) {
    name = e.name;
    return OkStatus();
  });
  close(fds[0]);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(name, "from a pipe");
}

TEST(TraceReader, ReadsTheWritersSample) {
  int kernels = 0, keyed = 0;
  auto meta = ReadTraceFile(NODESCOPE_EXPORT_TESTDATA_DIR "/sample.json", [&](const TraceEvent& e) {
    if (e.cat == "kernel") ++kernels;
    if (e.graph_node_id.has_value()) ++keyed;
    return OkStatus();
  });
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(kernels, 4);
  EXPECT_EQ(keyed, 2);
  EXPECT_EQ(meta->dropped_total, 5u);
}

// A trace as torch.profiler writes it: events over several lines, nested args, escapes, string
// pids, numbers of every form; "nodescope" after the events. Or as a bare JSON array.
std::string PrettyTrace(int events, bool array_format = false) {
  std::string out = array_format ? "[\n" : R"J({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320}
  ],
  "traceEvents": [
)J";
  for (int i = 0; i < events; ++i) {
    const std::string n = std::to_string(i);
    if (i > 0) out += ",\n";
    switch (i % 4) {
      case 0:
        out += R"J(  {
    "ph": "X", "cat": "kernel", "name": "void gemm<)J" +
               n + R"J(>(float*)", "pid": 0, "tid": 7,
    "ts": 1697071282463498.25, "dur": 3.5,
    "args": {
      "External id": )J" +
               n + R"J(, "device": 0, "grid": [264, 1, 1], "block": [128, 1, 1],
      "graph id": 5, "graph node id": 214748364)J" +
               std::to_string(i % 10) + R"J(,
      "scope": "step/fwd \"layer\" )J" +
               n + R"J("
    }
  })J";
        break;
      case 1:
        out +=
            R"J(  {"ph": "X", "cat": "cpu_op", "name": "aten::mm \u00e9\n\\ )J" + n +
            R"J(", "pid": "Spans", "tid": "Traces", "ts": -0.5, "dur": 1e3,
   "args": {"correlation": -)J" +
            n +
            R"J(, "Input Dims": [[8, 16], [16, 8]], "nested": {"a": {"b": [true, false, null]}}}})J";
        break;
      case 2:
        out +=
            R"J(  {"ph": "s", "id": )J" + n +
            R"J(, "pid": 18446744073709551615, "tid": -3, "ts": 12.000, "cat": "ac2g", "name": "ac2g"})J";
        break;
      default:
        out += R"J(  {"ph":"f","id":)J" + n +
               R"J(,"pid":0,"tid":7,"ts":1.5e300,"cat":"ac2g","name":"","bp":"e"})J";
    }
  }
  if (array_format) return out + "\n]\n";
  return out + R"J(
  ],
  "nodescope": {"dropped_records": {"total": 7}, "attribution": {"withheld": {"exec_changed": 3}}},
  "traceName": "t"
}
)J";
}

std::string SampleTrace() {
  std::ifstream in(NODESCOPE_EXPORT_TESTDATA_DIR "/sample.json", std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

constexpr size_t kWindows[] = {64, 65, 97, 128, 200, 333, 512, 1000, 4096};

// Windows cut inside events, strings and nested values; each event is read once, as it is.
TEST(TraceReader, WindowsGiveTheSameEventsAsOneDocument) {
  std::string minified = PrettyTrace(40);
  std::erase(minified, '\n');
  // Found by the fuzzer: the event a window starts with was skipped in every array of it.
  std::string twice = PrettyTrace(20);
  twice.insert(twice.find("  ],\n  \"nodescope\""),
               "  ],\n  \"traceEvents\": [\n{\"name\": \"b\"}\n");
  for (const std::string& json :
       {SampleTrace(), PrettyTrace(80), PrettyTrace(80, /*array_format=*/true), minified, twice}) {
    std::vector<Seen> whole;
    auto expected = Read(json, &whole);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_GT(json.size(), 4 * kWindows[0]);
    for (size_t window : kWindows) {
      std::vector<Seen> seen;
      auto meta = Read(json, &seen, window);
      ASSERT_TRUE(meta.ok()) << "window " << window << ": " << meta.status().ToString();
      EXPECT_EQ(meta->events, expected->events) << window;
      EXPECT_EQ(meta->has_nodescope, expected->has_nodescope) << window;
      EXPECT_EQ(meta->withheld, expected->withheld) << window;
      EXPECT_EQ(meta->dropped_total, expected->dropped_total) << window;
      ASSERT_EQ(seen.size(), whole.size()) << window;
      for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], whole[i]) << window << " " << i;
    }
  }
  // What the events hold, once (the comparison above is only as good as this).
  std::vector<Seen> seen;
  auto meta = Read(PrettyTrace(80), &seen, 64);
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->dropped_total, 7u);
  ASSERT_EQ(seen.size(), 80u);
  EXPECT_EQ(seen[77].name, "aten::mm \u00e9\n\\ 77");
  EXPECT_EQ(seen[77].pid_text, "Spans");
  EXPECT_EQ(seen[77].dur, 1000.0);
  EXPECT_EQ(seen[77].correlation, -77);
  EXPECT_EQ(seen[76].scope, "step/fwd \"layer\" 76");
  EXPECT_EQ(seen[76].node_id, 2147483646u);
  EXPECT_EQ(seen[76].ts, 1697071282463498.25);
  EXPECT_EQ(seen[78].pid, -1);  // 18446744073709551615 keeps its bits
  EXPECT_EQ(seen[79].ts, 1.5e300);
}

// Errors far into the trace read the same, whatever the window: the window grows to the end.
TEST(TraceReader, WindowsGiveTheSameErrors) {
  const std::string good = PrettyTrace(80);
  auto replace_late = [&good](std::string_view from, std::string_view to) {
    std::string bad = good;
    size_t at = bad.rfind(from, bad.size() - 600);
    bad.replace(at, from.size(), to);
    return bad;
  };
  std::string raw_tab = good;
  raw_tab.insert(raw_tab.rfind("aten::mm"), "\t");
  std::string bad_utf8 = good;
  bad_utf8.insert(bad_utf8.rfind("aten::mm"), "\xC3\x28");
  for (const std::string& bad :
       {replace_late("\"graph id\": 5", "\"graph id\": \"5\""),
        replace_late("\"dur\": 3.5", "\"dur\": 3.5.1"), replace_late("},\n", "}\n"),
        replace_late("\"ts\": -0.5", "\"ts\": tru"), replace_late("\"cat\"", "\"cat\" :: "),
        replace_late("\\\"layer", "\\qlayer"), replace_late("  {", "  ["), raw_tab, bad_utf8,
        good + "x", good.substr(0, good.size() - 10)}) {
    const std::string expected = ErrorOf(bad);
    EXPECT_NE(expected.find(": byte "), std::string::npos) << expected;
    for (size_t window : kWindows) {
      auto r = Read(bad, nullptr, window);
      ASSERT_FALSE(r.ok()) << window << ": " << expected;
      EXPECT_EQ(r.status().message(), expected) << "window " << window;
    }
  }
}

// Every truncation, read in small windows, fails as it does in one: with the same message.
TEST(TraceReader, EveryTruncationFailsTheSameInWindows) {
  const std::string json = PrettyTrace(12);
  for (size_t n = 0; n + 2 < json.size(); ++n) {
    const std::string_view cut = std::string_view(json).substr(0, n);
    auto whole = Read(cut);
    auto windowed = Read(cut, nullptr, 64);
    ASSERT_FALSE(whole.ok()) << n;
    ASSERT_FALSE(windowed.ok()) << n;
    ASSERT_EQ(windowed.status().message(), whole.status().message()) << n;
  }
}

TEST(TraceReader, AVisitorErrorInALaterWindowStopsReading) {
  int calls = 0;
  TraceReadOptions options;
  options.window_bytes = 100;
  auto r = ReadTraceText(
      "t.json", PrettyTrace(80),
      [&](const TraceEvent&) { return ++calls == 50 ? InternalError("stop") : OkStatus(); },
      options);
  EXPECT_EQ(r.status().message(), "stop");
  EXPECT_EQ(calls, 50);
}

TEST(TraceReader, ReadsALargeFileInWindows) {
  const std::string json = PrettyTrace(4000);
  std::vector<Seen> expected;
  ASSERT_TRUE(Read(json, &expected).ok());
  std::string path = WriteTemp(json);
  TraceReadOptions options;
  options.window_bytes = 4096;
  size_t i = 0;
  auto meta = ReadTraceFile(
      path,
      [&](const TraceEvent& e) {
        EXPECT_EQ(e.name, expected.at(i).name);
        EXPECT_EQ(e.offset, expected.at(i).offset);
        ++i;
        return OkStatus();
      },
      options);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(i, expected.size());
  EXPECT_EQ(meta->withheld.size(), 1u);
  unlink(path.c_str());
}

// Issue 9: windows were cut at newlines only, so a trace written on one line was held whole
// (858 MB for 383 MB), and bad JSON made the window double up to the whole file.

std::string OneLine(std::string json) {
  std::erase(json, '\n');
  return json;
}

// Names full of what a cut looks for: `},`, `:`, escaped quotes and backslashes.
std::string TrickyTrace(int events) {
  std::string out = R"({"traceEvents":[)";
  for (int i = 0; i < events; ++i) {
    if (i > 0) out += i % 3 == 0 ? ", " : ",";
    out += R"({"ph":"X","name":"f<{a},{b}>::g(\"},{\"\\\\\"x\": [1, 2]}, \\)" + std::to_string(i) +
           R"(","ts":)" + std::to_string(i) + R"(.5,"args":{"graph id":1,"graph node id":)" +
           std::to_string(i % 7) + R"(,"grid":[1,{"a":[]}]}})";
  }
  return out + R"(],"nodescope":{"dropped_records":{"total":2}}})";
}

StatusOr<TraceMetadata> ReadWith(std::string_view json, std::vector<Seen>* seen,
                                 const TraceReadOptions& options) {
  return ReadTraceText(
      "trace.json", json,
      [seen](const TraceEvent& e) {
        Seen s;
        s.ph = e.ph, s.name = e.name, s.ts = e.ts_us, s.node_id = e.graph_node_id;
        s.offset = e.offset;
        seen->push_back(s);
        return OkStatus();
      },
      options);
}

TEST(TraceReader, OneLineTracesReadInSmallWindowsWithinTheLimit) {
  constexpr size_t kLimit = 4096;
  for (const std::string& json : {OneLine(PrettyTrace(120)), OneLine(PrettyTrace(120, true)),
                                  OneLine(SampleTrace()), TrickyTrace(60)}) {
    std::vector<Seen> whole;
    auto expected = ReadWith(json, &whole, {});
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_GT(json.size(), 4 * size_t{1000});
    for (size_t window = 64; window <= 1200; window += window < 300 ? 1 : 37) {
      std::vector<Seen> seen;
      size_t peak = 0;
      TraceReadOptions options;
      options.window_bytes = window;
      options.max_window_bytes = kLimit;
      options.peak_window_bytes = &peak;
      auto meta = ReadWith(json, &seen, options);
      ASSERT_TRUE(meta.ok()) << "window " << window << ": " << meta.status().ToString();
      EXPECT_EQ(meta->events, expected->events) << window;
      EXPECT_EQ(meta->dropped_total, expected->dropped_total) << window;
      EXPECT_EQ(meta->withheld, expected->withheld) << window;
      ASSERT_EQ(seen.size(), whole.size()) << window;
      for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], whole[i]) << window << " " << i;
      EXPECT_GT(peak, 0u);
      EXPECT_LE(peak, kLimit + 128) << window;  // the prefix's room and simdjson's padding
    }
  }
}

// Every truncation of a one-line trace, read in small windows, fails as it does in one.
TEST(TraceReader, EveryTruncationOfAOneLineTraceFailsTheSameInWindows) {
  for (const std::string& json : {OneLine(PrettyTrace(12)), TrickyTrace(8)}) {
    for (size_t n = 0; n + 2 < json.size(); ++n) {
      const std::string_view cut = std::string_view(json).substr(0, n);
      auto whole = Read(cut);
      ASSERT_FALSE(whole.ok()) << n;
      for (size_t window : {64, 97, 200}) {
        auto windowed = Read(cut, nullptr, window);
        ASSERT_FALSE(windowed.ok()) << n;
        ASSERT_EQ(windowed.status().message(), whole.status().message()) << n << " " << window;
      }
    }
  }
}

TEST(TraceReader, AOneLineFileIsReadAWindowAtATime) {
  const std::string json = OneLine(PrettyTrace(6000));
  ASSERT_GT(json.size(), size_t{1} << 20);
  std::vector<Seen> expected;
  ASSERT_TRUE(ReadWith(json, &expected, {}).ok());
  const std::string path = WriteTemp(json);
  TraceReadOptions options;
  options.window_bytes = 16384;
  std::vector<uint64_t> read;
  options.progress = [&](uint64_t bytes, uint64_t) { read.push_back(bytes); };
  size_t i = 0;
  auto meta = ReadTraceFile(
      path,
      [&](const TraceEvent& e) {
        EXPECT_EQ(e.offset, expected.at(i).offset);
        ++i;
        return OkStatus();
      },
      options);
  unlink(path.c_str());
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(i, expected.size());
  ASSERT_FALSE(read.empty());
  EXPECT_LE(read.front(), 65536u) << "the first window read " << read.front() << " of "
                                  << json.size() << " bytes";
  EXPECT_GE(read.size(), json.size() / 16384);
}

TEST(TraceReader, AnEventLargerThanTheLimitIsAnErrorAtItsByte) {
  const std::string big = R"({"name":")" + std::string(10000, 'x') + R"("})";
  TraceReadOptions options;
  options.window_bytes = 1024;
  options.max_window_bytes = 8192;
  size_t peak = 0;
  options.peak_window_bytes = &peak;
  std::vector<Seen> seen;
  for (const char* sep : {",", ",\n"}) {
    const std::string json =
        std::string(R"({"traceEvents":[{"name":"a"})") + sep + big + sep + R"({"name":"c"}]})";
    seen.clear();
    auto r = ReadWith(json, &seen, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "trace.json: byte " + std::to_string(json.find(big)) +
                  ": an event, or the part of the trace before the first event or after the "
                  "last, is larger than 8192 bytes, the most of a trace nodescope holds in memory "
                  "at once");
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_LE(peak, 8192u + 128);
    // Within the limit (64 MiB by default) it is read.
    seen.clear();
    EXPECT_TRUE(ReadWith(json, &seen, {}).ok());
    EXPECT_EQ(seen.size(), 3u);
  }
  // Before the first event, and after the last.
  const std::string pad = R"("pad":")" + std::string(10000, 'x') + "\"";
  auto head = ReadWith(R"({"a":1,)" + pad + R"(,"traceEvents":[]})", &seen, options);
  EXPECT_NE(head.status().message().find("trace.json: byte 7: an event, or the part"),
            std::string::npos)
      << head.status().ToString();
  auto tail = ReadWith(R"({"traceEvents":[{"name":"a"}],)" + pad + "}", &seen, options);
  EXPECT_NE(tail.status().message().find("is larger than 8192 bytes"), std::string::npos)
      << tail.status().ToString();
}

TEST(TraceReader, ZerosFailAtOnceWithoutBeingHeld) {
  // `head -c 2147483648 /dev/zero | gzip -1 | nodescope check` took 6.3 GB and 42 s.
  const std::string zeros(size_t{8} << 20, '\0');
  const std::string start = R"({"traceEvents":[{"name":"a"},)";
  for (const std::string& json : {zeros, start + zeros, std::string(3 << 20, ' ') + zeros}) {
    const std::string path = WriteTemp(json);
    TraceReadOptions options;
    size_t peak = 0;
    options.peak_window_bytes = &peak;
    uint64_t read = 0;
    options.progress = [&](uint64_t bytes, uint64_t) { read = bytes; };
    auto r = ReadTraceFile(
        path, [](const TraceEvent&) { return OkStatus(); }, options);
    unlink(path.c_str());
    EXPECT_EQ(r.status().message(),
              path + ": byte " + std::to_string(json.find('\0')) + ": not valid JSON here");
    EXPECT_LE(read, json.size() - zeros.size() + (size_t{2} << 20));
    EXPECT_LE(peak, json.size() - zeros.size() + (size_t{2} << 20));
  }
}

// Issue 9: simdjson's "control character in a string" was reported without a byte when the
// reader's own scan did not find it (it took `\"` outside a string for a quote).
TEST(TraceReader, EveryStringErrorNamesItsByte) {
  EXPECT_EQ(ErrorOf("\\\"\"\n\""),
            "trace.json: byte 3: a control character (a raw tab or newline?) inside a string");
  EXPECT_EQ(ErrorOf("   \n"),
            "trace.json: byte 4 (end of file): no JSON value in the file (only whitespace)");
}

}  // namespace
}  // namespace nodescope::analysis
