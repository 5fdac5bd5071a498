// `nodescope plot` in a build without simdjson: the subcommand exists and says why it cannot run.
#include <cstdio>

#include "plot_command.h"

namespace nodescope::cli {

void AddPlotCommand(CLI::App& app, int* exit_code) {
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw node durations over replays (unavailable: built without simdjson)");
  plot->allow_extras();
  plot->callback([exit_code]() {
    std::fprintf(stderr,
                 "nodescope plot: this build has no trace reader (simdjson was not found when "
                 "nodescope was built; install libsimdjson-dev and rebuild)\n");
    *exit_code = 2;
  });
}

}  // namespace nodescope::cli
