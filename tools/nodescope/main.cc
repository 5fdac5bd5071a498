// nodescope: the command-line entry point. Subcommands live in their own files.
#include <CLI/CLI.hpp>

#include "base/version.h"
#include "check_command.h"
#include "nodes_command.h"
#include "plot_command.h"
#include "run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"nodescope: a GPU tracer that names every graph node across replays"};
  app.set_version_flag("--version", "nodescope " NODESCOPE_VERSION_STRING);
  app.require_subcommand(1);
  int exit_code = 0;
  CLI::App* run = nodescope::cli::AddRunCommand(app, &exit_code);
  nodescope::cli::AddCheckCommand(app, &exit_code);
  nodescope::cli::AddNodesCommand(app, &exit_code);
  nodescope::cli::AddPlotCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    // CLI11 returns 0 for --help/--version; usage errors get 2, like other tools, except those
    // of `run`, whose statuses are the program's: it uses 125, as env(1) and timeout(1) do.
    if (rc == 0) return 0;
    return run->parsed() ? nodescope::cli::kRunUsageError : 2;
  }
  return exit_code;
}
