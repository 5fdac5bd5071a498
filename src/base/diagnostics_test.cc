// Tests of the diagnostics channel: levels and ids reach the sink, the stderr lines keep the
// texts users and tests grep for, once-only warnings report once and count every raise (the hot
// path without the channel's lock), sinks swap safely while threads report, forwarding.
#include "base/diagnostics.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

struct Message {
  int level;
  std::string id;
  std::string text;
};

// A sink that keeps what it receives.
struct Recorder {
  std::mutex mu;
  std::vector<Message> messages;

  static void Sink(int level, const char* id, const char* message, void* user) {
    auto* self = static_cast<Recorder*>(user);
    std::lock_guard<std::mutex> lock(self->mu);
    self->messages.push_back(Message{level, id, message});
  }
  size_t CountOf(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu);
    size_t n = 0;
    for (const Message& m : messages) n += m.id == id;
    return n;
  }
};

// Installs a Recorder for one test, and stderr again after it.
class DiagnosticsTest : public ::testing::Test {
 protected:
  void SetUp() override { SetDiagnosticSink(&Recorder::Sink, &recorder_); }
  void TearDown() override { SetDiagnosticSink(nullptr, nullptr); }
  Recorder recorder_;
};

TEST(DiagnosticLevel, NamesAndTheCApiNumbers) {
  EXPECT_STREQ(DiagnosticLevelName(DiagnosticLevel::kDebug), "debug");
  EXPECT_STREQ(DiagnosticLevelName(DiagnosticLevel::kInfo), "info");
  EXPECT_STREQ(DiagnosticLevelName(DiagnosticLevel::kWarning), "warning");
  EXPECT_STREQ(DiagnosticLevelName(DiagnosticLevel::kError), "error");
  EXPECT_EQ(static_cast<int>(DiagnosticLevel::kDebug), 0);
  EXPECT_EQ(static_cast<int>(DiagnosticLevel::kError), 3);
}

// The texts existing tests and the README grep for ("nodescope: warning: ...", "nodescope:
// wrote ...", "nodescope-debug: ...").
TEST(StderrSink, OneLinePerMessageWithTheLevelsPrefix) {
  testing::internal::CaptureStderr();
  LogWarning("test_stderr_warning", "part %d could not be written", 2);
  LogInfo("test_stderr_info", "wrote %s", "t.json");
  LogError("test_stderr_error", "not tracing pid %d: %s", 42, "no device");
  LogDebug("test_stderr_debug", "cbid=%u", 7u);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "nodescope: warning: part 2 could not be written\n"
            "nodescope: wrote t.json\n"
            "nodescope: not tracing pid 42: no device\n"
            "nodescope-debug: cbid=7\n");
}

TEST_F(DiagnosticsTest, EveryLevelReachesTheSinkWithItsIdAndIsCounted) {
  LogDebug("test_levels_debug", "d %d", 1);
  LogInfo("test_levels_info", "i %s", "x");
  LogWarning("test_levels_warning", "w");
  LogWarning("test_levels_warning", "w again");
  LogError("test_levels_error", "e");
  ASSERT_EQ(recorder_.messages.size(), 5u);
  EXPECT_EQ(recorder_.messages[0].level, 0);
  EXPECT_EQ(recorder_.messages[0].id, "test_levels_debug");
  EXPECT_EQ(recorder_.messages[0].text, "d 1");
  EXPECT_EQ(recorder_.messages[1].level, 1);
  EXPECT_EQ(recorder_.messages[1].text, "i x");
  EXPECT_EQ(recorder_.messages[3].level, 2);
  EXPECT_EQ(recorder_.messages[3].text, "w again");
  EXPECT_EQ(recorder_.messages[4].level, 3);
  EXPECT_EQ(DiagnosticCount("test_levels_warning"), 2u);
  EXPECT_EQ(DiagnosticCount("test_levels_error"), 1u);
  EXPECT_EQ(DiagnosticCount("test_levels_never_raised"), 0u);
}

TEST_F(DiagnosticsTest, AMessageLongerThanTheStackBufferArrivesWhole) {
  const std::string path(5000, 'p');
  LogInfo("test_long_message", "wrote %s (done)", path.c_str());
  ASSERT_EQ(recorder_.messages.size(), 1u);
  EXPECT_EQ(recorder_.messages[0].text, "wrote " + path + " (done)");
}

TEST_F(DiagnosticsTest, WarnOnceReportsTheFirstRaiseOfAnIdAndCountsEveryOne) {
  for (int i = 0; i < 3; ++i) WarnOnce("test_warn_once", "raised %d", i);
  ASSERT_EQ(recorder_.CountOf("test_warn_once"), 1u);
  EXPECT_EQ(recorder_.messages[0].text, "raised 0");
  EXPECT_EQ(recorder_.messages[0].level, static_cast<int>(DiagnosticLevel::kWarning));
  EXPECT_EQ(DiagnosticCount("test_warn_once"), 3u);
}

int g_evaluated = 0;
int Evaluated() { return ++g_evaluated; }

void HotPath() { NODESCOPE_WARN_ONCE("test_hot_site", "record %d", Evaluated()); }

// The hot-path form: after its first raise, a site only counts; its arguments are not evaluated.
// Another site with the same id counts into the same counter and does not report again.
TEST_F(DiagnosticsTest, AWarnOnceSiteCountsWithoutFormattingAfterItsFirstRaise) {
  for (int i = 0; i < 1000; ++i) HotPath();
  EXPECT_EQ(g_evaluated, 1) << "the message was formatted again";
  WarnOnce("test_hot_site", "from another site");
  NODESCOPE_WARN_ONCE("test_hot_site", "and a third");
  EXPECT_EQ(recorder_.CountOf("test_hot_site"), 1u);
  EXPECT_EQ(DiagnosticCount("test_hot_site"), 1002u);
}

// A sink blocked in the middle of a delivery holds the channel's delivery lock: a site that has
// raised before still counts, so its path takes no lock.
TEST_F(DiagnosticsTest, ARepeatedOnceWarningTakesNoLock) {
  for (int i = 0; i < 2; ++i) HotPath();  // raised once at least (maybe by the test above)
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false;
    bool open = false;
  } gate;
  DiagnosticSink blocking = [](int, const char*, const char*, void* user) {
    auto* g = static_cast<Gate*>(user);
    std::unique_lock<std::mutex> lock(g->mu);
    g->entered = true;
    g->cv.notify_all();
    g->cv.wait(lock, [&] { return g->open; });
  };
  SetDiagnosticSink(blocking, &gate);
  std::thread reporter([] { LogWarning("test_blocked_sink", "held"); });
  {
    std::unique_lock<std::mutex> lock(gate.mu);
    gate.cv.wait(lock, [&] { return gate.entered; });
  }
  const uint64_t before = DiagnosticCount("test_hot_site");
  for (int i = 0; i < 100000; ++i) HotPath();  // would hang here if it took the lock
  EXPECT_EQ(DiagnosticCount("test_hot_site"), before + 100000);
  {
    std::lock_guard<std::mutex> lock(gate.mu);
    gate.open = true;
  }
  gate.cv.notify_all();
  reporter.join();
}

// Many threads on one site: one report, every raise counted.
TEST_F(DiagnosticsTest, ThreadsRaisingOneSiteReportOnceAndCountAll) {
  constexpr int kThreads = 8;
  constexpr int kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < kEach; ++i) NODESCOPE_WARN_ONCE("test_threads_site", "i=%d", i);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(recorder_.CountOf("test_threads_site"), 1u);
  EXPECT_EQ(DiagnosticCount("test_threads_site"), uint64_t{kThreads} * kEach);
}

// Sinks swapped while threads report: no message lost or doubled, and once a swap returns the
// previous sink is never called again (its user data may go).
TEST(DiagnosticSink, SwappingWhileOthersReportIsSafe) {
  struct Counting {
    std::atomic<int> calls{0};
    std::atomic<bool> retired{false};
    std::atomic<int> late{0};
  };
  DiagnosticSink sink = [](int, const char*, const char*, void* user) {
    auto* c = static_cast<Counting*>(user);
    if (c->retired.load()) c->late.fetch_add(1);
    c->calls.fetch_add(1);
  };
  constexpr int kSinks = 200;
  std::vector<Counting> sinks(kSinks);
  SetDiagnosticSink(sink, &sinks[0]);
  std::atomic<bool> stop{false};
  std::atomic<int> sent{0};
  std::vector<std::thread> reporters;
  for (int t = 0; t < 4; ++t) {
    reporters.emplace_back([&] {
      while (!stop.load()) {
        LogInfo("test_swap", "message");
        sent.fetch_add(1);
      }
    });
  }
  for (int i = 1; i < kSinks; ++i) {
    SetDiagnosticSink(sink, &sinks[i]);
    sinks[i - 1].retired.store(true);
    std::this_thread::yield();
  }
  stop.store(true);
  for (std::thread& t : reporters) t.join();
  SetDiagnosticSink(nullptr, nullptr);
  int received = 0;
  for (Counting& c : sinks) {
    EXPECT_EQ(c.late.load(), 0) << "a sink was called after it was replaced";
    received += c.calls.load();
  }
  EXPECT_EQ(received, sent.load());
}

// A sink that reports, or installs another sink, does not deadlock: its own message goes to
// stderr, the new sink takes the next one.
TEST(DiagnosticSink, ASinkMayReportAndSwapSinks) {
  static Recorder next;
  DiagnosticSink reentrant = [](int, const char*, const char* message, void*) {
    LogWarning("test_sink_reports", "inside the sink: %s", message);
    SetDiagnosticSink(&Recorder::Sink, &next);
  };
  SetDiagnosticSink(reentrant, nullptr);
  testing::internal::CaptureStderr();
  LogInfo("test_reentrant", "first");
  const std::string err = testing::internal::GetCapturedStderr();
  LogInfo("test_reentrant", "second");
  SetDiagnosticSink(nullptr, nullptr);
  EXPECT_EQ(err, "nodescope: warning: inside the sink: first\n");
  ASSERT_EQ(next.messages.size(), 1u);
  EXPECT_EQ(next.messages[0].text, "second");
}

// A process forked while another thread is inside the sink (holding its lock): the fork does not
// wait for it, and the child, which inherits the lock held by a thread it does not have, can
// still report and swap sinks (stderr is its sink then).
TEST(DiagnosticSink, AForkedChildCanReport) {
  std::atomic<bool> entered{false};
  std::atomic<bool> open{false};
  struct Gate {
    std::atomic<bool>* entered;
    std::atomic<bool>* open;
  } gate{&entered, &open};
  DiagnosticSink slow = [](int, const char*, const char*, void* user) {
    auto* g = static_cast<Gate*>(user);
    g->entered->store(true);
    while (!g->open->load()) std::this_thread::yield();
  };
  SetDiagnosticSink(slow, &gate);
  std::thread reporter([] { LogInfo("test_fork_sink", "slow"); });
  while (!entered.load()) std::this_thread::yield();
  const pid_t child = fork();
  if (child == 0) {
    testing::internal::CaptureStderr();
    LogWarning("test_fork_child", "from the child");
    const bool on_stderr =
        testing::internal::GetCapturedStderr() == "nodescope: warning: from the child\n";
    SetDiagnosticSink([](int, const char*, const char*, void*) {}, nullptr);
    LogWarning("test_fork_child", "again");
    _exit(on_stderr && DiagnosticCount("test_fork_child") == 2 ? 0 : 1);
  }
  open.store(true);
  reporter.join();
  SetDiagnosticSink(nullptr, nullptr);
  ASSERT_GT(child, 0);
  int status = -1;
  for (int i = 0; i < 1000 && waitpid(child, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waitpid(child, &status, WNOHANG) == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    ADD_FAILURE() << "the child hung on the channel's lock";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Tallies: ids in the order of their first raise, so a later copy extends an earlier one; a
// session subtracts the one it took at its start.
TEST_F(DiagnosticsTest, TalliesExtendIndexByIndex) {
  LogWarning("test_tally_a", "a");
  std::vector<DiagnosticTally> before = DiagnosticTallies();
  LogWarning("test_tally_a", "a");
  LogError("test_tally_b", "b");
  std::vector<DiagnosticTally> after = DiagnosticTallies();
  ASSERT_EQ(after.size(), before.size() + 1);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_STREQ(after[i].id, before[i].id);
  EXPECT_STREQ(after.back().id, "test_tally_b");
  EXPECT_EQ(after.back().level, DiagnosticLevel::kError);
  EXPECT_EQ(after.back().count, 1u);
  EXPECT_EQ(after[before.size() - 1].count, 2u);
  EXPECT_STREQ(after[before.size() - 1].id, "test_tally_a");
}

// Forwarded (a backend library attached to libnodescope.so): the other channel counts and
// reports; a once-site counts into the counter it hands back.
std::atomic<uint64_t> g_host_counter{0};
std::vector<Message>* g_host_messages = nullptr;
std::atomic<uint64_t>* HostRaise(DiagnosticLevel level, const char* id, bool once,
                                 const char* message) {
  g_host_counter.fetch_add(1);
  if (!once || g_host_counter.load() == 1) {
    g_host_messages->push_back(Message{static_cast<int>(level), id, message});
  }
  return &g_host_counter;
}

TEST_F(DiagnosticsTest, AForwardedChannelReportsAndCountsInTheOtherOne) {
  std::vector<Message> host_messages;
  g_host_messages = &host_messages;
  ForwardDiagnostics(&HostRaise);
  for (int i = 0; i < 5; ++i) NODESCOPE_WARN_ONCE("test_forwarded_site", "forwarded %d", i);
  LogError("test_forwarded_error", "error %s", "x");
  ForwardDiagnostics(nullptr);
  LogWarning("test_after_forwarding", "here again");
  EXPECT_EQ(g_host_counter.load(), 6u);
  ASSERT_EQ(host_messages.size(), 2u);
  EXPECT_EQ(host_messages[0].id, "test_forwarded_site");
  EXPECT_EQ(host_messages[0].text, "forwarded 0");
  EXPECT_EQ(host_messages[1].level, static_cast<int>(DiagnosticLevel::kError));
  EXPECT_EQ(DiagnosticCount("test_forwarded_site"), 0u) << "counted here too";
  ASSERT_EQ(recorder_.messages.size(), 1u);
  EXPECT_EQ(recorder_.messages[0].id, "test_after_forwarding");
}

// Past the table, new ids share one counter (in a child process: the table is the process's).
TEST(DiagnosticsOverflow, IdsPastTheTableShareOneCounter) {
  EXPECT_EXIT(
      {
        SetDiagnosticSink([](int, const char*, const char*, void*) {}, nullptr);
        for (size_t i = 0; i < kMaxDiagnosticIds + 10; ++i) {
          LogInfo(("test_overflow_" + std::to_string(i)).c_str(), "x");
        }
        const bool ok = DiagnosticTallies().size() == kMaxDiagnosticIds &&
                        DiagnosticCount("diagnostics_overflow") >= 11 &&
                        DiagnosticCount("test_overflow_3") == 1;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(DiagnosticIds, LongIdsAreCutAndEmptyOnesNamed) {
  const std::string long_id(100, 'x');
  LogInfo(long_id.c_str(), "long");
  EXPECT_EQ(DiagnosticCount(long_id.c_str()), 1u);
  EXPECT_EQ(DiagnosticCount(long_id.substr(0, kMaxDiagnosticIdSize).c_str()), 1u);
  testing::internal::CaptureStderr();
  LogInfo("", "no id");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "nodescope: no id\n");
  EXPECT_GE(DiagnosticCount("unnamed"), 1u);
}

}  // namespace
}  // namespace nodescope
