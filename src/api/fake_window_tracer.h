// A backend for the session tests, run without a GPU: it keeps a Trace under its lock as every
// real backend does (decoding thread appends, the session snapshots the ring's window) and
// decodes kernels named "k" of graph 1 (4 nodes) when a test says so. Tests derive their own
// (what Start records, what Flush decodes) and register it with RegisterTracer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "backends/backend.h"
#include "backends/ring_window.h"
#include "base/clock.h"

namespace nodescope {

class FakeWindowTracer : public Tracer {
 public:
  Status Start(const TracerOptions& options) override {
    std::lock_guard<std::mutex> lock(mu_);
    ring_ = options.ring;
    trace_.start_ns = NowNs();
    name_ = trace_.strings.Intern("k");
    return OkStatus();
  }
  Status Stop() override {
    std::lock_guard<std::mutex> lock(mu_);
    trace_.end_ns = NowNs();
    return OkStatus();
  }
  Trace& trace() override { return trace_; }
  Status SnapshotWindow(Trace* out, bool release) override {
    std::lock_guard<std::mutex> lock(mu_);
    CopyWindow(trace_, NowNs(), release, out);
    FinishWindowCopy(out);
    return OkStatus();
  }
  uint64_t HeldRecords() override {
    std::lock_guard<std::mutex> lock(mu_);
    return trace_.gpu.held() + trace_.api.held();
  }

  // Decodes `n` kernels (correlation id = their sequence number, strictly later starts, node
  // ordinal = sequence % 4), then trims the ring's window, as a backend's decoding thread does.
  void Decode(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < n; ++i) {
      GpuActivity a{};
      a.kind = ActivityKind::kKernel;
      a.correlation_id = ++seq_;
      last_ns_ = a.start_ns = std::max(NowNs(), last_ns_ + 1);
      a.end_ns = a.start_ns + 1;
      a.graph_id = 1;
      a.graph_node_id = (uint64_t{1} << 32) | (seq_ % 4);
      a.kernel.name = name_;
      trace_.gpu.push_back(a);
    }
    TrimWindow(ring_, last_ns_, &trace_);
  }

 private:
  std::mutex mu_;
  Trace trace_;
  WindowPolicy ring_;
  uint32_t seq_ = 0;
  uint64_t last_ns_ = 0;
  StringId name_ = 0;
};

}  // namespace nodescope
