// A vendor SDK's functions as pointers resolved from the running process (dlsym(RTLD_DEFAULT)):
// a backend library that calls them so links no SDK, and one build serves the real SDK and the
// simulated one in tests. A backend lists its SDK's functions once, X(member, symbol) for each
// (the pointer's name in its table, the SDK's name for the function), after including its SDK's
// header; no vendor header is included here:
//
//   #define NODESCOPE_ACME_FUNCTIONS(X) X(start, acmeStart) X(stop, acmeStop)
//   struct AcmeApi {
//     NODESCOPE_SDK_FUNCTIONS(NODESCOPE_ACME_FUNCTIONS)
//   };
//   StatusOr<AcmeApi> api = ResolveSdkFunctions<AcmeApi>("Acme (libacme.so.1)", "use acmerun");
//
// A pointer's type is the declared function's (decltype) and the name looked up is the same token
// quoted, so the two cannot disagree.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"

// Inside a struct: one pointer per function of `list`, null until resolved, and
// ForEachFunction(visit), which calls visit(pointer, "symbol") for each in the list's order.
// clang-format off
#define NODESCOPE_SDK_FUNCTIONS(list)   \
  list(NODESCOPE_SDK_FUNCTION_POINTER)  \
  template <typename Visit>             \
  void ForEachFunction(Visit&& visit) { \
    list(NODESCOPE_SDK_FUNCTION_VISIT)  \
  }
// clang-format on
#define NODESCOPE_SDK_FUNCTION_POINTER(member, symbol) decltype(&symbol) member = nullptr;
#define NODESCOPE_SDK_FUNCTION_VISIT(member, symbol) visit(member, #symbol);

namespace nodescope {

// `name`'s address in the running process (dlsym(RTLD_DEFAULT)), or null.
void* FindInProcess(const char* name);

// "<sdk> is not loaded in this process (<missing> not found): <hint>".
Status SdkNotLoadedError(std::string_view sdk, std::string_view missing, std::string_view hint);

// An Api (a struct of NODESCOPE_SDK_FUNCTIONS) with every function from the running process; else
// SdkNotLoadedError naming the first one missing.
template <typename Api>
StatusOr<Api> ResolveSdkFunctions(std::string_view sdk, std::string_view hint) {
  Api api;
  std::string missing;
  api.ForEachFunction([&missing](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(FindInProcess(name));
    if (fn == nullptr && missing.empty()) missing = name;
  });
  if (!missing.empty()) return SdkNotLoadedError(sdk, missing, hint);
  return api;
}

}  // namespace nodescope
