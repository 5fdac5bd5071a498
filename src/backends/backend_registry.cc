// The backend registry and the options every backend shares.
#include <cerrno>
#include <cstdlib>
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

Status ParseEnvUint(const char* var, uint64_t min, uint64_t* out) {
  const char* text = std::getenv(var);
  if (text == nullptr || *text == '\0') return OkStatus();
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] == '-' || v < min) {
    return InvalidArgumentError(std::string(var) + "='" + text +
                                "' is not an integer >= " + std::to_string(min));
  }
  *out = v;
  return OkStatus();
}

}  // namespace

StatusOr<TracerOptions> TracerOptionsFromEnv() {
  TracerOptions o;
  uint64_t mb = o.buffer_bytes >> 20, buffers = o.max_buffers, events = o.max_events;
  RETURN_IF_ERROR(ParseEnvUint("NODESCOPE_BUFFER_SIZE_MB", 1, &mb));
  RETURN_IF_ERROR(ParseEnvUint("NODESCOPE_MAX_BUFFERS", 2, &buffers));
  RETURN_IF_ERROR(ParseEnvUint("NODESCOPE_MAX_EVENTS", 1, &events));
  o.buffer_bytes = static_cast<size_t>(mb) << 20;
  o.max_buffers = static_cast<size_t>(buffers);
  o.max_events = events;
  if (const char* off = std::getenv("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION")) {
    std::string v = off;
    if (v == "1" || v == "true" || v == "yes") {
      o.graph_attribution = false;
    } else if (!v.empty() && v != "0" && v != "false" && v != "no") {
      return InvalidArgumentError("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION='" + v +
                                  "' is not one of 1/true/yes/0/false/no");
    }
  }
  return o;
}

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
    return UnavailableError("this build of nodescope has no GPU backend (was the CUDA toolkit "
                            "found at build time?)");
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
