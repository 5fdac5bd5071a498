// Attaching a backend library's entry point to libnodescope.so, or saying why not.
#include "backends/attach_or_report.h"

#include <unistd.h>

#include "backends/plugin_client.h"
#include "base/diagnostics.h"
#include "model/run_report.h"

namespace nodescope {

const PluginHostV1* AttachToHostOrReport() {
  StatusOr<const PluginHostV1*> host = AttachToHost(nodescope_plugin_host_v1());
  if (host.ok()) return *host;
  report::Line line;
  line.kind = report::Line::Kind::kError;
  line.pid = static_cast<uint64_t>(getpid());
  line.message = host.status().ToString();
  report::WriteLine(report::ReportFdFromEnv(), line);
  // Not attached: the library's own channel, so stderr.
  LogError("not_tracing", "not tracing pid %d: %s", static_cast<int>(getpid()),
           line.message.c_str());
  return nullptr;
}

}  // namespace nodescope
