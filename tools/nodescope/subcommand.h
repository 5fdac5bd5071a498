// Subcommands register themselves, as LLVM XRay's do (tools/llvm-xray/xray-registry.h): a
// subcommand is one file holding a SubcommandRegistration, and a build without its dependency
// leaves the file out. main.cc adds whatever registered.
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

namespace nodescope::cli {

struct Subcommand {
  // Adds the subcommand to `app` and returns it; when it is chosen, its callback stores the
  // subcommand's exit status in `*exit_code`.
  using Add = CLI::App* (*)(CLI::App& app, int* exit_code);
  int help_order;  // place in `nodescope --help`, ascending
  Add add;
  int usage_error;  // the exit status of a usage error of this subcommand
};

// The exit status of usage errors of most subcommands (`run` passes its program's through and
// has its own, kRunUsageError).
inline constexpr int kUsageError = 2;

// Declare one at namespace scope in the subcommand's file.
class SubcommandRegistration {
 public:
  SubcommandRegistration(int help_order, Subcommand::Add add, int usage_error = kUsageError);
};

// Every registered subcommand, in help_order.
std::vector<Subcommand> RegisteredSubcommands();

}  // namespace nodescope::cli
