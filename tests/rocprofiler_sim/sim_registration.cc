// The simulated rocprofiler-sdk's registration: tools are found as the SDK finds them (a forced one
// first; then one in the process and in each loaded library; then each library of
// ROCP_TOOL_LIBRARIES, ':'-separated, dlopen()ed and its rocprofiler_configure called), each tool's
// initialize() runs at the first runtime call (or in rocprofiler_force_configure) with services
// configurable only then, and at exit code objects are unloaded, each tool's
// finalize runs (last configured first), contexts stop and the SDK's delivery thread ends.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "sim_internal.h"

namespace sim {
namespace {

rocprofiler_configure_func_t g_forced = nullptr;
// rocprofiler_is_initialized(): 0 before, -1 while the tools initialize, 1 after.
std::atomic<int> g_init_status{0};

struct Client {
  rocprofiler_tool_configure_result_t* result;
  uint32_t handle;
  bool finalized;
};
std::vector<Client>& g_clients = *new std::vector<Client>;
std::mutex& g_clients_mutex = *new std::mutex;

void CallClientFinalize(Client& client) {
  if (client.finalized) return;
  client.finalized = true;
  if (client.result->finalize != nullptr) client.result->finalize(client.result->tool_data);
}

void FinalizeClient(rocprofiler_client_id_t id) {
  std::lock_guard<std::mutex> lock(g_clients_mutex);
  for (Client& client : g_clients)
    if (client.handle == id.handle) CallClientFinalize(client);
}

void Finalize() {
  if (MarkFinalized()) return;
  UnloadCodeObjects();
  {
    std::lock_guard<std::mutex> lock(g_clients_mutex);
    for (auto it = g_clients.rbegin(); it != g_clients.rend(); ++it) CallClientFinalize(*it);
  }
  StopContexts();  // finalized: no more callbacks or records, whatever threads still do
  StopBufferDelivery();
}

void Configure(rocprofiler_configure_func_t configure, const char* from) {
  if (configure == nullptr) return;
  // One call per distinct function, as the SDK does (a tool in the process may also be listed).
  static std::vector<rocprofiler_configure_func_t> seen;
  for (auto f : seen)
    if (f == configure) return;
  seen.push_back(configure);
  const uint32_t priority = static_cast<uint32_t>(seen.size() - 1);
  rocprofiler_client_id_t id{sizeof(rocprofiler_client_id_t), nullptr, priority};
  rocprofiler_tool_configure_result_t* result =
      configure(ROCPROFILER_VERSION, "1.0.0", priority, &id);
  if (result == nullptr) {
    std::fprintf(stderr, "[sim-rocprofiler] %s: rocprofiler_configure declined\n", from);
    return;
  }
  g_clients.push_back(Client{result, priority, false});
}

// Every library loaded in the process that defines rocprofiler_configure, the main program's
// excepted (looked up in the process below), as the SDK walks the link map (find_clients()).
int ConfigureLoadedTool(dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  Configure(reinterpret_cast<rocprofiler_configure_func_t>(dlsym(handle, "rocprofiler_configure")),
            info->dlpi_name);
  dlclose(handle);
  return 0;
}

void Initialize() {
  g_init_status.store(-1);
  if (g_forced != nullptr) Configure(g_forced, "(forced)");
  Configure(
      reinterpret_cast<rocprofiler_configure_func_t>(dlsym(RTLD_DEFAULT, "rocprofiler_configure")),
      "(process)");
  dl_iterate_phdr(&ConfigureLoadedTool, nullptr);
  if (const char* env = std::getenv("ROCP_TOOL_LIBRARIES"); env != nullptr) {
    std::string list = env;
    size_t begin = 0;
    while (begin <= list.size()) {
      size_t end = list.find(':', begin);
      if (end == std::string::npos) end = list.size();
      std::string path = list.substr(begin, end - begin);
      begin = end + 1;
      if (path.empty()) continue;
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        std::fprintf(stderr, "[sim-rocprofiler] ROCP_TOOL_LIBRARIES: %s\n", dlerror());
        std::abort();  // the real SDK stops here too (ROCP_FATAL)
      }
      Configure(
          reinterpret_cast<rocprofiler_configure_func_t>(dlsym(handle, "rocprofiler_configure")),
          path.c_str());
    }
  }
  SetConfiguring(true);
  for (Client& client : g_clients) {
    if (client.result->initialize == nullptr) continue;
    if (client.result->initialize(&FinalizeClient, client.result->tool_data) != 0)
      client.finalized = true;  // a tool that fails to initialize is not finalized
  }
  SetConfiguring(false);
  std::atexit(&Finalize);
  g_init_status.store(1);
}

}  // namespace

void EnsureInitialized() {
  static std::once_flag once;
  std::call_once(once, &Initialize);
}

}  // namespace sim

extern "C" {

// As the SDK's: refused once initialization began or after another forced tool; otherwise the
// tools are found and initialized now, the forced one first (README, "In-process tools").
rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func) {
  if (sim::g_init_status.load() != 0 || sim::g_forced != nullptr)
    return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
  sim::g_forced = configure_func;
  sim::EnsureInitialized();
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_is_initialized(int* status) {
  *status = sim::g_init_status.load();
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_is_finalized(int* status) {
  *status = sim::Finalized() ? 1 : 0;
  return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
