// The CUPTI cost floor: an injection library that enables CONCURRENT_KERNEL activity only and
// counts records. Any CUPTI tracer pays at least this; bench/overhead.py compares us against it.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr size_t kBufferBytes = 8u << 20;
std::atomic<unsigned long long> g_records{0};

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  g_records += n;
  std::free(buffer);
}

void AtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "cupti_floor: %llu kernel records\n", g_records.load());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  cuptiActivityRegisterCallbacks(&Requested, &Completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  std::atexit(&AtExit);
  return 1;
}
