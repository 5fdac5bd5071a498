// The CUPTI cost floor: an injection library that enables CONCURRENT_KERNEL activity only and
// counts records. Any CUPTI tracer pays at least this; bench/overhead.py compares us against it.
// CUPTI_FLOOR_MODE picks a lower floor, for sampled tracing (issue 14):
//   inject     the injection library loaded, CUPTI not called at all
//   idle       a subscriber with no callback enabled (what being subscribed costs by itself)
//   subscribe  a subscriber with the runtime API callback of cudaGraphLaunch only, no activity
//              (what any tracer that decides per launch pays)
//   subscribe_first  the same, with kernel activity enabled around the first graph launch only
//   first_off  subscribe_first, and the launch callback disabled after that first launch
//   first_detach  first_off, then CUPTI detached (cuptiFinalize, from another thread)
//   armed@US   the launch callback enabled only every US microseconds (default 2000) by a timer
//              thread, kernel activity around the launch it then sees, the callback disabled again
//   armed_noact  armed without activity (the cost of toggling the callback alone)
//   plain_first  kernel activity around the first plain (non-graph) kernel launch only
//   version    cuptiGetVersion only;  registered  activity buffer callbacks only, no subscriber
//   first_off@N, subscribe_first@N  the N-th graph launch instead of the first
//   every@K, first_guard, first_retoggle, first_flush: see OnPattern
//   any mode followed by "+ts": records stamped with our clock (as nodescope does)
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

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

std::atomic<unsigned long long> g_launches{0};
std::atomic<unsigned long long> g_sampled{0};

enum class Mode {
  kFull,
  kSubscribe,
  kFirst,
  kFirstOff,
  kFirstDetach,
  kArmed,
  kArmedNoAct,
  kIdle,
  kPlainFirst,
  kEvery,
  kFirstGuard,
  kFirstRetoggle,
  kFirstFlush
};
Mode g_mode = Mode::kFull;
CUpti_SubscriberHandle g_subscriber;
std::atomic<bool> g_detach{false};
long g_arm_us = 2000;
unsigned long long g_nth = 1;
bool g_timestamps = false;  // mode suffix "+ts": CUPTI stamps records with our clock, as nodescope

uint64_t CUPTIAPI Clock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void SetLaunchCallback(uint32_t on) {
  cuptiEnableCallback(on, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
}

constexpr CUpti_CallbackId kPlainLaunches[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060};

// plain_first: kernel activity around the first plain kernel launch only (before any graph
// launch), then no callback: does the cost that one traced launch leaves stay with that exec only?
void OnPlain(const CUpti_CallbackData* d) {
  if (d->callbackSite == CUPTI_API_ENTER) {
    if (g_sampled.fetch_add(1) == 0) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    return;
  }
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  for (CUpti_CallbackId id : kPlainLaunches) {
    cuptiEnableCallback(0, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  }
}

// every@K: activity around launches 1, K+1, 2K+1, ... (no guards). first_guard: around launches 1
// and 2, separately, then never. first_retoggle / first_flush: around launch 1; at launch 2's
// entry activity switched on and off again with no launch inside / cuptiActivityFlushAll(0);
// then never. Which of these leave the exec instrumented (its lasting cost)?
thread_local bool t_traced = false;

void OnPattern(const CUpti_CallbackData* d) {
  if (d->callbackSite == CUPTI_API_ENTER) {
    const unsigned long long n = g_launches.fetch_add(1, std::memory_order_relaxed) + 1;
    bool traced = false;
    if (g_mode == Mode::kEvery) traced = (n - 1) % g_nth == 0;
    if (g_mode == Mode::kFirstGuard) traced = n <= 2;
    if (g_mode == Mode::kFirstRetoggle || g_mode == Mode::kFirstFlush) traced = n == 1;
    if (n == 2 && g_mode == Mode::kFirstRetoggle) {
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
    if (n == 2 && g_mode == Mode::kFirstFlush) cuptiActivityFlushAll(0);
    if (traced) {
      g_sampled.fetch_add(1, std::memory_order_relaxed);
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
    t_traced = traced;
    return;
  }
  const unsigned long long n = g_launches.load(std::memory_order_relaxed);
  if (t_traced) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (g_mode != Mode::kEvery && n >= 2) SetLaunchCallback(0);
}

void CUPTIAPI OnApi(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (g_mode == Mode::kPlainFirst) return OnPlain(d);
  if (g_mode >= Mode::kEvery) return OnPattern(d);
  const bool armed = g_mode == Mode::kArmed || g_mode == Mode::kArmedNoAct;
  if (d->callbackSite == CUPTI_API_ENTER) {
    // "first": the g_nth-th launch (1 unless the mode says first_off@N).
    const bool first = g_launches.fetch_add(1, std::memory_order_relaxed) + 1 == g_nth;
    if ((first && g_mode != Mode::kSubscribe) || g_mode == Mode::kArmed) {
      g_sampled.fetch_add(1, std::memory_order_relaxed);
      if (g_mode != Mode::kArmedNoAct) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
    return;
  }
  if (g_mode == Mode::kSubscribe) return;
  if (armed || g_launches.load(std::memory_order_relaxed) == g_nth) {
    if (g_mode != Mode::kArmedNoAct) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (g_mode != Mode::kFirst) SetLaunchCallback(0);
    if (g_mode == Mode::kFirstDetach) g_detach.store(true);
  }
}

void Timer() {
  const long period = g_arm_us;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::microseconds(period));
    if (g_mode == Mode::kFirstDetach) {
      if (g_detach.exchange(false)) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cuptiUnsubscribe(g_subscriber);
        cuptiFinalize();
        std::fprintf(stderr, "cupti_floor: detached\n");
        return;
      }
    } else {
      SetLaunchCallback(1);
    }
  }
}

void AtExitSubscribed() {
  std::fprintf(stderr, "cupti_floor: %llu graph launches seen, %llu with activity\n",
               g_launches.load(), g_sampled.load());
}

Mode ModeOf(const char* m) {
  if (m == nullptr) return Mode::kFull;
  std::string s(m);
  if (s.size() > 3 && s.compare(s.size() - 3, 3, "+ts") == 0) {
    g_timestamps = true;
    s.resize(s.size() - 3);
  }
  if (const size_t at = s.find('@'); at != std::string::npos) {
    g_arm_us = std::atol(s.c_str() + at + 1);
    g_nth = std::strtoull(s.c_str() + at + 1, nullptr, 10);
    s.resize(at);
  }
  static constexpr std::pair<std::string_view, Mode> kModes[] = {
      {"idle", Mode::kIdle},
      {"subscribe", Mode::kSubscribe},
      {"subscribe_first", Mode::kFirst},
      {"first_off", Mode::kFirstOff},
      {"first_detach", Mode::kFirstDetach},
      {"armed", Mode::kArmed},
      {"armed_noact", Mode::kArmedNoAct},
      {"plain_first", Mode::kPlainFirst},
      {"every", Mode::kEvery},
      {"first_guard", Mode::kFirstGuard},
      {"first_retoggle", Mode::kFirstRetoggle},
      {"first_flush", Mode::kFirstFlush},
  };
  for (const auto& [name, mode] : kModes) {
    if (s == name) return mode;
  }
  return Mode::kFull;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* mode = std::getenv("CUPTI_FLOOR_MODE");
  if (mode != nullptr && std::strcmp(mode, "inject") == 0) return 1;
  g_mode = ModeOf(mode);
  if (mode != nullptr && std::strcmp(mode, "version") == 0) {  // CUPTI initialised, nothing else
    uint32_t version = 0;
    cuptiGetVersion(&version);
    return 1;
  }
  if (g_timestamps) cuptiActivityRegisterTimestampCallback(&Clock);
  cuptiActivityRegisterCallbacks(&Requested, &Completed);
  if (mode != nullptr && std::strcmp(mode, "registered") == 0) return 1;  // no subscriber
  if (g_mode == Mode::kFull) {
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    std::atexit(&AtExit);
    return 1;
  }
  cuptiSubscribe(&g_subscriber, &OnApi, nullptr);
  if (g_mode == Mode::kPlainFirst) {
    for (CUpti_CallbackId id : kPlainLaunches) {
      cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    }
  } else if (g_mode != Mode::kIdle && g_mode != Mode::kArmed && g_mode != Mode::kArmedNoAct) {
    SetLaunchCallback(1);
  }
  if (g_mode == Mode::kArmed || g_mode == Mode::kArmedNoAct || g_mode == Mode::kFirstDetach) {
    std::thread(&Timer).detach();
  }
  std::atexit(&AtExitSubscribed);
  return 1;
}
