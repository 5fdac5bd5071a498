// The decoder's judgments of reconstructed attribution's hazards (reconstructing_attributor.h):
// foreign writers (issue 29) and, for launches that overlapped other threads' (issue 12), where
// each stream's packets went. RecordPeers, which needs the launching threads' state, stays in
// reconstructing_attributor.cc.
#include <algorithm>

#include "attribution/reconstructing_attributor.h"  // the class these are members of

namespace nodescope {

// ---- Foreign writers (issue 29). ----

void ReconstructingAttributor::ObserveForeign(uint64_t tag, uint64_t queue) {
  const uint64_t seq = tag & ((uint64_t{1} << 52) - 1);
  if (seq < foreign_base_) return;
  if (seq - foreign_base_ >= kMaxForeignKept) {  // keep the newest half
    const size_t drop = std::min(foreign_queue_.size(), kMaxForeignKept / 2);
    foreign_queue_.erase(foreign_queue_.begin(), foreign_queue_.begin() + static_cast<long>(drop));
    foreign_base_ += drop;
    if (seq - foreign_base_ >= kMaxForeignKept) {
      foreign_queue_.clear();
      foreign_base_ = seq;
    }
  }
  const size_t at = static_cast<size_t>(seq - foreign_base_);
  if (at >= foreign_queue_.size()) foreign_queue_.resize(at + 1, kUnknownQueue);
  foreign_queue_[at] = queue == kNoQueue ? kConflict : queue;
}

// The foreign dispatches requested after this launch began and before now: each must have been
// decoded on a queue known not to be its stream's. One not decoded yet leaves it undecided until
// `final` (a dispatch record dropped never comes: withheld then).
ReconstructingAttributor::Foreign ReconstructingAttributor::ForeignVerdict(LaunchSlot* slot,
                                                                           bool final) {
  const uint64_t begin = slot->orphans_at_begin.load(std::memory_order_relaxed);
  const uint64_t now = foreign_.load(std::memory_order_seq_cst);
  if (now == begin) return Foreign::kClean;
  if (begin + 1 < foreign_base_) return Foreign::kExposed;  // forgotten
  const uint64_t own = QueueOfStream(slot->stream.load(std::memory_order_relaxed));
  if (own == kConflict || own == kUnknownQueue) {
    return own == kUnknownQueue && !final ? Foreign::kUndecided : Foreign::kExposed;
  }
  constexpr uint64_t kMaxScan = 1u << 16;  // a launch overlapping more is withheld
  if (now - begin > kMaxScan) return Foreign::kExposed;
  // Retried after later batches: resumes where the last scan stopped.
  for (uint64_t seq = std::max(begin, slot->foreign_scanned) + 1; seq <= now; ++seq) {
    const size_t at = static_cast<size_t>(seq - foreign_base_);
    const uint64_t q = at < foreign_queue_.size() ? foreign_queue_[at] : kUnknownQueue;
    if (q == kUnknownQueue) return final ? Foreign::kExposed : Foreign::kUndecided;
    if (q == own || q == kConflict) return Foreign::kExposed;
    slot->foreign_scanned = seq;
  }
  return Foreign::kClean;
}

// ---- The hazard: where streams' packets went (decoder). ----

void ReconstructingAttributor::ObserveQueue(uint64_t tag, uint64_t queue) {
  if (tag == 0 || queue == kNoQueue) return;
  const uint64_t launch = (tag >> 52 << 32 | static_cast<uint32_t>(tag >> 20)) + 1;
  if (launch == observed_launch_ && queue == observed_queue_) [[likely]] {
    return;  // the launch's previous dispatch said the same
  }
  observed_launch_ = launch;
  observed_queue_ = queue;
  LaunchSlot* slot = DecoderSlot(tag);
  if (slot == nullptr) return;
  const uint64_t stream = slot->stream.load(std::memory_order_relaxed);
  if (stream == 0) return;
  auto it = stream_queue_.find(stream);
  if (it == stream_queue_.end()) {
    stream_queue_.emplace(stream, queue);
  } else if (it->second != queue) {
    it->second = kConflict;  // not one queue: proves nothing
  }
}

uint64_t ReconstructingAttributor::QueueOfStream(uint64_t stream) const {
  if (stream == 0) return kConflict;  // unknown stream: proves nothing
  auto it = stream_queue_.find(stream);
  return it == stream_queue_.end() ? kUnknownQueue : it->second;
}

// A launch with peers is keyed only if its own stream's queue is this dispatch's and every peer's
// stream is known to use another queue: no peer could then have written (and tagged) its packets,
// nor it theirs. A peer whose stream no decoded dispatch has placed yet leaves it undecided until
// `final`. Judged once per launch, so a launch is keyed or withheld whole.
ReconstructingAttributor::Hazard ReconstructingAttributor::HazardVerdict(LaunchSlot* slot,
                                                                         uint64_t queue,
                                                                         bool final) {
  if (slot->verdict != 0) return slot->verdict == 1 ? Hazard::kProven : Hazard::kWithheld;
  const uint64_t own = QueueOfStream(slot->stream.load(std::memory_order_relaxed));
  if (queue == kLaunchQueue) {  // a copy: on its stream's queue, once a dispatch has placed it
    if (own == kUnknownQueue && !final) return Hazard::kUndecided;
    queue = own == kUnknownQueue || own == kConflict ? kNoQueue : own;
  }
  bool proven = queue != kNoQueue;
  bool unknown = false;
  if (own != queue || own == kConflict) proven = false;
  const uint32_t n = slot->peer_count.load(std::memory_order_acquire);
  if (n > LaunchSlot::kMaxPeers) proven = false;
  for (uint32_t i = 0; proven && i < n; ++i) {
    // An entry still being written (0) comes from a launch that saw this one open after its end
    // scan began: that scan found that launch open and recorded its stream already.
    const uint64_t stream = slot->peers[i].load(std::memory_order_acquire);
    if (stream == 0) continue;
    const uint64_t other = stream == LaunchSlot::kUnknownStream ? kConflict : QueueOfStream(stream);
    if (other == kUnknownQueue) {
      unknown = true;  // may be learned from a later batch
    } else if (other == kConflict || other == kUnknownQueue || other == own) {
      proven = false;
    }
  }
  if (proven && unknown && !final) return Hazard::kUndecided;
  proven = proven && !unknown;
  slot->verdict = proven ? 1 : 2;
  if (slot->plain.load(std::memory_order_relaxed) == 0)
    ++(proven ? hazard_proven_ : hazard_withheld_);
  return proven ? Hazard::kProven : Hazard::kWithheld;
}

}  // namespace nodescope
