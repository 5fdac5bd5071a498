// Why attribution was withheld from a record: one entry per reason, written into the trace.
#pragma once

#include <array>
#include <cstdint>

namespace nodescope {

enum class WithheldReason : uint8_t {
  // Reconstruction: between two reported changes of an exec, its node ran another kernel, copy
  // or fill: a dispatch credited to the wrong launch.
  kIdentityMismatch = 0,
  kInconsistentNativeKey,  // the vendor's node id does not pack its graph id
  // No node id left for the node: a new ordinal would meet the graph's native ordinals, or a
  // native ordinal is where new ones are issued (or past 2^24, more nodes than any real graph).
  kOrdinalSpaceExhausted,
  // Reconstruction only:
  kWrongLaunch,            // the dispatch's own correlation id is not its launch's
  kDispatchCountMismatch,  // its launch got more or fewer dispatches than the exec has
  kLaunchInProgress,       // decoded before its launch returned: the count could not be checked
  // The graph id is at or past 2^21: its node ids would not be exact below 2^53 (a double, so
  // every JSON reader and JavaScript viewer). Warned about once (base/diagnostics.h).
  kGraphIdTooLarge,
  kExecIdReused,  // the vendor created a second exec under an id already seen
  // Reconstruction: launched under a version of its exec (changes in place) older than the two
  // last seen at its node: what that node ran then is no longer known, so it cannot be verified.
  kStaleExecVersion,
  // Reconstruction: the launch overlapped another thread's launch that may have shared its
  // hardware queue (where packets of one launch can be written by the other thread and so be
  // tagged as its work), and nothing proved the credit (attribution/reconstructing_attributor.h).
  kHazardUnproven,
  // Submission matching (PTI): the execution's submit time lies in no submission call of the
  // thread that recorded its commands, or in more than one call, or its call is claimed by
  // another execution too: which submission it was cannot be proven.
  kSubmissionUnproven,
  // Reconstruction: decoded after its launch's entry left the bounded launch log (launch_log.h:
  // thousands of its thread's later launches were decoded first), so it cannot be verified.
  kLaunchReleased,
  // Reconstruction: while the launch was open or before its work was decided, a thread with no
  // launch open (ROCr's async doorbell thread, a runtime worker thread, a thread in another call)
  // processed dispatch packets: it may have taken some of this launch's (issue 29).
  kForeignWriter,
  // Native ids (CUPTI): a conditional node's body record of an exec changed in place (update or
  // set-params) that may have run after the change began. CUPTI 13.0 gives body nodes no
  // update callback and was seen to keep naming a swapped body kernel by its old function, so
  // what such a node ran cannot be proven (native_attributor.h).
  kConditionalBodyChanged,
  kCount
};

inline constexpr std::array<const char*, 14> kWithheldReasonName = {
    "identity_mismatch",  "inconsistent_native_key", "ordinal_space_exhausted",
    "wrong_launch",       "dispatch_count_mismatch", "launch_in_progress",
    "graph_id_too_large", "exec_id_reused",          "stale_exec_version",
    "hazard_unproven",    "submission_unproven",     "launch_released",
    "foreign_writer",     "conditional_body_changed"};
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
