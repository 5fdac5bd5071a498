// `nodescope run [-o FILE] -- PROGRAM [ARGS...]`: trace an unmodified program.
#pragma once

#include <CLI/CLI.hpp>

namespace nodescope::cli {

// The exit status of `run`'s own failures, usage errors included (the program's statuses pass
// through, so run cannot use 2 as the other subcommands do): 125, as env(1) and timeout(1).
inline constexpr int kRunUsageError = 125;

// Adds the subcommand to `app` and returns it; when it is chosen, `*exit_code` receives the
// program's status.
CLI::App* AddRunCommand(CLI::App& app, int* exit_code);

}  // namespace nodescope::cli
