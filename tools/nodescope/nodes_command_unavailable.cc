// `nodescope nodes` in a build without simdjson: the subcommand exists and says why it cannot run.
#include <cstdio>

#include "nodes_command.h"

namespace nodescope::cli {

void AddNodesCommand(CLI::App& app, int* exit_code) {
  CLI::App* nodes = app.add_subcommand(
      "nodes", "Per-node cost across graph replays (unavailable: built without simdjson)");
  nodes->allow_extras();
  nodes->callback([exit_code]() {
    std::fprintf(stderr,
                 "nodescope nodes: this build has no trace reader (simdjson was not found when "
                 "nodescope was built; install libsimdjson-dev and rebuild)\n");
    *exit_code = 2;
  });
}

}  // namespace nodescope::cli
