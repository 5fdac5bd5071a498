// Tests of the trace reader in windows: the same events and errors whatever the window, one-line
// (minified) traces read a window at a time, and the limit on what it holds of any input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/reader/trace_reader_test_support.h"

namespace nodescope::analysis {
namespace {

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
  // (A trace with two "traceEvents", where the fuzzer found the event a window starts with
  // skipped in every array of it, is refused now: ASecondTraceEventsIsRefusedAtItsKey.)
  for (const std::string& json :
       {SampleTrace(), PrettyTrace(80), PrettyTrace(80, /*array_format=*/true), minified}) {
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

// Issue 24: a trace with two "traceEvents" had both read, where JSON.parse (Perfetto,
// chrome://tracing) keeps the last. It is refused at the second key, whatever the window, with
// none of the second array's events visited: also when that array is larger than the most the
// reader holds (the windows after the first array's end look for the key).
TEST(TraceReader, ASecondTraceEventsIsRefusedAtItsKey) {
  std::string second = ",\n  \"traceEvents\": [\n";
  for (int i = 0; i < 200; ++i) {
    second += std::string(i > 0 ? ",\n" : "") + R"(  {"ph":"X","name":"second )" +
              std::to_string(i) + R"(","ts":1,"dur":1,"args":{"pad":")" + std::string(100, 'p') +
              "\"}}";
  }
  second += "\n  ]\n}\n";
  const std::string first = PrettyTrace(40);
  const std::string json = first.substr(0, first.rfind('}')) + second;
  const size_t key = json.rfind("\"traceEvents\"");
  const std::string expected = "trace.json: byte " + std::to_string(key) +
                               ": a second \"traceEvents\": a trace with two is refused "
                               "(JSON.parse, as Perfetto and chrome://tracing read it, keeps only "
                               "the last)";
  TraceReadOptions limited;
  limited.window_bytes = 64;
  limited.max_window_bytes = 8192;  // the second array is about 26 KB
  ASSERT_GT(json.size() - key, 3 * limited.max_window_bytes);
  std::vector<TraceReadOptions> all = {limited, TraceReadOptions{}};
  for (size_t window : kWindows) {
    all.emplace_back().window_bytes = window;
  }
  for (const TraceReadOptions& options : all) {
    std::vector<Seen> seen;
    auto r = ReadWith(json, &seen, options);
    ASSERT_FALSE(r.ok()) << options.window_bytes;
    EXPECT_EQ(r.status().message(), expected) << options.window_bytes;
    EXPECT_EQ(seen.size(), 40u) << options.window_bytes;  // the first array's only
  }
  // The fuzzer's case: a second array right after the first, read in every window before.
  std::string twice = PrettyTrace(20);
  twice.insert(twice.find("  ],\n  \"nodescope\""),
               "  ],\n  \"traceEvents\": [\n{\"name\": \"b\"}\n");
  const std::string twice_error = ErrorOf(twice);
  EXPECT_NE(twice_error.find("byte " + std::to_string(twice.rfind("\"traceEvents\"")) +
                             ": a second \"traceEvents\""),
            std::string::npos)
      << twice_error;
  for (size_t window : kWindows) {
    std::vector<Seen> seen;
    TraceReadOptions options;
    options.window_bytes = window;
    EXPECT_EQ(ReadWith(twice, &seen, options).status().message(), twice_error) << window;
    EXPECT_EQ(seen.size(), 20u) << window;
  }
  // An empty first array, and one line.
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[],"traceEvents":[{"ph":"X"}]})"),
            "trace.json: byte 18: a second \"traceEvents\": a trace with two is refused "
            "(JSON.parse, as Perfetto and chrome://tracing read it, keeps only the last)");
  std::vector<Seen> seen;
  auto one_line = ReadWith(OneLine(json), &seen, limited);
  EXPECT_NE(one_line.status().message().find(": a second \"traceEvents\""), std::string::npos)
      << one_line.status().ToString();
  EXPECT_EQ(seen.size(), 40u);
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

}  // namespace
}  // namespace nodescope::analysis
