// Tests of the session lifecycle over a simulated backend: what the C API and `nodescope run`
// both rely on, checked without a GPU.
#include "api/tracing_session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "base/clock.h"
#include "base/diagnostics.h"
// The public C++ wrapper beside the internal class: a clash of names (there was one: both were
// nodescope::Session, and the wrapper's inline destructor replaced the library's at run time)
// fails to compile here.
#include "nodescope/nodescope.hpp"

namespace nodescope {
namespace {

struct FakeState {
  int starts = 0;
  int stops = 0;
  Status start_status;
  Status stop_status;
  int warnings_at_stop = 0;  // once-only warnings the backend raises as it stops (as a decoder)
};
FakeState g_fake;

class FakeTracer : public Tracer {
 public:
  std::string_view name() const override { return "fake"; }
  Status Start(const TracerOptions&) override {
    ++g_fake.starts;
    trace_.start_ns = NowNs();
    return g_fake.start_status;
  }
  Status Stop() override {
    ++g_fake.stops;
    for (int i = 0; i < g_fake.warnings_at_stop; ++i) {
      NODESCOPE_WARN_ONCE("test_session_decoder", "record %d withheld", i);
    }
    trace_.end_ns = NowNs();
    return g_fake.stop_status;
  }
  Trace& trace() override { return trace_; }

 private:
  Trace trace_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterTracer("fake", [] { return std::unique_ptr<Tracer>(new FakeTracer); });

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_fake = FakeState{};
    unsetenv("NODESCOPE_MAX_EVENTS");
    RangeRecorder::Get().Disarm();
  }
  void TearDown() override { RangeRecorder::Get().Disarm(); }
};

// The fake backend cannot sample: asking for it is a clear error, before the backend starts.
TEST_F(SessionTest, SamplingRefusedByABackendThatCannotSample) {
  setenv("NODESCOPE_SAMPLE", "20", 1);
  auto session = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  unsetenv("NODESCOPE_SAMPLE");
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("fake backend cannot sample launches"),
            std::string::npos)
      << session.status().message();
  EXPECT_EQ(g_fake.starts, 0);
}

TEST_F(SessionTest, RegionStartsTheBackendArmsRangesAndFinishesTheTraceOnce) {
  RangeRecorder& ranges = RangeRecorder::Get();
  ranges.Pop();  // unbalanced, before the session: not the session's to report
  auto session = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ(g_fake.starts, 1);
  EXPECT_TRUE(ranges.armed());
  ranges.Push("inside");
  ranges.Pop();
  ranges.Pop();  // unbalanced, during the session
  ASSERT_TRUE((*session)->Stop().ok());
  EXPECT_TRUE((*session)->stopped());
  EXPECT_EQ(g_fake.stops, 1);
  EXPECT_FALSE(ranges.armed()) << "a region disarms ranges when no process session runs";
  const Trace& trace = (*session)->trace();
  ASSERT_EQ(trace.ranges.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.ranges[0].name), "inside");
  EXPECT_EQ(trace.range_counters.unbalanced_pops, 1u);
  EXPECT_TRUE((*session)->Stop().ok());
  EXPECT_EQ(g_fake.stops, 1) << "a second Stop() stopped the backend again";
  EXPECT_EQ((*session)->trace().ranges.size(), 1u) << "a second Stop() collected again";
}

TEST_F(SessionTest, ProcessCountsSinceTheProcessStartedAndLeavesRangesArmed) {
  RangeRecorder& ranges = RangeRecorder::Get();
  ranges.Pop();  // unbalanced, before the session: the whole process counts it
  auto session = TracingSession::Start("fake", TracingSession::Scope::kProcess);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Stop().ok());
  EXPECT_TRUE(ranges.armed()) << "the process session must not disarm ranges at its end";
  EXPECT_GE((*session)->trace().range_counters.unbalanced_pops, 1u);
  EXPECT_EQ((*session)->trace().range_counters.unbalanced_pops,
            ranges.counter_values().unbalanced_pops);
}

TEST_F(SessionTest, DestroyingAnUnstoppedSessionStopsTheBackend) {
  auto session =
      TracingSession::Start("", TracingSession::Scope::kRegion);  // "": the first registered
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ(g_fake.stops, 0);
  session->reset();
  EXPECT_EQ(g_fake.stops, 1);
}

TEST_F(SessionTest, ErrorsComeBackAndNothingIsArmed) {
  auto unknown = TracingSession::Start("no-such-backend", TracingSession::Scope::kRegion);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  setenv("NODESCOPE_MAX_EVENTS", "junk", 1);
  auto bad_env = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  ASSERT_FALSE(bad_env.ok());
  EXPECT_NE(bad_env.status().message().find("NODESCOPE_MAX_EVENTS"), std::string::npos);
  EXPECT_EQ(g_fake.starts, 0) << "the backend started with options it could not read";
  unsetenv("NODESCOPE_MAX_EVENTS");
  g_fake.start_status = UnavailableError("no device");
  auto refused = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(RangeRecorder::Get().armed());
}

TEST_F(SessionTest, BackendStopErrorIsReturnedAndTheTraceStillFinished) {
  auto session = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  RangeRecorder::Get().Push("kept");
  RangeRecorder::Get().Pop();
  g_fake.stop_status = InternalError("flush failed");
  Status s = (*session)->Stop();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ((*session)->trace().ranges.size(), 1u);
}

int64_t Counter(const Trace& trace, const std::string& name) {
  for (const auto& [n, v] : trace.counters) {
    if (n == name) return v;
  }
  return -1;
}

// The trace says what was warned about while it was recorded: every raise of each warning and
// error id since the session started, notes left out.
TEST_F(SessionTest, WarningsRaisedDuringTheSessionAreCountedInTheTrace) {
  SetDiagnosticSink([](int, const char*, const char*, void*) {}, nullptr);
  LogWarning("test_session_before", "before the session: not its to count");
  LogWarning("test_session_during", "raised before and during");
  auto session = TracingSession::Start("fake", TracingSession::Scope::kRegion);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  LogWarning("test_session_during", "raised before and during");
  LogError("test_session_error", "an error");
  LogInfo("test_session_note", "a note");
  g_fake.warnings_at_stop = 3;
  ASSERT_TRUE((*session)->Stop().ok());
  SetDiagnosticSink(nullptr, nullptr);
  const Trace& trace = (*session)->trace();
  EXPECT_EQ(Counter(trace, "warnings_test_session_decoder"), 3);
  EXPECT_EQ(Counter(trace, "warnings_test_session_during"), 1);
  EXPECT_EQ(Counter(trace, "errors_test_session_error"), 1);
  EXPECT_EQ(Counter(trace, "warnings_test_session_before"), -1);
  EXPECT_EQ(Counter(trace, "warnings_test_session_note"), -1);
  EXPECT_EQ(Counter(trace, "test_session_note"), -1);
}

}  // namespace
}  // namespace nodescope
