// NVTX's core injection: NVTX calls InitializeInjectionNvtx2() on the first NVTX call of each
// library that uses it (the app, libtorch, NCCL...) when NVTX_INJECTION64_PATH names our NVTX
// library (libnodescope_nvtx.so, nvtx_shim.cc, which forwards here) or libnodescope.so itself.
// We fill that library's function table with our range handlers. Extensions (payload schemas,
// memory, counters) are answered in nvtx_extension.cc.
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cwchar>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>

#include "ranges/range_recorder.h"

namespace nodescope::nvtx {
namespace {

// Registered strings live until exit: NVTX hands their handles back on every call.
std::mutex g_strings_mu;
std::deque<std::string>* g_strings = new std::deque<std::string>();

std::string Utf8(const wchar_t* w) {
  std::string out;
  for (; w != nullptr && *w != 0; ++w) {
    auto c = static_cast<uint32_t>(*w);
    if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xc0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xe0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  return out;
}

// The message of an event, as text. Wide strings are converted (rare: a thread-local buffer).
std::string_view MessageOf(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return a->message.ascii != nullptr ? std::string_view(a->message.ascii) : std::string_view();
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered != nullptr
                 ? std::string_view(*reinterpret_cast<const std::string*>(a->message.registered))
                 : std::string_view();
    case NVTX_MESSAGE_TYPE_UNICODE: {
      thread_local std::string buffer;
      buffer = Utf8(a->message.unicode);
      return buffer;
    }
    default:
      return {};
  }
}

uint32_t DomainId(nvtxDomainHandle_t d) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(d));
}

RangeRecorder& R() { return RangeRecorder::Get(); }

int NVTX_API PushA(const char* message) {
  R().Push(message != nullptr ? message : "");
  return 0;
}
int NVTX_API PushW(const wchar_t* message) {
  R().Push(Utf8(message));
  return 0;
}
int NVTX_API PushEx(const nvtxEventAttributes_t* a) {
  R().Push(MessageOf(a));
  return 0;
}
int NVTX_API Pop() {
  R().Pop();
  return 0;
}
nvtxRangeId_t NVTX_API StartA(const char* message) {
  return R().Start(message != nullptr ? message : "");
}
nvtxRangeId_t NVTX_API StartW(const wchar_t* message) { return R().Start(Utf8(message)); }
nvtxRangeId_t NVTX_API StartEx(const nvtxEventAttributes_t* a) { return R().Start(MessageOf(a)); }
void NVTX_API End(nvtxRangeId_t id) { R().End(id); }

int NVTX_API DomainPushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  R().Push(MessageOf(a), DomainId(d));
  return 0;
}
int NVTX_API DomainPop(nvtxDomainHandle_t) {
  R().Pop();
  return 0;
}
nvtxRangeId_t NVTX_API DomainStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return R().Start(MessageOf(a), DomainId(d));
}
void NVTX_API DomainEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { R().End(id); }
nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  // A small non-null integer: the recorder's domain id.
  return reinterpret_cast<nvtxDomainHandle_t>(
      static_cast<uintptr_t>(R().RegisterDomain(name != nullptr ? name : "")));
}
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(
      static_cast<uintptr_t>(R().RegisterDomain(Utf8(name))));
}
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}
nvtxStringHandle_t NVTX_API RegisterStringA(nvtxDomainHandle_t, const char* s) {
  std::lock_guard<std::mutex> lock(g_strings_mu);
  g_strings->emplace_back(s != nullptr ? s : "");
  return reinterpret_cast<nvtxStringHandle_t>(&g_strings->back());
}
nvtxStringHandle_t NVTX_API RegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  std::lock_guard<std::mutex> lock(g_strings_mu);
  g_strings->push_back(Utf8(s));
  return reinterpret_cast<nvtxStringHandle_t>(&g_strings->back());
}

// One slot of an NVTX module's function table and the handler that goes in it.
struct Handler {
  unsigned cbid;
  NvtxFunctionPointer fn;
};

template <typename Fn>
Handler H(unsigned cbid, Fn fn) {
  return {cbid, reinterpret_cast<NvtxFunctionPointer>(fn)};
}

// Points the slots of `module`'s table at our handlers (slots the library lacks are left).
template <size_t N>
void Fill(const NvtxExportTableCallbacks* callbacks, NvtxCallbackModule module,
          const Handler (&handlers)[N]) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks->GetModuleFunctionTable(module, &table, &size) || table == nullptr) return;
  for (const Handler& h : handlers) {
    if (h.cbid <= size && table[h.cbid] != nullptr) *table[h.cbid] = h.fn;
  }
}

}  // namespace
}  // namespace nodescope::nvtx

// The core entry point under a name of our own, for libnodescope_nvtx.so to call.
extern "C" __attribute__((visibility("default"))) int nodescope_nvtx_initialize(
    NvtxGetExportTableFunc_t get_export_table) {
  using namespace nodescope::nvtx;
  if (get_export_table == nullptr) return 0;
  auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  // Only `nodescope run` sets NVTX_INJECTION64_PATH: this process is being traced.
  nodescope::RangeRecorder::Get().Arm();

  const Handler core[] = {
      H(NVTX_CBID_CORE_RangePushA, &PushA),     H(NVTX_CBID_CORE_RangePushW, &PushW),
      H(NVTX_CBID_CORE_RangePushEx, &PushEx),   H(NVTX_CBID_CORE_RangePop, &Pop),
      H(NVTX_CBID_CORE_RangeStartA, &StartA),   H(NVTX_CBID_CORE_RangeStartW, &StartW),
      H(NVTX_CBID_CORE_RangeStartEx, &StartEx), H(NVTX_CBID_CORE_RangeEnd, &End),
  };
  const Handler core2[] = {
      H(NVTX_CBID_CORE2_DomainRangePushEx, &DomainPushEx),
      H(NVTX_CBID_CORE2_DomainRangePop, &DomainPop),
      H(NVTX_CBID_CORE2_DomainRangeStartEx, &DomainStartEx),
      H(NVTX_CBID_CORE2_DomainRangeEnd, &DomainEnd),
      H(NVTX_CBID_CORE2_DomainCreateA, &DomainCreateA),
      H(NVTX_CBID_CORE2_DomainCreateW, &DomainCreateW),
      H(NVTX_CBID_CORE2_DomainDestroy, &DomainDestroy),
      H(NVTX_CBID_CORE2_DomainRegisterStringA, &RegisterStringA),
      H(NVTX_CBID_CORE2_DomainRegisterStringW, &RegisterStringW),
  };
  Fill(callbacks, NVTX_CB_MODULE_CORE, core);
  Fill(callbacks, NVTX_CB_MODULE_CORE2, core2);
  return 1;
}

// NVTX's own name for it, for an NVTX_INJECTION64_PATH that names libnodescope.so directly.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  return nodescope_nvtx_initialize(get_export_table);
}
