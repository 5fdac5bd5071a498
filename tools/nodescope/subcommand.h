// Subcommands register themselves, as LLVM XRay's do (tools/llvm-xray/xray-registry.h): a
// subcommand is one file holding a SubcommandRegistration, and a build without its dependency
// leaves the file out. main.cc adds whatever registered.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace nodescope::cli {

struct Subcommand {
  // Adds the subcommand to `app` and returns it; when it is chosen, its callback stores the
  // subcommand's exit status in `*exit_code`.
  using Add = CLI::App* (*)(CLI::App& app, int* exit_code);
  const char* name;
  Add add;
  int usage_error;  // the exit status of a usage error of this subcommand
};

// Every subcommand's name in `nodescope --help` order, built or not: the order of the
// nodescope_subcommand() calls in tools/nodescope/CMakeLists.txt (NODESCOPE_SUBCOMMANDS).
std::vector<std::string> SubcommandOrder();
// Those this build left out (a dependency missing), and why ("" when none is).
std::vector<std::string> NotBuiltSubcommands();
const char* NotBuiltReason();

// The exit status of usage errors of most subcommands (`run` passes its program's through and
// has its own, kRunUsageError).
inline constexpr int kUsageError = 2;

// Declare one at namespace scope in the subcommand's file; `name` as in the CMake call.
class SubcommandRegistration {
 public:
  SubcommandRegistration(const char* name, Subcommand::Add add, int usage_error = kUsageError);
};

// Every registered subcommand, in SubcommandOrder() (a name missing from it last).
std::vector<Subcommand> RegisteredSubcommands();

}  // namespace nodescope::cli
