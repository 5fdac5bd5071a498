// The backend registry (the options every backend shares: tracer_options.cc).
#include <mutex>
#include <string>
#include <utility>

#include "backends/backend.h"

namespace nodescope {
namespace {

struct Entry {
  std::string name;
  TracerFactory factory;
};

std::vector<Entry>& Registry() {
  static std::vector<Entry> registry;
  return registry;
}
std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

bool RegisterTracer(std::string_view name, TracerFactory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().push_back(Entry{std::string(name), factory});
  return true;
}

StatusOr<std::unique_ptr<Tracer>> CreateTracer(std::string_view name) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  for (const Entry& e : Registry()) {
    if (name.empty() || e.name == name) return e.factory();
  }
  if (Registry().empty()) {
    return UnavailableError(
        "this build of nodescope has no GPU backend (no vendor SDK was found when it was "
        "built)");
  }
  return NotFoundError("no backend named '" + std::string(name) + "'");
}

std::vector<std::string> RegisteredTracers() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::vector<std::string> names;
  for (const Entry& e : Registry()) names.push_back(e.name);
  return names;
}

}  // namespace nodescope

namespace nodescope {
namespace {
std::vector<Launcher>& LauncherRegistry() {
  static std::vector<Launcher> registry;
  return registry;
}
}  // namespace

bool RegisterLauncher(const Launcher& launcher) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  LauncherRegistry().push_back(launcher);
  return true;
}

std::vector<Launcher> RegisteredLaunchers() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  return LauncherRegistry();
}

}  // namespace nodescope
