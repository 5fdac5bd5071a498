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

std::vector<std::string> Split(const char* list) {
  std::vector<std::string> out;
  std::string item;
  for (const char* p = list;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(item);
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> SubcommandOrder() { return Split(NODESCOPE_SUBCOMMANDS); }
std::vector<std::string> NotBuiltSubcommands() { return Split(NODESCOPE_NOT_BUILT_SUBCOMMANDS); }
const char* NotBuiltReason() { return NODESCOPE_NOT_BUILT_REASON; }

SubcommandRegistration::SubcommandRegistration(const char* name, Subcommand::Add add,
                                               int usage_error) {
  Registry().push_back(Subcommand{name, add, usage_error});
}

std::vector<Subcommand> RegisteredSubcommands() {
  const std::vector<std::string> order = SubcommandOrder();
  auto place = [&](const Subcommand& s) {
    return std::find(order.begin(), order.end(), s.name) - order.begin();
  };
  std::vector<Subcommand> out = Registry();
  std::stable_sort(out.begin(), out.end(),
                   [&](const Subcommand& a, const Subcommand& b) { return place(a) < place(b); });
  return out;
}

}  // namespace nodescope::cli
