// A backend library's link to libnodescope.so (plugin_client.h).
#include "backends/plugin_client.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace nodescope {
namespace {

struct Pending {
  std::string name;
  TracerFactory factory;
};

std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}
// What this library's static initialisers registered, kept for the host.
std::vector<Pending>& PendingTracers() {
  static std::vector<Pending> pending;
  return pending;
}
std::atomic<const PluginHostV1*> g_host{nullptr};

const PluginHostV1& Host() {
  const PluginHostV1* host = g_host.load(std::memory_order_acquire);
  if (host == nullptr) {
    // Tracers are created only through the host's registry, after attach: unreachable.
    LogError("plugin_not_attached",
             "internal error: a backend used libnodescope.so before being attached to it");
    std::abort();
  }
  return *host;
}

bool Attach(const PluginHostV1* host) {
  if (host == nullptr || !BuildMismatch("", host->abi_version, host->build_id).empty()) {
    return false;
  }
  std::lock_guard<std::mutex> lock(Mutex());
  const PluginHostV1* current = g_host.load(std::memory_order_acquire);
  if (current != nullptr) return current == host;
  // Messages first: the library's tracers report only once the host creates them.
  ForwardDiagnostics(host->raise_diagnostic);
  for (const Pending& p : PendingTracers()) {
    host->register_tracer(p.name.data(), p.name.size(), p.factory);
  }
  g_host.store(host, std::memory_order_release);
  return true;
}

const PluginV1 kPlugin{kPluginAbiVersion, kBuildId, &Attach};

}  // namespace

StatusOr<const PluginHostV1*> AttachToHost(const PluginHostV1* host) {
  if (host == nullptr) return InternalError("libnodescope.so offers no plugin interface");
  std::string mismatch = BuildMismatch("libnodescope.so", host->abi_version, host->build_id);
  if (!mismatch.empty()) return FailedPreconditionError(mismatch);
  if (!Attach(host)) return InternalError("already attached to another libnodescope.so");
  return host;
}

// The registry of this library: kept until attached (backends/backend.h).
bool RegisterTracer(std::string_view name, TracerFactory factory) {
  std::lock_guard<std::mutex> lock(Mutex());
  PendingTracers().push_back(Pending{std::string(name), factory});
  return true;
}

// The host's range recorder (ranges/range_recorder.h): the object, and the members that must run
// there. Collect() and counter_values() belong to the session and are not offered.
RangeRecorder& RangeRecorder::Get() { return *Host().recorder; }
uint64_t RangeRecorder::Push(std::string_view name, uint32_t domain) {
  return Host().range_push(name.data(), name.size(), domain);
}
void RangeRecorder::Pop() { Host().range_pop(); }
uint64_t RangeRecorder::Start(std::string_view name, uint32_t domain) {
  return Host().range_start(name.data(), name.size(), domain);
}
void RangeRecorder::End(uint64_t id) { Host().range_end(id); }
uint64_t RangeRecorder::CurrentRange() { return Host().current_range(); }
void RangeRecorder::SyncThisThread() { Host().sync_this_thread(); }
uint32_t RangeRecorder::RegisterDomain(std::string_view name) {
  return Host().register_domain(name.data(), name.size());
}

}  // namespace nodescope

extern "C" __attribute__((visibility("default"))) const nodescope::PluginV1* nodescope_plugin_v1(
    void) {
  return &nodescope::kPlugin;
}
