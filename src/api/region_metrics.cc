// NODESCOPE_METRICS for an in-process session (region_metrics.h).
#include "api/region_metrics.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>

#include "api/metrics_feed.h"
#include "base/clock.h"
#include "base/freed_memory.h"

namespace nodescope {
namespace {

// As the feed of `run --metrics` (metrics_feed.h): an interval ends this long before its copy,
// so that the attribution has decided the keys of the records it counts.
constexpr uint64_t kMarginNs = metrics_feed::kRingMarginNs;

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Live instances: stopped at exit, their sockets closed in a forked child.
std::mutex g_live_mu;
std::set<RegionMetrics*>* g_live = nullptr;  // never destroyed: read at exit and at fork
std::atomic<int> g_listen_fds[16];           // the listening sockets, -1 when free

void CloseInChild() {
  for (std::atomic<int>& fd : g_listen_fds) {
    const int f = fd.exchange(-1);
    if (f >= 0) close(f);
  }
}

}  // namespace

void RegionMetrics::RegisterOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (std::atomic<int>& fd : g_listen_fds) fd.store(-1);
    g_live = new std::set<RegionMetrics*>;
    pthread_atfork(nullptr, nullptr, &CloseInChild);
    std::atexit(&RegionMetrics::StopAllAtExit);
  });
}

void RegionMetrics::StopAllAtExit() {
  std::lock_guard<std::mutex> lock(g_live_mu);  // a destructor waits: no instance goes meanwhile
  if (g_live == nullptr) return;
  for (RegionMetrics* m : *g_live) m->Shutdown();
}

StatusOr<std::unique_ptr<RegionMetrics>> RegionMetrics::Listen(const std::string& listen,
                                                               size_t max_series) {
  StatusOr<metrics::ListenAddress> address = metrics::ParseListenAddress(listen);
  if (!address.ok()) {
    std::string message = address.status().message();  // said for --metrics: said for metrics=
    if (message.rfind("--metrics: ", 0) == 0) message.erase(0, 2);
    return InvalidArgumentError(message);
  }
  std::unique_ptr<RegionMetrics> m(new RegionMetrics);
  m->owner_ = getpid();
  m->address_ = *address;
  m->registry_ = std::make_unique<metrics::Registry>(max_series);
  metrics::Registry* registry = m->registry_.get();
  m->server_ = std::make_unique<metrics::HttpServer>(
      [registry](bool openmetrics) { return registry->Render(openmetrics); });
  if (Status listening = m->server_->Listen(*address); !listening.ok()) {
    return Status(listening.code(), "metrics: cannot listen on " + listening.message());
  }
  if (const char* iv = std::getenv(metrics_feed::kIntervalVariable); iv != nullptr && *iv) {
    char* end = nullptr;
    const long v = std::strtol(iv, &end, 10);
    if (*end == '\0' && v >= 50 && v <= 3600 * 1000) m->interval_ms_ = static_cast<unsigned>(v);
  }
  return m;
}

void RegionMetrics::Start(TracingSession* session) {
  RegisterOnce();
  session_ = session;
  const WindowPolicy& ring = session->options().ring;
  if (ring.max_age_ns != 0) {  // twice per age: no record leaves the ring before it counted
    interval_ms_ = static_cast<unsigned>(
        std::max<uint64_t>(50, std::min<uint64_t>(interval_ms_, ring.max_age_ns / 4'000'000)));
  }
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    g_live->insert(this);
    listen_fd_ = server_->listen_fd();
    for (std::atomic<int>& fd : g_listen_fds) {
      int free_slot = -1;
      if (fd.compare_exchange_strong(free_slot, listen_fd_)) break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    Publish();  // an empty scrape until the first interval
  }
  server_->Start();
  thread_ = std::thread(&RegionMetrics::Run, this);
}

void RegionMetrics::Run() {
  sigset_t all;  // signals go to the application's threads, never here
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock<std::mutex> stop(stop_mu_);
  while (!stopping_) {
    stop_cv_.wait_for(stop, std::chrono::milliseconds(interval_ms_));
    if (stopping_) break;
    stop.unlock();
    {
      std::lock_guard<std::mutex> lock(mu_);
      Interval();
    }
    ReturnFreedMemoryToSystem();
    stop.lock();
  }
}

void RegionMetrics::Interval() {
  if (finished_) return;
  const uint64_t copied_ns = NowNs();
  const uint64_t to = std::max(copied_ns - std::min(copied_ns, kMarginNs), fed_until_ns_);
  if (to == fed_until_ns_) return;
  Trace recent;
  if (!session_->CaptureRecent(&recent, to).ok()) return;
  if (figures_.NeedsRanges(recent)) session_->CollectRanges(&recent);
  figures_.Add(recent);
  fed_until_ns_ = to;
  figures_.CloseReplays(to - std::min(to, metrics::kReplayCloseNs));
  Publish();
}

void RegionMetrics::AddPartLocked(const Trace& part) {
  if (finished_) return;
  figures_.Add(part);
  Publish();
}

void RegionMetrics::Publish() {
  metrics::ProcessFigures f = figures_.Figures(static_cast<uint64_t>(owner_));
  registry_->Update(std::move(f), NowUnix());
}

void RegionMetrics::StopThread() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RegionMetrics::Finish(const Trace& trace) {
  if (getpid() != owner_) return;
  StopThread();
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  finished_ = true;
  figures_.Add(trace);
  fed_until_ns_ = UINT64_MAX;
  figures_.CloseReplays(UINT64_MAX);
  Publish();
}

void RegionMetrics::Shutdown() {
  for (std::atomic<int>& fd : g_listen_fds) {  // before the server closes it (and the number
    int mine = listen_fd_;                     // is given to another file)
    if (mine >= 0) fd.compare_exchange_strong(mine, -1);
  }
  StopThread();
  if (server_) server_->Stop();
}

RegionMetrics::~RegionMetrics() {
  if (getpid() != owner_) {  // a forked child: no thread of ours runs here; leave them be
    new std::thread(std::move(thread_));  // NOLINT: leaked on purpose, never joined
    (void)server_.release();
    return;
  }
  std::lock_guard<std::mutex> lock(g_live_mu);
  if (g_live != nullptr) g_live->erase(this);
  Shutdown();
}

}  // namespace nodescope
