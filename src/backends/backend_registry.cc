// The backend registry and the options every backend shares.
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "backends/backend.h"
#include "base/env.h"

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

// NODESCOPE_RING, NODESCOPE_STREAM, NODESCOPE_CAPTURE_EVERY (ring_window.h).
Status ReadWindowOptions(TracerOptions* o) {
  auto value = [](const char* var) -> std::string_view {
    const char* v = std::getenv(var);
    return v != nullptr ? std::string_view(v) : std::string_view();
  };
  if (std::string_view v = value("NODESCOPE_RING"); !v.empty()) {
    StatusOr<WindowPolicy> ring = ParseWindowPolicy(v, "NODESCOPE_RING");
    if (!ring.ok()) return ring.status();
    o->ring = *ring;
  }
  if (std::string_view v = value("NODESCOPE_STREAM"); !v.empty()) {
    StatusOr<uint64_t> records = ParseRecordCount(v, "NODESCOPE_STREAM");
    if (!records.ok()) return records.status();
    if (o->ring.enabled()) {
      return InvalidArgumentError("NODESCOPE_STREAM and NODESCOPE_RING cannot be used together");
    }
    o->stream_records = *records;
  }
  if (std::string_view v = value("NODESCOPE_CAPTURE_EVERY"); !v.empty()) {
    StatusOr<uint64_t> ns = ParseDurationNs(v, "NODESCOPE_CAPTURE_EVERY");
    if (!ns.ok()) return ns.status();
    o->capture_every_ns = *ns;
  }
  // The window bounds memory: the store cap applies only when asked for.
  const char* max = std::getenv("NODESCOPE_MAX_EVENTS");
  if ((o->ring.enabled() || o->stream_records != 0) && (max == nullptr || *max == '\0')) {
    o->max_events = kMaxEvents;
  }
  return OkStatus();
}

}  // namespace

StatusOr<TracerOptions> TracerOptionsFromEnv() {
  TracerOptions o;
  uint64_t mb = o.buffer_bytes >> 20, buffers = o.max_buffers, events = o.max_events;
  RETURN_IF_ERROR(ReadEnvDecimal("NODESCOPE_BUFFER_SIZE_MB", 1, kMaxBufferSizeMb, &mb));
  RETURN_IF_ERROR(ReadEnvDecimal("NODESCOPE_MAX_BUFFERS", 2, kMaxBuffers, &buffers));
  RETURN_IF_ERROR(ReadEnvDecimal("NODESCOPE_MAX_EVENTS", 1, kMaxEvents, &events));
  o.buffer_bytes = static_cast<size_t>(mb) << 20;
  o.max_buffers = static_cast<size_t>(buffers);
  o.max_events = events;
  uint64_t every = o.sample_every;
  RETURN_IF_ERROR(ReadEnvDecimal("NODESCOPE_SAMPLE", 1, kMaxSampleEvery, &every));
  o.sample_every = static_cast<uint32_t>(every);
  uint64_t burst = o.sample_burst;
  RETURN_IF_ERROR(ReadEnvDecimal("NODESCOPE_SAMPLE_BURST", 1, kMaxSampleBurst, &burst));
  o.sample_burst = static_cast<uint32_t>(burst);
  bool disable = false;
  RETURN_IF_ERROR(ReadEnvFlag("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION", &disable));
  o.graph_attribution = !disable;
  // Read by the CUDA backend where it is used; checked here so that a bad value is refused
  // before the program starts, as every other variable is.
  bool debug_graph_callbacks = false;
  RETURN_IF_ERROR(ReadEnvFlag("NODESCOPE_DEBUG_GRAPH_CALLBACKS", &debug_graph_callbacks));
  RETURN_IF_ERROR(ReadWindowOptions(&o));
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
