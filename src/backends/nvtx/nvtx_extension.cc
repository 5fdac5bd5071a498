// NVTX extensions (payload schemas, memory, counters, ...): on a library's first call into an
// extension, NVTX looks up InitializeInjectionNvtxExtension in the injection library and hands it
// that extension's function slots (nvtxDetail/nvtxExtInit.h). We answer every module:
//
// - the payload extension (NCCL and XLA register enums and schemas before their first collective /
//   dispatch): nvtxDomainIsEnabled answers 1, schema / enum registration hands back the caller's
//   static id or a fresh dynamic one; the payload-only event functions are left to NVTX, which
//   makes them no-ops. Ranges that carry a payload through the core API (nvtxDomainRangePushEx
//   with NVTX_PAYLOAD_TYPE_EXT, NCCL's way) are recorded by the core handlers by their message.
// - any other module, or a payload module of a layout we do not know: no slot is filled.
//
// Every module gets 1 ("initialised"): NVTX then turns the slots we left into no-ops, the way it
// documents for a tool that does not handle a function. Returning 0 would mark the extension
// failed and make nvtxDomainIsEnabled answer 0, which a library may read as "tracing off" and
// stop emitting its core ranges too (nvtxExtImplPayload_v1.h, nvtxInitIsDomainEnabledFn).
//
// Without this entry point in our own library, NVTX's dlsym() on the injection library's handle
// also searches its dependencies and finds libcupti's InitializeInjectionNvtxExtension, whose
// handlers then receive domain handles made by our core handlers: NCCL and JAX died with SIGSEGV
// (VENDOR-FACTS.md, "Extensions"). libnodescope_nvtx.so, the library `nodescope run` names,
// links no vendor library at all (nvtx_shim.cc).
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#undef NVTX_NO_IMPL

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace nodescope::nvtx {
namespace {

std::atomic<uint64_t> g_next_dynamic_id{NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START};

uint64_t DynamicId() { return g_next_dynamic_id.fetch_add(1, std::memory_order_relaxed); }

uint8_t NVTX_API DomainIsEnabled(nvtxDomainHandle_t) { return 1; }

uint64_t NVTX_API SchemaRegister(nvtxDomainHandle_t, const nvtxPayloadSchemaAttr_t* attr) {
  if (attr != nullptr && (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) != 0) {
    return attr->schemaId;
  }
  return DynamicId();
}

uint64_t NVTX_API EnumRegister(nvtxDomainHandle_t, const nvtxPayloadEnumAttr_t* attr) {
  if (attr != nullptr && (attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) != 0) {
    return attr->schemaId;
  }
  return DynamicId();
}

struct Slot {
  size_t index;
  intptr_t fn;
};

template <typename Fn>
Slot S(size_t index, Fn fn) {
  return {index, reinterpret_cast<intptr_t>(fn)};
}

// Fills the payload module's slots we implement, in the layout NVTX_EXT_PAYLOAD_COMPATID names.
void FillPayload(const nvtxExtModuleInfo_t& m) {
  if (m.compatId != NVTX_EXT_PAYLOAD_COMPATID || m.segmentsCount < 1 || m.segments == nullptr) {
    return;
  }
  const nvtxExtModuleSegment_t& seg = m.segments[0];
  if (seg.functionSlots == nullptr) return;
  const Slot slots[] = {
      S(NVTX3EXT_CBID_nvtxDomainIsEnabled, &DomainIsEnabled),
      S(NVTX3EXT_CBID_nvtxPayloadSchemaRegister, &SchemaRegister),
      S(NVTX3EXT_CBID_nvtxPayloadEnumRegister, &EnumRegister),
  };
  for (const Slot& s : slots) {
    if (s.index < seg.slotCount) seg.functionSlots[s.index] = s.fn;
  }
}

}  // namespace
}  // namespace nodescope::nvtx

extern "C" __attribute__((visibility("default"))) int nodescope_nvtx_extension_initialize(
    nvtxExtModuleInfo_t* module) {
  using namespace nodescope::nvtx;
  constexpr size_t kNeeded = offsetof(nvtxExtModuleInfo_t, segments) + sizeof(module->segments);
  if (module != nullptr && module->structSize >= kNeeded &&
      module->moduleId == NVTX_EXT_PAYLOAD_MODULEID) {
    FillPayload(*module);
  }
  return 1;
}

// NVTX's own name, so that libnodescope.so named directly by NVTX_INJECTION64_PATH answers
// extensions itself: dlsym() searches the library before its dependencies (libcupti).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    nvtxExtModuleInfo_t* module) {
  return nodescope_nvtx_extension_initialize(module);
}
