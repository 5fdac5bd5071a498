// Captures and streaming parts of an in-process session (nodescope_capture(), and
// nodescope_start_with_options' stream= and capture_every=): what the capture service does for
// `nodescope run` (capture_service.h), on a thread of the session's own that ends before the
// session stops. One window is copied and written at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "api/region_metrics.h"
#include "api/tracing_session.h"
#include "base/status.h"
#include "model/trace.h"

namespace nodescope {

class RegionWindows {
 public:
  // `output`: the trace's path, which parts and periodic captures are named after
  // ("run.json" -> "run.part-1.json", "run.capture-1.json"); empty when neither is asked for.
  // `metrics` (may be null): a streaming part's records are added to it as they leave memory.
  RegionWindows(TracingSession* session, std::string output, RegionMetrics* metrics = nullptr)
      : session_(session), output_(std::move(output)), metrics_(metrics) {}
  ~RegionWindows() { Stop(); }
  RegionWindows(const RegionWindows&) = delete;
  RegionWindows& operator=(const RegionWindows&) = delete;

  // Starts the thread if the session streams (options().stream_records) or captures
  // periodically (options().capture_every_ns).
  void Start();
  // Writes the window held now to `path` as the next capture.
  Status Capture(const std::string& path);
  // Ends the thread; a window being written is finished first. Idempotent.
  void Stop();
  // The final trace (after the session stopped): streaming, it is the last part; the parts that
  // could not be written are counted in it.
  void Finish(Trace* trace) const;

 private:
  StatusOr<std::string> Write(bool part, const std::string& path);
  void Run();

  TracingSession* session_;
  std::string output_;
  RegionMetrics* metrics_;
  std::mutex write_mu_;  // one window at a time; guards the counts below
  uint64_t captures_ = 0;
  uint64_t parts_ = 0;
  uint64_t parts_failed_ = 0;
  uint64_t records_in_failed_parts_ = 0;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nodescope
