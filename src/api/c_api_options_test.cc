// Tests of nodescope_start_with_options() and nodescope_capture() (include/nodescope/nodescope.h)
// over a fake backend registered beside the C API: the options it starts with, the errors that
// name a key, and a capture written while the session runs.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include "api/fake_window_tracer.h"
#include "backends/backend.h"
#include "backends/ring_window.h"
#include "base/clock.h"
#include "nodescope/nodescope.h"
#include "ranges/range_recorder.h"

namespace nodescope {
namespace {

TracerOptions g_started_with;  // the options the last fake backend started with
int g_starts = 0;

// Each Flush() decodes one kernel, as a backend's buffer completion would.
class OptionsFakeTracer : public FakeWindowTracer {
 public:
  explicit OptionsFakeTracer(bool can_sample) : can_sample_(can_sample) {}
  std::string_view name() const override { return can_sample_ ? "fake_sampler" : "fake"; }
  bool can_sample() const override { return can_sample_; }
  Status Start(const TracerOptions& options) override {
    g_started_with = options;
    ++g_starts;
    return FakeWindowTracer::Start(options);
  }
  Status Flush() override {
    Decode(1);
    return OkStatus();
  }

 private:
  bool can_sample_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterTracer("fake", [] { return std::unique_ptr<Tracer>(new OptionsFakeTracer(false)); }) &&
    RegisterTracer("fake_sampler",
                   [] { return std::unique_ptr<Tracer>(new OptionsFakeTracer(true)); });

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CApiOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_started_with = TracerOptions{};
    g_starts = 0;
    for (const char* v : {"NODESCOPE_SAMPLE", "NODESCOPE_RING", "NODESCOPE_MAX_EVENTS",
                          "NODESCOPE_SAMPLE_BURST", "NODESCOPE_STREAM"}) {
      unsetenv(v);
    }
  }
  void TearDown() override { RangeRecorder::Get().Disarm(); }
};

TEST_F(CApiOptionsTest, TheStringsOptionsReachTheBackend) {
  nodescope_session* s = nodescope_start_with_options(
      "backend=fake_sampler; sample=10;sample_burst=2\n max_buffers=8;buffer_size_mb=2;"
      "disable_graph_attribution=1;disable_device_graphs=1");
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_starts, 1);
  EXPECT_EQ(g_started_with.sample_every, 10u);
  EXPECT_EQ(g_started_with.sample_burst, 2u);
  EXPECT_EQ(g_started_with.max_buffers, 8u);
  EXPECT_EQ(g_started_with.buffer_bytes, size_t{2} << 20);
  EXPECT_FALSE(g_started_with.graph_attribution);
  EXPECT_FALSE(g_started_with.device_graphs);
  EXPECT_EQ(nodescope_stop(s), 0);
  nodescope_destroy(s);
}

TEST_F(CApiOptionsTest, TheEnvironmentFillsWhatTheStringDoesNotName) {
  setenv("NODESCOPE_SAMPLE_BURST", "3", 1);
  setenv("NODESCOPE_MAX_EVENTS", "1000", 1);
  nodescope_session* s = nodescope_start_with_options("backend=fake_sampler;max_events=5");
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_started_with.sample_burst, 3u);
  EXPECT_EQ(g_started_with.max_events, 5u) << "the string wins over the environment";
  nodescope_destroy(s);
  // NULL and "" are nodescope_start(): the environment's options, the first backend.
  s = nodescope_start_with_options(nullptr);
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_started_with.max_events, 1000u);
  nodescope_destroy(s);
}

TEST_F(CApiOptionsTest, ABadOptionIsRefusedNamingItsKey) {
  const struct {
    const char* options;
    const char* said;
  } cases[] = {
      {"sample=ten", "sample='ten' is not a whole number from 1 to"},
      {"sample_burst=16", "sample_burst='16' is not a whole number from 1 to 15"},
      {"ring=lots", "ring"},
      {"disable_graph_attribution=maybe", "disable_graph_attribution='maybe' is not one of"},
      {"samples=3",
       "option 'samples' is not one of backend, output, metrics, metrics_series, "
       "buffer_size_mb"},
      {"metrics=nope:x", "metrics: not a numeric address: 'nope'"},
      {"metrics=1;metrics=2", "option 'metrics' is given twice"},
      {"metrics_series=0", "metrics_series='0' is not a whole number from 1 to"},
      {"NODESCOPE_SAMPLE=3", "option 'NODESCOPE_SAMPLE' is not one of"},
      {"sample", "option 'sample' has no '='"},
      {"ring=", "option 'ring' has an empty value"},
      {"ring=1k;ring=2k", "option 'ring' is given twice"},
      {"backend=fake;backend=fake", "option 'backend' is given twice"},
      {"stream=10k", "stream writes files named after the trace: give output=PATH"},
      {"capture_every=1s", "capture_every writes files named after the trace: give output=PATH"},
      {"output=a.json;output=b.json", "option 'output' is given twice"},
      {"backend=no_such", "no backend named 'no_such'"},
      {"backend=fake;sample=4",
       "fake backend cannot sample launches (NODESCOPE_SAMPLE or sample=4)"},
  };
  for (const auto& c : cases) {
    nodescope_session* s = nodescope_start_with_options(c.options);
    EXPECT_EQ(s, nullptr) << c.options;
    nodescope_destroy(s);
    EXPECT_NE(std::string(nodescope_last_error()).find(c.said), std::string::npos)
        << c.options << ": " << nodescope_last_error();
  }
  EXPECT_EQ(g_starts, 0) << "a backend started with options that were refused";
  EXPECT_FALSE(RangeRecorder::Get().armed());
}

// NODESCOPE_METRICS: the port is bound before tracing starts; one taken refuses the session and
// nothing is traced. One free serves until nodescope_destroy().
TEST_F(CApiOptionsTest, AMetricsPortTakenRefusesTheSession) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof(sa);
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  const std::string options = "backend=fake;metrics=" + std::to_string(ntohs(sa.sin_port));
  nodescope_session* s = nodescope_start_with_options(options.c_str());
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(nodescope_last_error()).find("Address already in use"), std::string::npos)
      << nodescope_last_error();
  EXPECT_EQ(g_starts, 0);
  close(fd);
  s = nodescope_start_with_options("backend=fake;metrics=127.0.0.1:0");
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_starts, 1);
  EXPECT_EQ(nodescope_stop(s), 0);
  nodescope_destroy(s);
}

TEST_F(CApiOptionsTest, CaptureWritesTheWindowWhileTheSessionRuns) {
  nodescope_session* s = nodescope_start_with_options("backend=fake;ring=1000");
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_started_with.ring.max_records, 1000u);
  EXPECT_EQ(g_started_with.max_events, kMaxEvents) << "a ring bounds memory: no store cap";
  const std::string dir = ::testing::TempDir() + "/c_api_options_test_" + std::to_string(getpid());
  const std::string first = dir + "_1.json", second = dir + "_2.json";
  ASSERT_EQ(nodescope_capture(s, first.c_str()), 0) << nodescope_last_error();
  ASSERT_EQ(nodescope_capture(s, second.c_str()), 0) << nodescope_last_error();
  const std::string one = ReadFile(first), two = ReadFile(second);
  EXPECT_NE(one.find("\"capture\":1"), std::string::npos) << one;
  EXPECT_NE(two.find("\"capture\":2"), std::string::npos) << two;
  EXPECT_NE(two.find("ring:"), std::string::npos) << two;
  EXPECT_NE(two.find("\"cat\":\"kernel\""), std::string::npos) << two;
  EXPECT_EQ(nodescope_capture(s, nullptr), static_cast<int>(StatusCode::kInvalidArgument));
  ASSERT_EQ(nodescope_stop(s), 0);
  EXPECT_NE(nodescope_capture(s, first.c_str()), 0) << "captured a stopped session";
  EXPECT_NE(std::string(nodescope_last_error()).find("stopped"), std::string::npos);
  nodescope_destroy(s);
  std::remove(first.c_str());
  std::remove(second.c_str());
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// stream= and capture_every=: the session's own thread writes parts and captures named after
// output=, and the trace written at the end is the last part.
TEST_F(CApiOptionsTest, StreamingPartsAndPeriodicCapturesAreNamedAfterOutput) {
  const std::string base = ::testing::TempDir() + "/c_api_stream_" + std::to_string(getpid());
  const std::string output = base + ".json";
  const std::string options = "backend=fake;stream=1;capture_every=100ms;output=" + output;
  nodescope_session* s = nodescope_start_with_options(options.c_str());
  ASSERT_NE(s, nullptr) << nodescope_last_error();
  EXPECT_EQ(g_started_with.stream_records, 1u);
  const uint64_t until = NowNs() + 5'000'000'000ull;
  while (!(Exists(base + ".part-1.json") && Exists(base + ".capture-1.json")) && NowNs() < until) {
    usleep(50'000);
  }
  ASSERT_EQ(nodescope_stop(s), 0) << nodescope_last_error();
  EXPECT_TRUE(Exists(base + ".part-1.json"));
  EXPECT_TRUE(Exists(base + ".capture-1.json"));
  ASSERT_EQ(nodescope_write(s, output.c_str()), 0) << nodescope_last_error();
  nodescope_destroy(s);
  const std::string part1 = ReadFile(base + ".part-1.json"), last = ReadFile(output);
  EXPECT_NE(part1.find("\"part\":1"), std::string::npos) << part1;
  EXPECT_NE(part1.find("stream:"), std::string::npos) << part1;
  EXPECT_EQ(last.find("\"part\":0"), std::string::npos) << "the trace is the last part: " << last;
  for (int i = 1; i <= 200; ++i) {
    std::remove((base + ".part-" + std::to_string(i) + ".json").c_str());
    std::remove((base + ".capture-" + std::to_string(i) + ".json").c_str());
  }
  std::remove(output.c_str());
}

}  // namespace
}  // namespace nodescope
