// libnodescope.so's side of backends/plugin_abi.h: the registry, the range recorder, the process
// session and the diagnostics channel, offered to backend libraries as one table.
#include <string_view>

#include "api/process_session.h"
#include "backends/plugin_abi.h"

namespace nodescope {
namespace {

std::string_view View(const char* s, size_t n) { return std::string_view(s, n); }

bool HostRegisterTracer(const char* name, size_t size, TracerFactory factory) {
  return RegisterTracer(View(name, size), factory);
}
uint64_t HostPush(const char* name, size_t size, uint32_t domain) {
  return RangeRecorder::Get().Push(View(name, size), domain);
}
void HostPop() { RangeRecorder::Get().Pop(); }
uint64_t HostStart(const char* name, size_t size, uint32_t domain) {
  return RangeRecorder::Get().Start(View(name, size), domain);
}
void HostEnd(uint64_t id) { RangeRecorder::Get().End(id); }
uint64_t HostCurrentRange() { return RangeRecorder::Get().CurrentRange(); }
void HostSyncThisThread() { RangeRecorder::Get().SyncThisThread(); }
uint32_t HostRegisterDomain(const char* name, size_t size) {
  return RangeRecorder::Get().RegisterDomain(View(name, size));
}
bool HostStartProcessSession(const char* backend) {
  return StartProcessSession(backend != nullptr ? backend : "").ok();
}

}  // namespace
}  // namespace nodescope

extern "C" __attribute__((visibility("default"))) const nodescope::PluginHostV1*
nodescope_plugin_host_v1(void) {
  using namespace nodescope;
  static const PluginHostV1 host{
      kPluginAbiVersion,   kBuildId,
      &HostRegisterTracer, &RangeRecorder::Get(),
      &HostPush,           &HostPop,
      &HostStart,          &HostEnd,
      &HostCurrentRange,   &HostSyncThisThread,
      &HostRegisterDomain, &HostStartProcessSession,
      &RaiseDiagnostic,
  };
  return &host;
}
