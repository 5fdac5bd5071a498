// `nodescope plot TRACE.json [--graph ID] [--node ID]... [--heatmap] -o FILE.svg|FILE.html`.
#pragma once

#include <CLI/CLI.hpp>

namespace nodescope::cli {

// Adds the subcommand to `app`; when it is chosen, `*exit_code` receives 0 when the picture was
// written, 1 when there is nothing to draw (no graph keys, an unknown --graph or --node), 2 when
// the trace cannot be read, the output name is not .svg/.html, or the output cannot be written.
void AddPlotCommand(CLI::App& app, int* exit_code);

}  // namespace nodescope::cli
