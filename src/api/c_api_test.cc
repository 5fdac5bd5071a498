// Tests of the C API's log handler against libnodescope.so itself, linked as a program links it:
// messages raised in the library's channel (here through the plugin interface, as a backend
// library's arrive) reach the handler with their level and id; NULL gives stderr back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/plugin_abi.h"
#include "nodescope/nodescope.h"

namespace {

struct Received {
  int level;
  std::string id;
  std::string message;
};

void Keep(int level, const char* id, const char* message, void* user) {
  static_cast<std::vector<Received>*>(user)->push_back(Received{level, id, message});
}

// What a backend library's copy of the channel does once attached.
void RaiseInTheLibrary(nodescope::DiagnosticLevel level, const char* id, const char* message) {
  const nodescope::PluginHostV1* host = nodescope_plugin_host_v1();
  ASSERT_NE(host, nullptr);
  ASSERT_NE(host->raise_diagnostic, nullptr);
  host->raise_diagnostic(level, id, /*once=*/false, message);
}

TEST(CApiLogHandler, ReceivesTheLibrarysMessagesWithLevelAndId) {
  std::vector<Received> received;
  nodescope_set_log_handler(&Keep, &received);
  RaiseInTheLibrary(nodescope::DiagnosticLevel::kWarning, "c_api_test_warning", "careful");
  RaiseInTheLibrary(nodescope::DiagnosticLevel::kError, "c_api_test_error", "failed");
  nodescope_set_log_handler(nullptr, nullptr);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].level, NODESCOPE_LOG_WARNING);
  EXPECT_EQ(received[0].id, "c_api_test_warning");
  EXPECT_EQ(received[0].message, "careful");
  EXPECT_EQ(received[1].level, NODESCOPE_LOG_ERROR);
  EXPECT_EQ(received[1].id, "c_api_test_error");
}

TEST(CApiLogHandler, NullGivesStderrBack) {
  std::vector<Received> received;
  nodescope_set_log_handler(&Keep, &received);
  nodescope_set_log_handler(nullptr, nullptr);
  testing::internal::CaptureStderr();
  RaiseInTheLibrary(nodescope::DiagnosticLevel::kWarning, "c_api_test_stderr", "on stderr");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "nodescope: warning: on stderr\n");
  EXPECT_TRUE(received.empty());
}

}  // namespace
