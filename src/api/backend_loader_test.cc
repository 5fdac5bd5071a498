// Tests of loading backend libraries beside libnodescope.so (backend_loader.h) with fake ones
// (fake_backend_library.cc): a library of this build attaches and uses the host's registry and
// range recorder and reports through its diagnostics channel; one of another build or interface
// version, one that is not ours and one that cannot be loaded are refused, each with a message
// naming it and why.
#include "api/backend_loader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "api/tracing_session.h"
#include "backends/backend.h"
#include "backends/plugin_abi.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope {
namespace {

// NODESCOPE_FAKE_BACKEND_DIR holds libfake_backend_{ok,abi,build,foreign}.so.
std::string Fake(const std::string& kind) {
  return std::string(NODESCOPE_FAKE_BACKEND_DIR) + "/libfake_backend_" + kind + ".so";
}

bool Registered(const std::string& name) {
  for (const std::string& n : RegisteredTracers()) {
    if (n == name) return true;
  }
  return false;
}

TEST(BackendLoader, AnotherInterfaceVersionIsRefusedByName) {
  Status s = LoadBackendLibrary(Fake("abi"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("libfake_backend_abi.so comes from another nodescope build"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("plugin interface " + std::to_string(kPluginAbiVersion + 1)),
            std::string::npos)
      << s.message();
}

TEST(BackendLoader, AnotherBuildIsRefusedByName) {
  Status s = LoadBackendLibrary(Fake("build"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("(build 0.0.0-another-build, "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::string("this is build ") + kBuildId), std::string::npos)
      << s.message();
}

TEST(BackendLoader, NotOursOrMissingIsRefused) {
  Status foreign = LoadBackendLibrary(Fake("foreign"));
  EXPECT_EQ(foreign.message(), "libfake_backend_foreign.so is not a nodescope backend library");
  Status missing = LoadBackendLibrary(Fake("missing"));
  EXPECT_EQ(missing.code(), StatusCode::kUnavailable);
  EXPECT_NE(missing.message().find("libfake_backend_missing.so cannot be loaded: "),
            std::string::npos)
      << missing.message();
}

TEST(BackendLoader, EveryReasonIsGivenWhenNoneLoads) {
  Status s = LoadBackendLibraries(NODESCOPE_FAKE_BACKEND_DIR,
                                  {"libfake_backend_build.so", "libfake_backend_missing.so"});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("no backend library could be loaded: libfake_backend_build.so "
                             "comes from another nodescope build"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("; libfake_backend_missing.so cannot be loaded"), std::string::npos)
      << s.message();
  EXPECT_TRUE(LoadBackendLibraries(NODESCOPE_FAKE_BACKEND_DIR, {}).ok());
  EXPECT_FALSE(Registered("fake_loaded")) << "a refused library registered a tracer";
}

struct HostMessage {
  std::string id;
  std::string text;
};

TEST(BackendLoader, ALibraryOfThisBuildUsesTheHostsRegistryRangeRecorderAndDiagnostics) {
  ASSERT_TRUE(LoadBackendLibraries(NODESCOPE_FAKE_BACKEND_DIR,
                                   {"libfake_backend_missing.so", "libfake_backend_ok.so"})
                  .ok());
  EXPECT_TRUE(Registered("fake_loaded"));
  ASSERT_TRUE(LoadBackendLibrary(Fake("ok")).ok()) << "loading twice must be harmless";
  int registered = 0;
  for (const std::string& n : RegisteredTracers()) registered += n == "fake_loaded";
  EXPECT_EQ(registered, 1) << "attached twice, registered twice";

  RangeRecorder& ranges = RangeRecorder::Get();
  ranges.Arm();  // as NVTX's injection does: the program's range is recorded before the session
  uint64_t outer = ranges.Push("opened by the program");
  // The host's sink (this program's): the library's copy of the channel must forward to it.
  std::vector<HostMessage> messages;
  SetDiagnosticSink(
      [](int, const char* id, const char* message, void* user) {
        static_cast<std::vector<HostMessage>*>(user)->push_back(HostMessage{id, message});
      },
      &messages);
  auto session = TracingSession::Start("fake_loaded", TracingSession::Scope::kRegion);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_TRUE((*session)->Stop().ok());
  SetDiagnosticSink(nullptr, nullptr);
  ranges.Pop();
  ranges.Disarm();
  const Trace& trace = (*session)->trace();
  auto counter = [&](const std::string& name) -> int64_t {
    for (const auto& [n, v] : trace.counters) {
      if (n == name) return v;
    }
    return -1;
  };
  EXPECT_EQ(counter("recorder"), static_cast<int64_t>(reinterpret_cast<uintptr_t>(&ranges)))
      << "the backend library has a range recorder of its own";
  EXPECT_NE(outer, 0u);
  EXPECT_EQ(counter("current_range"), static_cast<int64_t>(outer))
      << "the backend does not see the range the program opened";
  bool backend_range = false;
  for (size_t i = 0; i < trace.ranges.size(); ++i) {
    backend_range |= trace.strings.Get(trace.ranges[i].name) == "pushed by the backend";
  }
  EXPECT_TRUE(backend_range) << "a range the backend pushed is not in the host's trace";
  ASSERT_EQ(messages.size(), 1u) << "the backend's once-only warning did not reach the host once";
  EXPECT_EQ(messages[0].id, "fake_backend_warning");
  EXPECT_EQ(messages[0].text, "raised by the backend library (0)");
  EXPECT_EQ(counter("warnings_fake_backend_warning"), 2)
      << "the backend's warnings are not counted in the host's session";
  EXPECT_EQ(DiagnosticCount("fake_backend_warning"), 2u);
}

}  // namespace
}  // namespace nodescope
