// Why attribution was withheld from a record: one entry per reason, written into the trace.
#pragma once

#include <array>
#include <cstdint>

namespace nodescope {

enum class WithheldReason : uint8_t {
  kIdentityMismatch = 0,   // the key's node was learned as another kernel/copy/fill
  kInconsistentNativeKey,  // the vendor's node id does not pack its graph id
  kIdSpaceExhausted,       // no fresh graph id left above the vendor's ids
  // Reconstruction only:
  kWrongLaunch,            // the dispatch's own correlation id is not its launch's
  kDispatchCountMismatch,  // its launch got more or fewer dispatches than the exec has
  kLaunchInProgress,       // decoded before its launch returned: the count could not be checked
  kExecIdTooLarge,         // the exec's id does not fit in 32 bits
  kCount
};

inline constexpr std::array<const char*, 7> kWithheldReasonName = {
    "identity_mismatch",       "inconsistent_native_key", "id_space_exhausted", "wrong_launch",
    "dispatch_count_mismatch", "launch_in_progress",      "exec_id_too_large"};
static_assert(kWithheldReasonName.size() == static_cast<size_t>(WithheldReason::kCount));

struct WithheldCounts {
  std::array<uint64_t, static_cast<size_t>(WithheldReason::kCount)> by_reason{};
  void Add(WithheldReason r) { ++by_reason[static_cast<size_t>(r)]; }
  uint64_t Get(WithheldReason r) const { return by_reason[static_cast<size_t>(r)]; }
  uint64_t Total() const {
    uint64_t t = 0;
    for (uint64_t v : by_reason) t += v;
    return t;
  }
};

}  // namespace nodescope
