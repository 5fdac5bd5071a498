// `nodescope run [-o FILE] -- PROGRAM [ARGS...]`: trace an unmodified program.
#pragma once

#include <CLI/CLI.hpp>

namespace nodescope::cli {

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives the program's status.
void AddRunCommand(CLI::App& app, int* exit_code);

}  // namespace nodescope::cli
