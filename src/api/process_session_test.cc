// Tests of the trace-path rule for traced processes and their children.
#include "api/process_session.h"

#include <gtest/gtest.h>

namespace nodescope {
namespace {

TEST(ProcessTracePath, DefaultsToPidInWorkingDirectory) {
  EXPECT_EQ(ProcessTracePath(nullptr, nullptr, 123), "nodescope-123.json");
  EXPECT_EQ(ProcessTracePath("", "123", 123), "nodescope-123.json");
}

TEST(ProcessTracePath, RootProcessGetsTheRequestedPath) {
  EXPECT_EQ(ProcessTracePath("out/t.json", "77", 77), "out/t.json");
  EXPECT_EQ(ProcessTracePath("out/t.json", nullptr, 5), "out/t.json");
}

TEST(ProcessTracePath, ChildProcessesGetTheirOwnFile) {
  EXPECT_EQ(ProcessTracePath("out/t.json", "77", 80), "out/t-80.json");
  EXPECT_EQ(ProcessTracePath("out.d/trace", "77", 80), "out.d/trace-80");
  EXPECT_EQ(ProcessTracePath("trace", "77", 80), "trace-80");
}

}  // namespace
}  // namespace nodescope
