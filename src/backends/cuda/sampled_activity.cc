#include "backends/cuda/sampled_activity.h"

#include <string>

#include "backends/cuda/cupti_status.h"

namespace nodescope::cupti {

void SampledActivity::Switch(bool on) {
  for (CUpti_ActivityKind k : kinds_) {
    Status s = CheckCupti(on ? cuptiActivityEnable(k) : cuptiActivityDisable(k),
                          on ? "cuptiActivityEnable" : "cuptiActivityDisable");
    if (!s.ok() && first_error_.ok()) {
      first_error_ =
          Status(s.code(), s.message() + " (kind " + std::to_string(static_cast<int>(k)) + ")");
    }
  }
  enabled_ = on;
}

void SampledActivity::Begin() {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_.fetch_add(1, std::memory_order_relaxed) == 0) {
    windows_.fetch_add(1, std::memory_order_relaxed);
    Switch(true);
  }
}

void SampledActivity::End() {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_.load(std::memory_order_relaxed) > 0 &&
      open_.fetch_sub(1, std::memory_order_relaxed) == 1) {
    Switch(false);
  }
}

void SampledActivity::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  open_.store(0, std::memory_order_relaxed);
  if (enabled_) Switch(false);
}

Status SampledActivity::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

}  // namespace nodescope::cupti
