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

// A subcommand this build left out (nodescope_subcommand() in tools/nodescope/CMakeLists.txt:
// its dependency was not found). `nodescope check` then says so instead of "not expected".
bool IsNotBuilt(const std::vector<std::string>& not_built, const char* name) {
  return std::find(not_built.begin(), not_built.end(), name) != not_built.end();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nodescope: a GPU tracer that names every graph node across replays"};
  app.set_version_flag("--version", "nodescope " NODESCOPE_VERSION_STRING);
  app.require_subcommand(1);
  const std::vector<std::string> not_built = nodescope::cli::NotBuiltSubcommands();
  if (!not_built.empty()) {
    std::string names;
    for (const std::string& n : not_built) names += (names.empty() ? "" : ",") + n;
    app.footer("Not built in: " + names + ": " + nodescope::cli::NotBuiltReason());
    if (argc > 1 && IsNotBuilt(not_built, argv[1])) {
      std::fprintf(stderr, "nodescope %s: not built in: %s\n", argv[1],
                   nodescope::cli::NotBuiltReason());
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
