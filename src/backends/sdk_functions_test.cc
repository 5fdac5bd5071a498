// Resolving a table of SDK functions from the running process: the pointers typed and named from
// one list, visited in the list's order, and the error naming the first one missing.
#include "backends/sdk_functions.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

// Declared, never defined: no process has them.
extern "C" int nodescope_sdk_functions_test_absent_a(int);
extern "C" int nodescope_sdk_functions_test_absent_b(int);

namespace nodescope {
namespace {

#define LIBC_FUNCTIONS(X) X(length, strlen) X(pid, getpid)
struct LibcApi {
  NODESCOPE_SDK_FUNCTIONS(LIBC_FUNCTIONS)
};

#define PARTLY_ABSENT_FUNCTIONS(X)                   \
  X(length, strlen)                                  \
  X(absent_a, nodescope_sdk_functions_test_absent_a) \
  X(pid, getpid)                                     \
  X(absent_b, nodescope_sdk_functions_test_absent_b)
struct PartlyAbsentApi {
  NODESCOPE_SDK_FUNCTIONS(PARTLY_ABSENT_FUNCTIONS)
};

TEST(SdkFunctions, DeclaresOneNullPointerPerFunctionOfTheDeclaredType) {
  LibcApi api;
  static_assert(std::is_same_v<decltype(api.pid), decltype(&getpid)>);
  EXPECT_EQ(api.length, nullptr);
  EXPECT_EQ(api.pid, nullptr);
}

TEST(SdkFunctions, VisitsEveryFunctionInTheListsOrderByItsSymbolName) {
  PartlyAbsentApi api;
  std::vector<std::string> names;
  api.ForEachFunction([&names](auto&, const char* name) { names.emplace_back(name); });
  EXPECT_EQ(names, (std::vector<std::string>{"strlen", "nodescope_sdk_functions_test_absent_a",
                                             "getpid", "nodescope_sdk_functions_test_absent_b"}));
}

TEST(SdkFunctions, ResolvesEveryFunctionFromTheProcess) {
  const StatusOr<LibcApi> api = ResolveSdkFunctions<LibcApi>("libc", "unused");
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  ASSERT_NE(api->length, nullptr);
  ASSERT_NE(api->pid, nullptr);
  EXPECT_EQ(api->length("four"), 4u);
  EXPECT_EQ(api->pid(), getpid());
}

TEST(SdkFunctions, NamesTheFirstMissingFunction) {
  const StatusOr<PartlyAbsentApi> api =
      ResolveSdkFunctions<PartlyAbsentApi>("Acme (libacme.so.1)", "run it under acmerun");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(api.status().message(),
            "Acme (libacme.so.1) is not loaded in this process "
            "(nodescope_sdk_functions_test_absent_a not found): run it under acmerun");
}

TEST(SdkFunctions, FindsInTheProcessOnlyWhatIsThere) {
  EXPECT_NE(FindInProcess("strlen"), nullptr);
  EXPECT_EQ(FindInProcess("nodescope_sdk_functions_test_absent_a"), nullptr);
}

}  // namespace
}  // namespace nodescope
