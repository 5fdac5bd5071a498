// LoadSdkApi() in a process without rocprofiler-sdk (this test links none): the error a tracer
// started outside the SDK's tool loading gives, naming the SDK's first function.
#include "backends/rocm/sdk_api.h"

#include <gtest/gtest.h>

namespace nodescope::rocprofiler {
namespace {

TEST(SdkApi, WithoutTheSdkInTheProcessSaysSoNamingTheFirstFunction) {
  EXPECT_EQ(
      LoadSdkApi().status().ToString(),
      "UNAVAILABLE: rocprofiler-sdk is not loaded in this process (rocprofiler_create_context "
      "not found): the rocm backend runs as a tool the SDK loads (nodescope run --backend "
      "rocm)");
}

}  // namespace
}  // namespace nodescope::rocprofiler
