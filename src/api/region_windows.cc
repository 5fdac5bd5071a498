// An in-process session's captures and streaming parts (region_windows.h).
#include "api/region_windows.h"

#include <algorithm>
#include <chrono>

#include "api/capture_service.h"
#include "base/clock.h"
#include "base/diagnostics.h"
#include "base/freed_memory.h"
#include "export/chrome_trace_writer.h"

namespace nodescope {
namespace {
// As the capture service: how often streaming flushes the backend and looks at what it holds.
constexpr uint64_t kStreamPollNs = 500'000'000;
}  // namespace

void RegionWindows::Start() {
  const TracerOptions& o = session_->options();
  if (o.stream_records == 0 && o.capture_every_ns == 0) return;
  thread_ = std::thread(&RegionWindows::Run, this);
}

Status RegionWindows::Capture(const std::string& path) { return Write(false, path).status(); }

StatusOr<std::string> RegionWindows::Write(bool part, const std::string& path) {
  std::lock_guard<std::mutex> lock(write_mu_);
  Trace window;
  // A part's records leave memory: the metrics count them first, under their lock, so that no
  // interval copies the window between the cut and that.
  std::unique_lock<std::mutex> metrics_lock;
  if (part && metrics_ != nullptr) metrics_lock = metrics_->AddPartLock();
  RETURN_IF_ERROR(session_->CaptureWindow(&window, /*release=*/part));
  if (metrics_lock.owns_lock()) {
    metrics_->AddPartLocked(window);
    metrics_lock.unlock();
  }
  const uint64_t n = part ? ++parts_ : ++captures_;
  (part ? window.window.part : window.window.capture) = n;
  if (window.window.policy.empty()) window.window.policy = "all";
  const std::string file =
      path.empty() ? WindowFilePath(output_, part ? "part" : "capture", n) : path;
  window.trace_name = file;
  window.window.parts_failed = parts_failed_;
  window.window.records_in_failed_parts = records_in_failed_parts_;
  Status written = WriteChromeTraceFile(window, file);
  if (!written.ok() && part) {  // its records left memory with it: lost, and said from now on
    ++parts_failed_;
    records_in_failed_parts_ += window.gpu.held();
  }
  ReturnFreedMemoryToSystem();
  if (!written.ok()) return written;
  return file;
}

void RegionWindows::Run() {
  const TracerOptions& o = session_->options();
  uint64_t next_capture = o.capture_every_ns != 0 ? NowNs() + o.capture_every_ns : 0;
  uint64_t next_poll = o.stream_records != 0 ? NowNs() + kStreamPollNs : 0;
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stopping_) {
    const uint64_t now = NowNs();
    uint64_t wake = UINT64_MAX;
    if (next_capture != 0) wake = std::min(wake, next_capture);
    if (next_poll != 0) wake = std::min(wake, next_poll);
    if (wake > now) {
      stop_cv_.wait_for(lock, std::chrono::nanoseconds(wake - now));
      continue;
    }
    lock.unlock();  // Stop() waits for a window being written, not for the lock
    if (next_capture != 0 && NowNs() >= next_capture) {
      StatusOr<std::string> w = Write(false, "");
      if (!w.ok())
        LogError("capture_failed", "periodic capture failed: %s", w.status().ToString().c_str());
      while (next_capture <= NowNs()) next_capture += o.capture_every_ns;
    }
    if (next_poll != 0 && NowNs() >= next_poll) {
      next_poll = NowNs() + kStreamPollNs;
      uint64_t held = 0;
      {
        std::lock_guard<std::mutex> write_lock(write_mu_);  // one flush at a time
        held = session_->FlushAndCountHeld();
      }
      if (held >= o.stream_records) {
        StatusOr<std::string> w = Write(true, "");
        if (!w.ok())
          LogError("streaming_part_failed", "streaming part failed: %s",
                   w.status().ToString().c_str());
      }
    }
    lock.lock();
  }
}

void RegionWindows::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RegionWindows::Finish(Trace* trace) const {
  if (parts_ != 0) trace->window.part = parts_ + 1;  // streaming: the last part is the trace
  trace->window.parts_failed = parts_failed_;
  trace->window.records_in_failed_parts = records_in_failed_parts_;
}

}  // namespace nodescope
