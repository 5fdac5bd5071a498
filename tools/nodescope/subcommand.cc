// The subcommand registry: filled by static registrations before main() runs.
#include "subcommand.h"

#include <algorithm>

namespace nodescope::cli {
namespace {

// A function-local static: registrations in other files may run before this file's statics.
std::vector<Subcommand>& Registry() {
  static std::vector<Subcommand> registry;
  return registry;
}

}  // namespace

SubcommandRegistration::SubcommandRegistration(int help_order, Subcommand::Add add,
                                               int usage_error) {
  Registry().push_back(Subcommand{help_order, add, usage_error});
}

std::vector<Subcommand> RegisteredSubcommands() {
  std::vector<Subcommand> out = Registry();
  std::stable_sort(out.begin(), out.end(), [](const Subcommand& a, const Subcommand& b) {
    return a.help_order < b.help_order;
  });
  return out;
}

}  // namespace nodescope::cli
