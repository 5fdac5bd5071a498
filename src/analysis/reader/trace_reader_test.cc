// Tests of the trace reader: fields and metadata, torch's string pids, and bad input of every kind.
// Reading in windows (and within the memory limit) is tested in trace_reader_windows_test.cc.
#include "analysis/reader/trace_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/reader/trace_reader_test_support.h"

namespace nodescope::analysis {
namespace {

// What `nodescope merge` needs: each event's own text and its pid, ts and id tokens, in every
// window size (cuts right after an event's '}' included), and the job's header.
TEST(TraceReader, RawEventsAndJobMetadata) {
  const std::string json = R"({
  "distributedInfo": {"rank": 1, "world_size": 2},
  "nodescope": {"version":"x","job":{"rank":1,"world_size":2,"host":"h\u0041",
                "clock":{"realtime_ns":100,"monotonic_ns":7,"boottime_ns":9}},
                "merged":[{"rank":3},{"source":"b"}]},
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
  {"ph":"X","cat":"kernel","name":"k,}","pid":0,"tid":7,"ts":20.5 ,"dur":5,"args":{"x":[1]}},
  {"ph":"s","id":12,"pid":123,"tid":7,"ts":1,"cat":"ac2g","name":"ac2g"} ,
  {"ph":"i","pid":"Spans","tid":"t","ts":3},{"ph":"M","name":"process_name","pid":0,"args":{}}
  ]
})";
  for (size_t window : {size_t{64}, size_t{100}, size_t{1} << 20}) {
    TraceReadOptions options;
    options.window_bytes = window;
    options.raw_events = true;
    std::vector<std::string> raw, pid, ts, id;
    std::optional<uint64_t> base_at_first_event;
    auto meta = ReadTraceText(
        "t.json", json,
        [&](const TraceEvent& e) {
          if (raw.empty() && e.metadata != nullptr) base_at_first_event = e.metadata->base_time_ns;
          raw.emplace_back(e.raw);
          pid.emplace_back(e.raw_pid);
          ts.emplace_back(e.raw_ts);
          id.emplace_back(e.raw_id);
          return OkStatus();
        },
        options);
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    ASSERT_EQ(raw.size(), 4u) << window;
    EXPECT_EQ(
        raw[0],
        R"({"ph":"X","cat":"kernel","name":"k,}","pid":0,"tid":7,"ts":20.5 ,"dur":5,"args":{"x":[1]}})");
    EXPECT_EQ(raw[1], R"({"ph":"s","id":12,"pid":123,"tid":7,"ts":1,"cat":"ac2g","name":"ac2g"})");
    EXPECT_EQ(raw[3], R"({"ph":"M","name":"process_name","pid":0,"args":{}})");
    EXPECT_EQ(pid, (std::vector<std::string>{"0", "123", "\"Spans\"", "0"}));
    EXPECT_EQ(ts, (std::vector<std::string>{"20.5", "1", "3", ""}));
    EXPECT_EQ(id, (std::vector<std::string>{"", "12", "", ""}));
    EXPECT_EQ(base_at_first_event, 1700000000000000000u);
    EXPECT_EQ(meta->rank, 1);
    EXPECT_EQ(meta->world_size, 2);
    EXPECT_EQ(meta->host, "hA");
    EXPECT_EQ(meta->clock_realtime_ns, 100u);
    EXPECT_EQ(meta->clock_boottime_ns, 9u);
    EXPECT_EQ(meta->merged_ranks, (std::vector<int64_t>{3, -1}));
  }
  // Without the option, nothing is kept.
  auto plain = ReadTraceText("t.json", json, [](const TraceEvent& e) {
    EXPECT_TRUE(e.raw.empty());
    EXPECT_TRUE(e.raw_pid.empty());
    return OkStatus();
  });
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(ProcessSlot(TraceId{TraceId::Kind::kNumber, (int64_t{3} << 22) | 4000000, {}}), 3u);
  EXPECT_EQ(ProcessSlot(TraceId{TraceId::Kind::kNumber, 4194303, {}}), 0u);
  EXPECT_EQ(ProcessSlot(TraceId{TraceId::Kind::kString, 0, "Spans"}), 0u);
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

// "nodescopeGraphs" (docs/TRACE-DAG.md): read into the metadata, sorted, unknown types kept.
TEST(TraceReader, ReadsGraphDags) {
  const std::string json = R"({
  "nodescopeGraphs": [
    {"graph id":9,"device":1,"complete":false,"nodes":[[38654705665,"kernel",0],[38654705664,"future_kind",0]],"edges":[[38654705664,38654705665,"programmatic"]],"renamed":[]},
    {"graph id":5,"device":0,"complete":true,"nodes":[[21474836480,"child_graph",0],[21474836481,"kernel",21474836480]],"edges":[],"renamed":[[25769803775,21474836481]]},
    {"graph id":5,"process":3,"nodes":[],"edges":[],"renamed":[]}
  ],
  "traceEvents": []
})";
  auto meta = Read(json);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  ASSERT_EQ(meta->graph_dags.size(), 3u);
  EXPECT_EQ(meta->graph_dags[2].process, 3u);  // by (process, graph id)
  EXPECT_EQ(meta->graph_dags[2].graph_id, 5u);
  const GraphDag& five = meta->graph_dags[0];
  EXPECT_EQ(five.graph_id, 5u);
  EXPECT_TRUE(five.complete);
  ASSERT_EQ(five.nodes.size(), 2u);
  EXPECT_EQ(five.nodes[0].type, DagNodeType::kChildGraph);
  EXPECT_EQ(five.nodes[1].parent_id, 21474836480u);
  ASSERT_EQ(five.renamed.size(), 1u);
  EXPECT_EQ(five.renamed[0].first, 25769803775u);
  const GraphDag& nine = meta->graph_dags[1];
  EXPECT_EQ(nine.device, 1);
  EXPECT_FALSE(nine.complete);
  ASSERT_EQ(nine.nodes.size(), 2u);
  EXPECT_EQ(nine.nodes[0].node_id, 38654705664u);  // sorted
  EXPECT_EQ(nine.nodes[0].type, DagNodeType::kOther);
  ASSERT_EQ(nine.edges.size(), 1u);
  EXPECT_EQ(nine.edges[0].type, DagEdgeType::kProgrammatic);
}

TEST(TraceReader, BadGraphDagsNameWhatIsWrong) {
  auto error = [](std::string_view dags) {
    return ErrorOf(std::string(R"({"nodescopeGraphs": )") + std::string(dags) +
                   R"(, "traceEvents": []})");
  };
  EXPECT_NE(error("{}").find("\"nodescopeGraphs\" is an object, expected an array"),
            std::string::npos)
      << error("{}");
  EXPECT_NE(error(R"([{"nodes":[]}])").find("has no \"graph id\""), std::string::npos);
  EXPECT_NE(error(R"([{"graph id":1,"nodes":[[1,"kernel"]]}])").find("2 items, expected 3"),
            std::string::npos)
      << error(R"([{"graph id":1,"nodes":[[1,"kernel"]]}])");
  EXPECT_NE(error(R"([{"graph id":1,"nodes":[[1,"kernel",0]],"edges":[[1,2,"full"]]}])")
                .find("an edge names a node not among its \"nodes\""),
            std::string::npos);
  EXPECT_NE(error(R"([{"graph id":1,"nodes":[["x","kernel",0]]}])").find("byte"),
            std::string::npos);
  EXPECT_NE(error(R"([{"graph id":1,"process":512}])").find("a process slot below 512"),
            std::string::npos)
      << error(R"([{"graph id":1,"process":512}])");
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

// Issue 9: simdjson's "control character in a string" was reported without a byte when the
// reader's own scan did not find it (it took `\"` outside a string for a quote).
TEST(TraceReader, EveryStringErrorNamesItsByte) {
  EXPECT_EQ(ErrorOf("\\\"\"\n\""),
            "trace.json: byte 3: a control character (a raw tab or newline?) inside a string");
  EXPECT_EQ(ErrorOf("   \n"),
            "trace.json: byte 4 (end of file): no JSON value in the file (only whitespace)");
}

// Issue 24: a \u escape of a lone surrogate is legal JSON (JSON.parse takes it) but names no
// character: it reads as U+FFFD, as JavaScript's TextEncoder writes it in UTF-8, in every string
// the reader decodes (event fields, "args", nodescope's withheld reasons), whatever the window.
TEST(TraceReader, LoneSurrogateEscapesReadAsReplacementCharacters) {
  const std::string json = R"({"nodescope":{"attribution":{"withheld":{"a\udcffb":2}}},
"traceEvents":[
{"ph":"X","cat":"kernel","name":"k\udcff","pid":0,"ts":1,"dur":1},
{"ph":"\ud800\u0041","cat":"x\ud800","name":"\n\udcff\"\u00e9\ud83d\ude00",
 "args":{"scope":"\udbff\udfff\udc00\ud800\ud800\udc00"}}
]})";
  const std::string fffd = "\xEF\xBF\xBD";
  for (size_t window : {size_t{64}, size_t{100}, size_t{1} << 20}) {
    std::vector<Seen> seen;
    auto meta = Read(json, &seen, window);
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].name, "k" + fffd);
    EXPECT_EQ(seen[1].ph, fffd + "A");  // a high surrogate, then not a low one
    EXPECT_EQ(seen[1].cat, "x" + fffd);
    EXPECT_EQ(seen[1].name, "\n" + fffd + "\"\xC3\xA9\xF0\x9F\x98\x80");  // pairs still pair
    EXPECT_EQ(seen[1].scope, "\xF4\x8F\xBF\xBF" + fffd + fffd + "\xF0\x90\x80\x80");
    ASSERT_EQ(meta->withheld.size(), 1u);
    EXPECT_EQ(meta->withheld[0].first, "a" + fffd + "b");
  }
  // A bad escape is still refused, at the string's byte, whichever decoder finds it.
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"name":"\udcfg"}]})"),
            "trace.json: byte 24: \"name\": invalid string (bad escape or control character)");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"name":"\udcff\q"}]})"),
            "trace.json: byte 24: \"name\": invalid string (bad escape or control character)");
  EXPECT_EQ(ErrorOf(R"({"traceEvents":[{"name":"\ud800\u12"}]})"),
            "trace.json: byte 24: \"name\": invalid string (bad escape or control character)");
}

}  // namespace
}  // namespace nodescope::analysis
