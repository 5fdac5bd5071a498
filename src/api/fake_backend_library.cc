// Backend libraries for backend_loader_test.cc, one per NODESCOPE_FAKE_BACKEND:
//   0  a good one, built as a real backend is (plugin_client.cc, nodescope_backend_library());
//   1  one of another plugin interface version;
//   2  one of another build;
//   3  a shared library without the plugin interface.
#include <cstdint>
#include <memory>

#include "backends/plugin_abi.h"
#include "base/clock.h"
#include "base/diagnostics.h"

#if NODESCOPE_FAKE_BACKEND == 0

namespace nodescope {
namespace {

// Records in its trace what it sees of the host's range recorder, through the stand-ins a backend
// library links (plugin_client.h): the test checks that they reach the host's one recorder. And
// raises a once-only warning twice through its own copy of the diagnostics channel, which must
// reach the host's sink once and be counted twice in the host's trace.
class LoadedTracer : public Tracer {
 public:
  std::string_view name() const override { return "fake_loaded"; }
  Status Start(const TracerOptions&) override {
    trace_.start_ns = NowNs();
    RangeRecorder& ranges = RangeRecorder::Get();
    trace_.counters.emplace_back("recorder",
                                 static_cast<int64_t>(reinterpret_cast<uintptr_t>(&ranges)));
    trace_.counters.emplace_back("current_range", static_cast<int64_t>(ranges.CurrentRange()));
    ranges.Push("pushed by the backend");
    ranges.Pop();
    for (int i = 0; i < 2; ++i) {
      NODESCOPE_WARN_ONCE("fake_backend_warning", "raised by the backend library (%d)", i);
    }
    return OkStatus();
  }
  Status Stop() override {
    trace_.end_ns = NowNs();
    return OkStatus();
  }
  Trace& trace() override { return trace_; }

 private:
  Trace trace_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterTracer("fake_loaded", [] { return std::unique_ptr<Tracer>(new LoadedTracer); });

}  // namespace
}  // namespace nodescope

#elif NODESCOPE_FAKE_BACKEND == 1 || NODESCOPE_FAKE_BACKEND == 2

namespace {
bool Attach(const nodescope::PluginHostV1*) { return true; }
}  // namespace

extern "C" __attribute__((visibility("default"))) const nodescope::PluginV1* nodescope_plugin_v1(
    void) {
#if NODESCOPE_FAKE_BACKEND == 1
  static const nodescope::PluginV1 plugin{nodescope::kPluginAbiVersion + 1, nodescope::kBuildId,
                                          &Attach};
#else
  static const nodescope::PluginV1 plugin{nodescope::kPluginAbiVersion, "0.0.0-another-build",
                                          &Attach};
#endif
  return &plugin;
}

#else

extern "C" __attribute__((visibility("default"))) int nodescope_fake_not_a_backend(void) {
  return 0;
}

#endif
