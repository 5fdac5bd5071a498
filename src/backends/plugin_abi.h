// The interface between libnodescope.so (the host: the tracer registry, the one range recorder,
// the process session) and a backend library, libnodescope_<vendor>.so (the vendor's tracer, its
// SDK, its injection entry point). Each side finds the other through one extern "C" function;
// nothing else crosses between them, so no C++ symbol of either is exported (api/exports.map).
//
// The tables carry C++ types (TracerFactory, RangeRecorder), so both sides must come from one
// build: each checks the other's abi_version and build_id (the first two fields, which never
// move) before using anything else, and a library from another build is refused with a message
// naming both builds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/backend.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope {

// Bumped with any change to the two tables below.
inline constexpr uint32_t kPluginAbiVersion = 2;

// What libnodescope.so offers a backend library (nodescope_plugin_host_v1()).
struct PluginHostV1 {
  uint32_t abi_version;  // kPluginAbiVersion of the host's build
  const char* build_id;  // base/build_id.h of the host's build
  // The tracer registry (backends/backend.h, RegisterTracer).
  bool (*register_tracer)(const char* name, size_t name_size, TracerFactory factory);
  // The one range recorder. A backend uses its inline members (Arm, SetListener) on it; its
  // out-of-line members must run in the host, where their per-thread state lives: those below.
  RangeRecorder* recorder;
  uint64_t (*range_push)(const char* name, size_t name_size, uint32_t domain);
  void (*range_pop)();
  uint64_t (*range_start)(const char* name, size_t name_size, uint32_t domain);
  void (*range_end)(uint64_t id);
  uint64_t (*current_range)();
  void (*sync_this_thread)();
  uint32_t (*register_domain)(const char* name, size_t name_size);
  // Starts the whole-process session (`nodescope run`) with the named backend
  // (api/process_session.h); false if it could not (it has said why, through the diagnostics
  // channel and on the report pipe).
  bool (*start_process_session)(const char* backend);
  // The host's diagnostics channel (base/diagnostics.h, RaiseDiagnostic): an attached library
  // forwards its own copy of the channel here (ForwardDiagnostics), so the sink a program
  // installed receives the library's messages and a session counts its warnings.
  DiagnosticRaise raise_diagnostic;
};

// What a backend library offers (nodescope_plugin_v1()).
struct PluginV1 {
  uint32_t abi_version;  // kPluginAbiVersion of the library's build
  const char* build_id;  // base/build_id.h of the library's build
  // Registers the library's tracers with `host`, which the caller has checked is of the same
  // build. Idempotent for one host; false for a second, different host or another build.
  bool (*attach)(const PluginHostV1* host);
};

// This build's identity (base/build_id.h), as both tables carry it.
extern const char* const kBuildId;

// Why a library of interface `abi_version` and build `build_id` cannot work with this build; empty
// if it can. `what` names the other side in the message ("libnodescope_cuda.so").
std::string BuildMismatch(const std::string& what, uint32_t abi_version, const char* build_id);

}  // namespace nodescope

extern "C" {
// Defined by libnodescope.so (api/plugin_host.cc).
const nodescope::PluginHostV1* nodescope_plugin_host_v1(void);
// Defined by every backend library (backends/plugin_client.cc).
const nodescope::PluginV1* nodescope_plugin_v1(void);
}
