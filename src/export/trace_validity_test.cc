// Every trace in the repository is one strict viewers read: the writer's golden files, the
// recorded example traces and the analysis fixtures; and the checks catch what they claim to.
#include "export/trace_validity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace nodescope {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every *.json under the folders that hold traces.
std::vector<fs::path> TraceFiles() {
  std::vector<fs::path> out;
  for (const char* dir : {"src/export/testdata", "examples/traces", "src/analysis/testdata"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(NODESCOPE_SOURCE_DIR) / dir)) {
      if (entry.path().extension() == ".json") out.push_back(entry.path());
    }
  }
  return out;
}

// Inputs the reader's tests feed it on purpose because they are not JSON.
const std::set<std::string> kNotJson = {"not_json.json", "truncated.json",
                                        "escape_outside_string.json"};
// JSON, but malformed on purpose: the analysis tests check that every command refuses it.
const std::set<std::string> kMalformed = {"refused_dur.json"};
TEST(TraceValidity, EveryTraceInTheRepositoryIsValid) {
  int traces = 0;
  for (const fs::path& path : TraceFiles()) {
    const std::string json = ReadFile(path);
    ASSERT_FALSE(json.empty()) << path;
    Status s = CheckTraceForViewers(json);
    if (kNotJson.count(path.filename().string()) != 0) {
      EXPECT_NE(s.message().find("not valid JSON"), std::string::npos)
          << path << ": " << s.ToString();
      continue;
    }
    if (kMalformed.count(path.filename().string()) != 0) {
      EXPECT_FALSE(s.ok()) << path << " is malformed on purpose, yet valid for viewers";
      continue;
    }
    EXPECT_TRUE(s.ok()) << path << ": " << s.ToString();
    s = CheckDeviceSpanNesting(json);
    EXPECT_TRUE(s.ok()) << path << ": " << s.ToString();
    ++traces;
  }
  // sample, ranges, empty; torch_graph_mlp; aliased, clean, inconsistent, replays, torch,
  // wrong_type (its "graph id" is a string: valid for viewers, wrong for `nodescope check`).
  EXPECT_GE(traces, 10);
}

std::string Trace(const std::string& events) { return R"({"traceEvents":[)" + events + "]}"; }

void ExpectInvalid(const std::string& events, const std::string& why) {
  Status s = CheckTraceForViewers(Trace(events));
  EXPECT_FALSE(s.ok()) << events;
  EXPECT_NE(s.message().find(why), std::string::npos) << events << "\n" << s.ToString();
}

constexpr char kGood[] =
    R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2},)"
    R"({"ph":"s","id":1,"pid":1,"tid":1,"ts":0.5,"cat":"ac2g","name":"ac2g"},)"
    R"({"ph":"f","id":1,"pid":0,"tid":7,"ts":1.5,"cat":"ac2g","name":"ac2g","bp":"e"},)"
    R"({"name":"thread_sort_index","ph":"M","pid":0,"tid":7,"args":{"sort_index":7}},)"
    R"({"name":"process_labels","ph":"M","pid":0,"tid":0,"args":{"labels":"H200"}},)"
    R"({"name":"Record Window End","ph":"i","s":"g","pid":"","tid":"","ts":9})";

TEST(TraceValidity, AcceptsWhatTheWriterAndKinetoWrite) {
  Status s = CheckTraceForViewers(Trace(kGood));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(TraceValidity, RejectsEachViolation) {
  const std::string good = std::string(kGood) + ",";
  ExpectInvalid(good + R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":-1,"dur":2})",
                "traceEvents[6]: \"X\" without a finite \"ts\" >= 0");
  ExpectInvalid(R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":1,"dur":-0.001})", "\"dur\" >= 0");
  ExpectInvalid(R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":"1","dur":1})", "\"ts\" >= 0");
  ExpectInvalid(R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":1})", "\"dur\" >= 0");
  ExpectInvalid(R"({"ph":"X","name":"k","pid":0.5,"tid":7,"ts":1,"dur":1})", "integer \"pid\"");
  ExpectInvalid(R"({"ph":"X","name":"k","pid":0,"tid":"7","ts":1,"dur":1})", "integer \"pid\"");
  ExpectInvalid(R"({"ph":"X","pid":0,"tid":7,"ts":1,"dur":1})", "string \"name\"");
  ExpectInvalid(R"({"ph":"s","id":1,"pid":1,"tid":1,"ts":0.5})",
                "flow id 1 has 1 \"s\" and 0 \"f\"");
  ExpectInvalid(good + R"({"ph":"f","id":1,"pid":0,"tid":7,"ts":2})",
                "flow id 1 has 1 \"s\" and 2 \"f\"");
  ExpectInvalid(R"({"ph":"s","id":"a","pid":1,"tid":1,"ts":0.5})", "integer \"id\"");
  ExpectInvalid(
      R"({"name":"thread_sort_index","ph":"M","pid":0,"tid":7,"args":{"sort_index":"7"}})",
      "integer sort_index");
  ExpectInvalid(R"({"name":"thread_name","ph":"M","pid":0,"tid":7,"args":{}})", "without a name");
  ExpectInvalid(R"({"name":"thread_colour","ph":"M","pid":0,"tid":7,"args":{}})",
                "unknown metadata");
  ExpectInvalid(R"({"name":"process_name","ph":"M","pid":0,"args":{"name":"x"}})", "integer");
  ExpectInvalid(R"({"ph":"B","name":"k","pid":0,"tid":7,"ts":1})", "unexpected \"ph\" \"B\"");
  ExpectInvalid(R"(3)", "not an object");
  EXPECT_FALSE(CheckTraceForViewers(R"({"traceEvents":{}})").ok());
  EXPECT_FALSE(CheckTraceForViewers(R"([])").ok());
  EXPECT_FALSE(CheckTraceForViewers(R"({"traceEvents":[{"ph":"X",}]})").ok());
}

std::string X(const char* cat, const char* ts, const char* dur, int tid = 7) {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":"n","pid":0,"tid":)" +
         std::to_string(tid) + R"(,"ts":)" + ts + R"(,"dur":)" + dur + "}";
}

TEST(TraceValidity, DeviceSpansMustStrictlyContainWhatStartsInsideThem) {
  const std::string span = X("gpu_user_annotation", "9.999", "2.002");
  // Strictly around a nested span and kernels; a kernel may start where the outer span ends.
  Status s = CheckDeviceSpanNesting(
      Trace(X("gpu_user_annotation", "9.997", "2.006") + "," +
            X("gpu_user_annotation", "9.999", "1.002") + "," + X("kernel", "10.000", "1.000") +
            "," + X("kernel", "11.002", "0.999") + "," + X("kernel", "12.003", "1.000")));
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Overlapping kernels (programmatic dependent launch) inside one span.
  EXPECT_TRUE(CheckDeviceSpanNesting(Trace(span + "," + X("kernel", "10.000", "1.500") + "," +
                                           X("kernel", "11.000", "1.000")))
                  .ok());
  // Not strictly: same start, and the same end as parsed.
  s = CheckDeviceSpanNesting(
      Trace(X("gpu_user_annotation", "10.000", "2.000") + "," + X("kernel", "10.000", "2.000")));
  EXPECT_NE(s.message().find("is not strictly inside"), std::string::npos) << s.ToString();
  // The rounding the writer's widening is for: both end at 10.004 us, but as doubles
  // 10.000 + 0.004 = 10.004 < 10.002 + 0.002 = 10.004000000000001.
  s = CheckDeviceSpanNesting(Trace(X("gpu_user_annotation", "9.999", "0.005") + "," +
                                   X("gpu_user_annotation", "10.000", "0.004") + "," +
                                   X("kernel", "10.002", "0.002")));
  EXPECT_NE(s.message().find("is not strictly inside"), std::string::npos) << s.ToString();
  // A kernel running past its span's end, and a span that starts inside a kernel.
  EXPECT_FALSE(CheckDeviceSpanNesting(Trace(span + "," + X("kernel", "11.000", "2.000"))).ok());
  s = CheckDeviceSpanNesting(Trace(X("kernel", "9.000", "2.000") + "," + span));
  EXPECT_NE(s.message().find("starts inside work"), std::string::npos) << s.ToString();
  // Lanes are separate; lanes without spans are not checked.
  EXPECT_TRUE(CheckDeviceSpanNesting(Trace(span + "," + X("kernel", "9.000", "2.000", 8) + "," +
                                           X("kernel", "9.500", "2.000", 8)))
                  .ok());
}

}  // namespace
}  // namespace nodescope
