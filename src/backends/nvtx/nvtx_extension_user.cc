// A program that uses NVTX the way NCCL and XLA do — a domain, payload enums and schemas
// registered before the first range, core ranges carrying an extended payload — plus the memory
// and counters extensions. Run with NVTX_INJECTION64_PATH naming our injection library (no GPU is
// needed: NVTX initialises on its own), it checks that:
//  - it does not crash (libcupti's extension handlers, reached through our library's
//    dependencies, crashed NCCL and JAX under `nodescope run`);
//  - NVTX's entry points resolve in the named library itself, which exposes no CUPTI symbol;
//  - the extension is answered (ids handed back, the domain enabled) and the core ranges are
//    still ours after the extensions initialised (a push returns a level, not "no tool").
// Prints one line per check; exits 1 if any fails.
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCounters.h>
#include <nvtx3/nvToolsExtMem.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

// Where `symbol` resolves when looked up the way NVTX does: dlsym() on the library's handle.
const char* ResolvedIn(void* lib, const char* symbol) {
  void* p = dlsym(lib, symbol);
  Dl_info info{};
  if (p == nullptr || dladdr(p, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return info.dli_fname;
}

struct CollectiveArgs {
  uint64_t bytes;
  int32_t op;
};

}  // namespace

int main(int argc, char** argv) {
  // --no-vendor-symbols: the library must not expose CUPTI's symbols (libnodescope_nvtx.so,
  // libnodescope.so).
  bool no_vendor = argc > 1 && std::strcmp(argv[1], "--no-vendor-symbols") == 0;
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') {
    std::fputs("set NVTX_INJECTION64_PATH to the injection library\n", stderr);
    return 2;
  }

  // Before any NVTX call: is the injection library's handle clean?
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  Check(lib != nullptr, "the injection library loads");
  if (lib == nullptr) return 1;
  const char* core = ResolvedIn(lib, "InitializeInjectionNvtx2");
  const char* ext = ResolvedIn(lib, "InitializeInjectionNvtxExtension");
  Check(core != nullptr && std::strcmp(core, path) == 0,
        "InitializeInjectionNvtx2 resolves in the named library");
  Check(ext != nullptr && std::strcmp(ext, path) == 0,
        "InitializeInjectionNvtxExtension resolves in the named library");
  std::printf("     (extension entry point from %s)\n", ext != nullptr ? ext : "nowhere");
  if (no_vendor) {
    Check(dlsym(lib, "cuptiSubscribe") == nullptr && dlsym(lib, "cuInit") == nullptr,
          "no CUPTI or CUDA symbol reachable through the library's handle");
  }

  // The core, as every NVTX user.
  int level = nvtxRangePushA("outer");
  Check(level >= 0, "core push handled by the tool");
  nvtxDomainHandle_t domain = nvtxDomainCreateA("NCCL");
  Check(domain != nullptr, "domain created");

  // The payload extension, as NCCL does before its first collective.
  const nvtxPayloadEnum_t ops[] = {{"Sum", 0, 0}, {"Max", 1, 0}};
  nvtxPayloadEnumAttr_t enum_attr{};
  enum_attr.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                        NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                        NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
  enum_attr.entries = ops;
  enum_attr.numEntries = 2;
  enum_attr.sizeOfEnum = sizeof(int32_t);
  enum_attr.schemaId = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1;
  uint64_t enum_id = nvtxPayloadEnumRegister(domain, &enum_attr);
  Check(enum_id == NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1, "payload enum: static id handed back");

  const nvtxPayloadSchemaEntry_t entries[] = {
      {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "bytes", nullptr, 0, offsetof(CollectiveArgs, bytes),
       nullptr, nullptr},
      {0, NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1, "op", nullptr, 0, offsetof(CollectiveArgs, op),
       nullptr, nullptr},
  };
  nvtxPayloadSchemaAttr_t schema{};
  schema.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
  schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
  schema.entries = entries;
  schema.numEntries = 2;
  schema.payloadStaticSize = sizeof(CollectiveArgs);
  uint64_t schema_id = nvtxPayloadSchemaRegister(domain, &schema);
  Check(schema_id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START, "payload schema: dynamic id handed out");
  Check(nvtxDomainIsEnabled(domain) == 1, "domain enabled");

  // A collective's range: a registered name and an extended payload through the core API.
  nvtxStringHandle_t name = nvtxDomainRegisterStringA(domain, "AllReduce");
  CollectiveArgs args{4096, 0};
  nvtxPayloadData_t payload{};
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = name;
  NVTX_PAYLOAD_EVTATTR_SET_DATA(attr, &payload, schema_id, &args, sizeof(args));
  for (int i = 0; i < 3; ++i) {
    Check(nvtxDomainRangePushEx(domain, &attr) >= 0, "collective range pushed (core still ours)");
    nvtxDomainRangePop(domain);
  }
  // Payload-only events: declined by the tool, no-ops.
  nvtxRangePushPayload(domain, &payload, 1);
  nvtxRangePopPayload(domain, &payload, 1);
  nvtxMarkPayload(domain, &payload, 1);

  // The memory and counters extensions: declined, no-ops.
  nvtxMemVirtualRangeDesc_t range{};
  range.ptr = &args;
  range.size = sizeof(args);
  nvtxMemHeapDesc_t heap{};
  heap.extCompatID = NVTX_EXT_COMPATID_MEM;
  heap.structSize = sizeof(heap);
  heap.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
  heap.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  heap.typeSpecificDescSize = sizeof(range);
  heap.typeSpecificDesc = &range;
  nvtxMemHeapHandle_t h = nvtxMemHeapRegister(domain, &heap);
  if (h != nullptr) nvtxMemHeapUnregister(domain, h);
  nvtxCounterAttr_t counter{};
  counter.structSize = sizeof(counter);
  counter.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
  counter.name = "bytes in flight";
  uint64_t counter_id = nvtxCounterRegister(domain, &counter);
  nvtxCounterSampleInt64(domain, counter_id, 42);

  Check(nvtxRangePushA("after extensions") >= 0, "core push still handled after the extensions");
  nvtxRangePop();
  nvtxRangePop();
  std::printf("%s\n", failures == 0 ? "all checks passed" : "some checks failed");
  return failures == 0 ? 0 : 1;
}
