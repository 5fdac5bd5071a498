// `nodescope check [--json] TRACE.json...`: are a trace's graph-node keys ever aliased?
#pragma once

#include <CLI/CLI.hpp>

namespace nodescope::cli {

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 when every trace is
// clean, 1 when any has aliased or inconsistent keys, 2 when any cannot be read.
void AddCheckCommand(CLI::App& app, int* exit_code);

}  // namespace nodescope::cli
