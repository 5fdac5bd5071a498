// User ranges on the device timeline: links device work to the user ranges it ran under and
// projects each range onto the streams that work ran on (DeviceSpan). Pure logic, no vendor code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/flat_index_map.h"
#include "model/trace.h"

namespace nodescope {

// Walks up parent chains stop here: a deeper chain is taken for corrupt input.
inline constexpr uint32_t kMaxRangeDepth = 256;

// How user ranges link to each other and to device work, built once per trace in
// O(ranges + external records): range id -> index in trace.ranges, each range's parent, and
// vendor correlation id -> the innermost range open around that API call. Keeps a reference to
// trace.ranges: the trace must outlive it and not gain ranges meanwhile.
class RangeLinks {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;            // no range
  static constexpr uint32_t kUnresolved = UINT32_MAX - 1;  // a link to an id not in the trace
  // Ranges past this many are not indexed (ids of theirs do not resolve); no real trace has them.
  static constexpr size_t kMaxRanges = size_t{1} << 31;
  static_assert(kNone == IdIndex<uint32_t>::kAbsent);

  explicit RangeLinks(const Trace& trace);

  // Index in trace.ranges of the range with this id (the first, if repeated); kNone for 0 and
  // for ids not in the trace.
  uint32_t IndexOf(uint64_t id) const;
  // The enclosing range's index; kNone at the top and where the chain is cut (see ChainComplete).
  uint32_t ParentOf(uint32_t index) const { return parent_[index]; }
  // False when the chain from `index` upward does not reach a top-level range: a parent id that
  // is not in the trace, a cycle (cut where it was found), or more than kMaxRangeDepth levels.
  bool ChainComplete(uint32_t index) const { return complete_[index] != 0; }
  // The range API call `correlation_id` was made under: its index, kNone when no kUserRange
  // external record names this correlation id, or kUnresolved when its range is not in the trace.
  uint32_t RuntimeRangeOf(uint32_t correlation_id) const { return runtime_.Find(correlation_id); }
  bool has_runtime_links() const { return !runtime_.empty(); }

  const UserRange& range(uint32_t index) const { return ranges_[index]; }
  size_t size() const { return parent_.size(); }

 private:
  void CutCyclesAndMarkChains(const std::vector<uint8_t>& parent_missing);

  const ChunkedVector<UserRange>& ranges_;
  IdIndex<uint64_t> by_id_;
  IdIndex<uint32_t> runtime_;  // correlation id -> range index or kUnresolved
  std::vector<uint32_t> parent_;
  std::vector<uint8_t> complete_;
};

// Fills trace.device_spans (sorted by start_ns, then device, stream) from trace.gpu, trace.ranges
// and trace.external; replaces what was there. Every kernel, copy or fill is linked to:
//  - the innermost runtime range its launch was made under (via trace.external, kUserRange) and
//    that range's ancestors: one span per (device, stream, range), replay_correlation 0;
//  - its capture_range_id and that range's ancestors: one span per (device, stream, range,
//    replay), where the replay is the activity's correlation id (the graph launch's).
// A span runs from its earliest linked activity's start to its latest one's end, whatever the
// order of the records. Links that do not fully resolve (unknown range ids, broken or cyclic
// parent chains) link what they can and are counted, one per activity and kind of link, as the
// counter "unresolved_range_links" (present only when non-zero).
void BuildDeviceSpans(Trace& trace);

// How many nanoseconds a writer widens each span of `spans` on each side (result[i] is for
// spans[i]): 1 + the number of levels of spans nested inside it on its (device, stream). A span
// with only work inside gets 1 ns (as kineto widens every gpu_user_annotation), its parent 2 ns,
// and so on: a span always has at least 1 ns more on each side than anything it contains. Written
// as "ts"/"dur" in microseconds with three decimals, every parent then starts strictly before and
// ends strictly after its children and their work even as a viewer reads them: ts + dur in doubles
// is off by at most 1.5 ulp (0.37 ns at 2^41 us, 25 days after the trace's base time), less than
// half the 1 ns margin. Nesting is taken from the spans' exact bounds: a span contains those that
// start no earlier and end no later (of two with equal bounds, the one first in `spans` is the
// parent); spans that overlap without nesting (ranges of two threads on one stream) cannot be
// nested by any widening, and siblings less than their two pads apart on one stream overlap once
// widened. O(n log n).
std::vector<uint32_t> DeviceSpanPads(const std::vector<DeviceSpan>& spans);

// "outer/inner": the names from the outermost range down to `range_id`, joined by '/'. Empty
// when `range_id` is not in the trace; a broken chain gives the part that resolved.
std::string RangePath(const Trace& trace, const RangeLinks& links, uint64_t range_id);
// The same for a single lookup: builds a RangeLinks each call (O(ranges)).
std::string RangePath(const Trace& trace, uint64_t range_id);

}  // namespace nodescope
