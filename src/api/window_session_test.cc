// Ring, capture and streaming over a simulated backend (issue 14): a fake tracer whose decoding
// thread appends batches under its lock and trims the window, as every real backend does, while
// the session captures; checked without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "api/fake_window_tracer.h"
#include "api/tracing_session.h"
#include "backends/ring_window.h"
#include "base/clock.h"
#include "export/chrome_trace_writer.h"
#include "export/trace_validity.h"

namespace nodescope {
namespace {

// Decodes one batch of `n` kernels (graph 1, 4 nodes; correlation id = their sequence number,
// start_ns = now, strictly increasing), then trims, as a backend's buffer completion does.
class WindowFakeTracer : public FakeWindowTracer {
 public:
  std::string_view name() const override { return "fake_window"; }
  Status Flush() override {
    ++flushes_;
    return OkStatus();
  }
  void Batch(size_t n) { Decode(n); }
  std::atomic<int> flushes_{0};
};
WindowFakeTracer* g_tracer = nullptr;

[[maybe_unused]] const bool kRegistered = RegisterTracer("fake_window", [] {
  auto t = std::make_unique<WindowFakeTracer>();
  g_tracer = t.get();
  return std::unique_ptr<Tracer>(std::move(t));
});

std::string WrittenJson(const Trace& t) {
  // One name per process: ctest runs each case of this file as its own process, side by side.
  const std::string path =
      ::testing::TempDir() + "/window_session_test_" + std::to_string(getpid()) + ".json";
  EXPECT_TRUE(WriteChromeTraceFile(t, path).ok());
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::remove(path.c_str());
  return s.str();
}

// The "ts" of the first event whose text holds `marker` (e.g. "\"cat\":\"kernel\""), or -1.
double FirstTs(const std::string& json, const std::string& marker) {
  const size_t at = json.find(marker);
  if (at == std::string::npos) return -1;
  const size_t ts = json.find("\"ts\":", at);
  return ts == std::string::npos ? -1 : std::strtod(json.c_str() + ts + 5, nullptr);
}

class WindowSessionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("NODESCOPE_RING");
    unsetenv("NODESCOPE_STREAM");
    RangeRecorder::Get().Disarm();
  }
};

TEST_F(WindowSessionTest, RingCapturesWhileTheDecoderRunsAreValidWindows) {
  setenv("NODESCOPE_RING", "20000", 1);
  auto session = TracingSession::Start("fake_window", TracingSession::Scope::kProcess);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  // Open across every window: it starts before each window's oldest record.
  const uint64_t open_range = RangeRecorder::Get().Push("service");
  ASSERT_NE(open_range, 0u);
  std::atomic<bool> stop{false};
  std::thread decoder([&] {
    while (!stop.load()) g_tracer->Batch(1000);
  });
  uint64_t previous_first = 0;
  for (int c = 0; c < 5; ++c) {
    while (g_tracer->HeldRecords() < 10000) std::this_thread::yield();
    Trace window;
    ASSERT_TRUE((*session)->CaptureWindow(&window, /*release=*/false).ok());
    EXPECT_EQ(window.window.policy, "ring:events=20000");
    EXPECT_GT(window.gpu.held(), 0u);
    EXPECT_LE(window.gpu.held(), 20000u + 2 * ChunkedVector<GpuActivity>::kChunkSize);
    // Consecutive records, the most recent: nothing missing inside the window.
    uint32_t expected = window.gpu[0].correlation_id;
    uint64_t gaps = 0;
    window.gpu.ForEach([&](const GpuActivity& a) { gaps += a.correlation_id != expected++; });
    EXPECT_EQ(gaps, 0u);
    ASSERT_GE(window.ranges.held(), 1u) << "the range overlapping the window is in it";
    EXPECT_LT(window.ranges[0].start_ns, window.gpu[0].start_ns);
    EXPECT_GE(window.gpu[0].start_ns, previous_first) << "windows move forward";
    previous_first = window.gpu[0].start_ns;
    const std::string json = WrittenJson(window);
    EXPECT_TRUE(CheckTraceForViewers(json).ok()) << CheckTraceForViewers(json).ToString();
    EXPECT_NE(json.find("\"window\":{\"policy\":\"ring:events=20000\""), std::string::npos);
    // The range began before the window's oldest record: the time axis starts with the range,
    // so neither is clamped to 0 (the writer writes no negative time).
    EXPECT_GT(FirstTs(json, "\"cat\":\"kernel\""), 0.0) << "time axis starts after the range";
  }
  stop.store(true);
  decoder.join();
  RangeRecorder::Get().Pop();
  EXPECT_GE(g_tracer->flushes_.load(), 5) << "a capture flushes the backend first";
  ASSERT_TRUE((*session)->Stop().ok());
  const Trace& final_trace = (*session)->trace();
  EXPECT_GT(final_trace.window.ring_released, 0u);
  EXPECT_EQ(final_trace.drops.Total(), 0u) << "the ring's releases are not drops";
  const std::string json = WrittenJson(final_trace);
  EXPECT_TRUE(CheckTraceForViewers(json).ok()) << CheckTraceForViewers(json).ToString();
}

TEST_F(WindowSessionTest, StreamingPartsHoldEveryRecordOnce) {
  setenv("NODESCOPE_STREAM", "5000", 1);
  auto session = TracingSession::Start("fake_window", TracingSession::Scope::kProcess);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ((*session)->options().stream_records, 5000u);
  std::set<uint64_t> seen;
  uint64_t duplicates = 0;
  auto take = [&](const Trace& t) {
    t.gpu.ForEach(
        [&](const GpuActivity& a) { duplicates += !seen.insert(a.correlation_id).second; });
  };
  int parts = 0;
  for (int i = 0; i < 200; ++i) {  // the decoder's batches, and a part whenever 5000 are held
    g_tracer->Batch(333);
    if ((*session)->FlushAndCountHeld() < 5000) continue;
    Trace part;
    ASSERT_TRUE((*session)->CaptureWindow(&part, /*release=*/true).ok());
    EXPECT_GE(part.gpu.held(), 5000u);
    EXPECT_LT(part.gpu.held(), 5000u + 333u);
    EXPECT_TRUE(CheckTraceForViewers(WrittenJson(part)).ok());
    take(part);
    ++parts;
  }
  EXPECT_EQ(parts, 200 / 16) << "a part every 16 batches of 333 (5328 records)";
  ASSERT_TRUE((*session)->Stop().ok());
  const Trace& last = (*session)->trace();
  take(last);
  EXPECT_EQ(duplicates, 0u);
  EXPECT_EQ(seen.size(), 200u * 333u) << "a record was lost between parts";
  EXPECT_EQ(last.window.streamed + last.gpu.held(), 200u * 333u);
  EXPECT_EQ(last.window.policy, "stream:events=5000");
}

TEST_F(WindowSessionTest, BadWindowVariablesAreErrorsNamingThem) {
  setenv("NODESCOPE_RING", "lots", 1);
  auto bad = TracingSession::Start("fake_window", TracingSession::Scope::kProcess);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NODESCOPE_RING='lots'"), std::string::npos)
      << bad.status().message();
  setenv("NODESCOPE_RING", "60s", 1);
  setenv("NODESCOPE_STREAM", "1GB", 1);
  auto both = TracingSession::Start("fake_window", TracingSession::Scope::kProcess);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("cannot be used together"), std::string::npos);
}

}  // namespace
}  // namespace nodescope
