// Device activity collection switched on only around sampled launches (NODESCOPE_SAMPLE=N).
// CUPTI instruments a kernel, copy or fill only while its activity kind is enabled, so a launch
// made with the kinds disabled costs the application nothing past the API callback; the records
// of a launch made while they are enabled arrive complete, even though the work runs after the
// kinds are disabled again (measured on the H200, bench/RESULTS.md).
//
// Launches on several threads overlap: the kinds stay enabled while any sampled launch is inside
// its API call (a count, changed under a mutex taken on sampled launches only). A launch that is
// not sampled but starts while another thread holds the window open is traced too, so it joins
// the window (GraphCallbacks) and keeps it open until it returns: its replay is traced whole.
// What no window can prevent: a launch already inside its call when another thread opens the
// window may have its later kernels traced and its earlier ones not.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "backends/cuda/graph_callbacks.h"
#include "base/status.h"

namespace nodescope::cupti {

class SampledActivity final : public LaunchWindow {
 public:
  // The kinds switched on around sampled launches; none is enabled until Begin().
  explicit SampledActivity(std::vector<CUpti_ActivityKind> kinds) : kinds_(std::move(kinds)) {}

  // At the entry of a sampled launch API call, on the launching thread.
  void Begin() override;
  // At its exit, on the same thread.
  void End() override;
  bool IsOpen() const override { return open_.load(std::memory_order_relaxed) > 0; }
  // Disables the kinds if a window is still open (a launch that never returned). Idempotent.
  void Close();

  uint64_t windows() const { return windows_.load(std::memory_order_relaxed); }
  // The first CUPTI error enabling or disabling a kind, if any.
  Status status() const;

 private:
  void Switch(bool on);

  const std::vector<CUpti_ActivityKind> kinds_;
  mutable std::mutex mu_;
  std::atomic<int> open_{0};  // launches inside a window; changed under mu_, read without it
  bool enabled_ = false;
  Status first_error_;
  std::atomic<uint64_t> windows_{0};
};

}  // namespace nodescope::cupti
