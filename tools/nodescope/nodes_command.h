// `nodescope nodes TRACE.json [--diff B.json]`: per-node cost across graph replays.
#pragma once

#include <CLI/CLI.hpp>

namespace nodescope::cli {

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 on success, 1 when a
// trace has no graph-keyed work (or not the --graph asked for), 2 when a trace cannot be read.
void AddNodesCommand(CLI::App& app, int* exit_code);

}  // namespace nodescope::cli
