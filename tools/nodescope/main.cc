// nodescope: the command-line entry point. Subcommands live in their own files and register
// themselves (subcommand.h); this file adds whatever registered.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/terminal_text.h"
#include "base/version.h"
#include "subcommand.h"

namespace {

// Subcommands this build left out (their dependency was not found), as CMake names them:
// "check,nodes,plot", and why. `nodescope check` then says so instead of "not expected".
#ifdef NODESCOPE_NOT_BUILT_SUBCOMMANDS
constexpr const char* kNotBuilt = NODESCOPE_NOT_BUILT_SUBCOMMANDS;
constexpr const char* kNotBuiltReason = NODESCOPE_NOT_BUILT_REASON;
#else
constexpr const char* kNotBuilt = "";
constexpr const char* kNotBuiltReason = "";
#endif

bool IsNotBuilt(const char* name) {
  const std::string list = std::string(",") + kNotBuilt + ",";
  return *name != '\0' && list.find("," + std::string(name) + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nodescope: a GPU tracer that names every graph node across replays"};
  app.set_version_flag("--version", "nodescope " NODESCOPE_VERSION_STRING);
  app.require_subcommand(1);
  if (*kNotBuilt != '\0') {
    app.footer(std::string("Not built in: ") + kNotBuilt + ": " + kNotBuiltReason);
    if (argc > 1 && IsNotBuilt(argv[1])) {
      std::fprintf(stderr, "nodescope %s: not built in: %s\n", argv[1], kNotBuiltReason);
      return nodescope::cli::kUsageError;
    }
  }
  int exit_code = 0;
  struct Added {
    CLI::App* app;
    int usage_error;
  };
  std::vector<Added> added;
  for (const nodescope::cli::Subcommand& sub : nodescope::cli::RegisteredSubcommands()) {
    added.push_back(Added{sub.add(app, &exit_code), sub.usage_error});
  }
  // A first argument that is neither an option nor a subcommand: said so, with the subcommands
  // (CLI11 would say "A subcommand is required", as if none had been given).
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(added.begin(), added.end(),
                   [&](const Added& sub) { return sub.app->check_name(argv[1]); })) {
    std::string message = "nodescope: '";
    message += nodescope::TerminalText(argv[1]);
    message += "' is not a subcommand (this build has: ";
    for (size_t i = 0; i < added.size(); ++i) {
      if (i > 0) message += ", ";
      message += added[i].app->get_name();
    }
    message += ")\nRun with --help for more information.\n";
    std::fputs(message.c_str(), stderr);
    return nodescope::cli::kUsageError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    // CLI11 returns 0 for --help/--version; usage errors get the chosen subcommand's status: 2,
    // like other tools, except for `run`, whose statuses are the program's (125, as env(1)).
    if (rc == 0) return 0;
    for (const Added& sub : added) {
      if (sub.app->parsed()) return sub.usage_error;
    }
    return nodescope::cli::kUsageError;
  }
  return exit_code;
}
