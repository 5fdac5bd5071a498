// `nodescope check` in a build without simdjson: the subcommand exists and says why it cannot run.
#include <cstdio>

#include "check_command.h"

namespace nodescope::cli {

void AddCheckCommand(CLI::App& app, int* exit_code) {
  CLI::App* check = app.add_subcommand(
      "check", "Check graph-node keys of traces (unavailable: built without simdjson)");
  check->allow_extras();
  check->callback([exit_code]() {
    std::fprintf(stderr,
                 "nodescope check: this build has no trace reader (simdjson was not found when "
                 "nodescope was built; install libsimdjson-dev and rebuild)\n");
    *exit_code = 2;
  });
}

}  // namespace nodescope::cli
