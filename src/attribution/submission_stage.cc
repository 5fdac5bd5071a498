// The submission-matching attribution stage (stage.h): executions found by queue and submit time,
// tied to their submission call by time and thread, graphs by the stable ids of their commands;
// keys through NativeIdAttributor (the graph id limit, the key layout, its counts). Decided at a
// flush for what it proves, at Finish for the rest; calls no execution can need are released.
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribution/native_attributor.h"
#include "attribution/stage.h"

namespace nodescope {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

class SubmissionMatchingStageImpl final : public SubmissionMatchingStage {
 public:
  SubmissionMatchingStageImpl(bool graph_attribution, uint64_t tolerance_ns, uint64_t settle_ns,
                              bool bounded)
      : tolerance_(tolerance_ns), settle_(settle_ns), bounded_(bounded) {
    if (graph_attribution) attributor_ = std::make_unique<NativeIdAttributor>();
  }

  // Nothing in PTI's records names an exec or a template node: no lifecycle to report.
  void ExecCreated(uint32_t, uint64_t) override {}
  void ExecChanged(uint32_t, uint64_t) override {}
  void TemplateNodeCreated(uint64_t, uint64_t) override {}
  void TemplateNodeCloned(uint64_t, uint64_t) override {}
  void ExecNodeBound(uint64_t, uint64_t, uint64_t) override {}

  void SubmissionCall(uint32_t correlation, uint32_t thread, uint64_t start_ns,
                      uint64_t end_ns) override {
    if (attributor_ == nullptr) return;
    const Call c{start_ns, std::max(start_ns, end_ns), correlation, thread};
    if (!calls_.empty() && c.start < calls_.back().start) calls_sorted_ = false;
    calls_.push_back(c);
    max_call_ns_ = std::max(max_call_ns_, c.end - c.start);
    newest_call_start_ = std::max(newest_call_start_, c.start);
    graph_calls_.insert(correlation);
  }
  void AppendCall(uint32_t correlation) override {
    if (attributor_ != nullptr) graph_calls_.insert(correlation);
  }

  // Records are decided at a flush (Flushed) and in Finish: the records of one execution and of
  // its call come in buffers of different threads, in no set order. A bounded window releases
  // calls here, when their number has doubled since the last release (amortised: a scan of the
  // window per doubling, nothing per record).
  void Process(ChunkedVector<GpuActivity>& gpu, size_t first) override {
    if (attributor_ == nullptr) {
      if (first >= gpu.size()) return;
      gpu.ForEachFrom(first, [](GpuActivity& a) {
        if (a.graph_id == kProvisionalGraphId) Clear(a);
      });
      return;
    }
    if (bounded_ && calls_.size() >= 2 * calls_after_release_ + 1024) {
      calls_after_release_ = calls_.size();  // also when nothing can go yet
      ReleaseCalls(OldestUndecided(gpu), kNever);
    }
  }

  void Flushed(ChunkedVector<GpuActivity>& gpu, uint64_t flush_start_ns) override {
    if (attributor_ == nullptr || finished_) return;
    if (flush_start_ns > settle_) horizon_ = std::max(horizon_, flush_start_ns - settle_);
    Decide(gpu, horizon_);
  }

  void Finish(ChunkedVector<GpuActivity>& gpu) override {
    if (attributor_ == nullptr || finished_) return;
    Decide(gpu, kNever);
    finished_ = true;
  }

  void Report(AttributionInfo* info) const override {
    info->mode = attributor_ != nullptr ? "submission_matched" : "disabled";
    if (attributor_ == nullptr) return;
    attributor_->Report(info);
    for (size_t r = 0; r < info->withheld.size() && r < kWithheldReasonName.size(); ++r) {
      info->withheld[r].second += withheld_.by_reason[r];
    }
  }

  void AddCounters(std::vector<std::pair<std::string, int64_t>>* counters) const override {
    counters->emplace_back("graph_executions_tied", static_cast<int64_t>(tied_));
    counters->emplace_back("graph_executions_withheld", static_cast<int64_t>(untied_));
    if (late_ != 0) counters->emplace_back("graph_executions_late", static_cast<int64_t>(late_));
    if (late_records_ != 0) {
      counters->emplace_back("graph_records_late", static_cast<int64_t>(late_records_));
    }
    counters->emplace_back("graph_submission_calls_released", static_cast<int64_t>(released_));
  }

  uint64_t executions_tied() const override { return tied_; }
  uint64_t executions_withheld() const override { return untied_; }
  uint64_t executions_late() const override { return late_; }
  uint64_t records_late() const override { return late_records_; }
  size_t calls_held() const override { return calls_.size(); }
  uint64_t calls_released() const override { return released_; }

 private:
  struct Call {
    uint64_t start, end;
    uint32_t correlation, thread;
  };
  struct Candidate {
    uint64_t submit, command;
    size_t index;
    uint32_t stream, thread;
  };
  struct Execution {
    size_t begin, end;  // into candidates_
    uint64_t first_submit, last_submit;
    uint32_t call;  // index into calls_, kNoCall when not tied
  };
  struct Node {
    uint32_t graph_id, ordinal;
  };
  static constexpr uint32_t kNoCall = 0xffffffffu;

  static void Clear(GpuActivity& a) {
    a.graph_id = 0;
    a.graph_node_id = 0;
    a.capture_range_id = 0;
    a.context = 0;
  }
  // A withheld graph kernel's correlation id is the append call's (or its graph's first
  // submission's), which names no replay: cleared, so no user range open then claims it
  // (issue 29: a range open while the graph was finalized would stretch over every replay).
  void Withhold(ChunkedVector<GpuActivity>& gpu, const Execution& e, WithheldReason why) {
    for (size_t i = e.begin; i < e.end; ++i) {
      GpuActivity& a = gpu[candidates_[i].index];
      Clear(a);
      a.correlation_id = 0;
      withheld_.Add(why);
    }
  }
  void Decide(ChunkedVector<GpuActivity>& gpu, uint64_t cutoff);
  uint64_t CollectCandidates(ChunkedVector<GpuActivity>& gpu, uint64_t cutoff);
  uint64_t OldestUndecided(ChunkedVector<GpuActivity>& gpu) const;
  void GroupExecutions();
  uint32_t TieToCall(const Execution& e) const;
  void Attribute(ChunkedVector<GpuActivity>& gpu, const Execution& e);
  void ReleaseCalls(uint64_t oldest_undecided, uint64_t cutoff);

  const uint64_t tolerance_, settle_;
  const bool bounded_;
  std::unique_ptr<NativeIdAttributor> attributor_;  // null when graph attribution is off
  std::vector<Call> calls_;
  bool calls_sorted_ = true;
  std::unordered_set<uint32_t> graph_calls_;  // correlation ids of submissions and appends
  std::unordered_set<uint32_t> referenced_;   // correlation ids some graph kernel carried
  std::vector<Candidate> candidates_;
  std::vector<Execution> executions_;
  std::unordered_map<uint64_t, Node> nodes_;     // command id -> its graph and ordinal
  std::vector<uint32_t> graph_size_;             // by graph id (0 unused)
  std::vector<std::vector<uint32_t>> identity_;  // by graph id, by ordinal: what it first ran
  WithheldCounts withheld_;
  uint64_t max_call_ns_ = 0;  // the longest submission call
  uint64_t newest_call_start_ = 0;
  uint64_t horizon_ = 0;         // submit times before it are decidable (last flush - settle)
  uint64_t released_below_ = 0;  // every call with end + tolerance below it was released
  size_t calls_after_release_ = 0;
  size_t scan_from_ = 0;  // every record before it is decided
  uint64_t tied_ = 0, untied_ = 0, late_ = 0, late_records_ = 0, released_ = 0;
  bool finished_ = false;
};

// The provisional records held, from the first undecided one on: those no call names are cleared
// (no graph's) once decidable; the graph ones become candidates. Returns the oldest submit time of
// those left undecided (kNever: none).
uint64_t SubmissionMatchingStageImpl::CollectCandidates(ChunkedVector<GpuActivity>& gpu,
                                                        uint64_t cutoff) {
  candidates_.clear();
  uint64_t oldest = kNever;
  size_t i = std::max(scan_from_, gpu.first_index());
  gpu.ForEachFrom(i, [&](GpuActivity& a) {
    if (a.graph_id == kProvisionalGraphId) {
      const uint64_t submit = a.capture_range_id;
      if (graph_calls_.count(a.correlation_id) != 0) {
        candidates_.push_back(Candidate{submit, a.graph_node_id, i, a.stream, a.context});
      } else if (submit + tolerance_ < cutoff) {
        // An immediate launch (its call, made before it, is no graph's) — or, before a released
        // call's end, possibly a graph kernel whose call went: no key either way, counted.
        if (submit < released_below_) ++late_records_;
        Clear(a);
      } else {
        oldest = std::min(oldest, submit);
      }
    }
    ++i;
  });
  return oldest;
}

uint64_t SubmissionMatchingStageImpl::OldestUndecided(ChunkedVector<GpuActivity>& gpu) const {
  uint64_t oldest = kNever;
  gpu.ForEachFrom(std::max(scan_from_, gpu.first_index()), [&](GpuActivity& a) {
    if (a.graph_id == kProvisionalGraphId) oldest = std::min(oldest, a.capture_range_id);
  });
  return oldest;
}

// One execution: the graph kernels of one queue whose submit times lie within the tolerance of
// the first one's (submissions to one queue are a whole call apart).
void SubmissionMatchingStageImpl::GroupExecutions() {
  executions_.clear();
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& x, const Candidate& y) {
    return x.stream != y.stream ? x.stream < y.stream : x.submit < y.submit;
  });
  for (size_t i = 0; i < candidates_.size();) {
    Execution e{i, i, candidates_[i].submit, candidates_[i].submit, kNoCall};
    while (e.end < candidates_.size() && candidates_[e.end].stream == candidates_[i].stream &&
           candidates_[e.end].submit - e.first_submit <= tolerance_) {
      e.last_submit = candidates_[e.end].submit;
      ++e.end;
    }
    std::sort(candidates_.begin() + static_cast<ptrdiff_t>(e.begin),
              candidates_.begin() + static_cast<ptrdiff_t>(e.end),
              [](const Candidate& x, const Candidate& y) { return x.command < y.command; });
    executions_.push_back(e);
    i = e.end;
  }
  std::sort(executions_.begin(), executions_.end(),
            [](const Execution& x, const Execution& y) { return x.first_submit < y.first_submit; });
}

// The one submission call containing the execution's submit times (widened by the tolerance on
// both sides: one instant can come out a few ns apart in two records), on the thread that recorded
// its commands; kNoCall when none, or when a call of any thread contains them too.
uint32_t SubmissionMatchingStageImpl::TieToCall(const Execution& e) const {
  const uint32_t thread = candidates_[e.begin].thread;
  for (size_t i = e.begin; i < e.end; ++i) {
    if (candidates_[i].thread != thread) return kNoCall;  // one command list, one appending thread
  }
  // calls_ is sorted by start; a call containing the time starts at most `tolerance_` after it.
  const uint64_t latest_start = e.first_submit + tolerance_;
  auto it = std::upper_bound(calls_.begin(), calls_.end(), latest_start,
                             [](uint64_t t, const Call& c) { return t < c.start; });
  uint32_t found = kNoCall;
  int count = 0;
  while (it != calls_.begin()) {
    --it;
    if (it->start + tolerance_ + max_call_ns_ < e.first_submit) break;  // ends before the time
    if (it->end + tolerance_ >= e.last_submit) {
      found = static_cast<uint32_t>(it - calls_.begin());
      if (++count > 1) return kNoCall;
    }
  }
  if (count != 1 || calls_[found].thread != thread) return kNoCall;
  return found;
}

void SubmissionMatchingStageImpl::Attribute(ChunkedVector<GpuActivity>& gpu, const Execution& e) {
  const size_t n = e.end - e.begin;
  // Exactly the commands of one graph, each once: all new (the first execution to show them
  // defines the graph), or all of one known graph, all of it.
  bool all_new = true, all_known = true, duplicate = false;
  uint32_t graph_id = 0;
  for (size_t i = e.begin; i < e.end; ++i) {
    if (i > e.begin && candidates_[i].command == candidates_[i - 1].command) duplicate = true;
    auto it = nodes_.find(candidates_[i].command);
    if (it == nodes_.end()) {
      all_known = false;
      continue;
    }
    all_new = false;
    if (graph_id == 0) graph_id = it->second.graph_id;
    if (it->second.graph_id != graph_id) all_known = false;
  }
  if (duplicate || (!all_new && !(all_known && graph_size_[graph_id] == n))) {
    Withhold(gpu, e, WithheldReason::kDispatchCountMismatch);
    return;
  }
  if (all_new) {
    graph_id = static_cast<uint32_t>(graph_size_.empty() ? 1 : graph_size_.size());
    if (graph_size_.empty()) graph_size_.push_back(0), identity_.emplace_back();
    graph_size_.push_back(static_cast<uint32_t>(n));
    identity_.emplace_back();
    for (size_t i = e.begin; i < e.end; ++i) {
      const auto ordinal = static_cast<uint32_t>(i - e.begin);
      nodes_.emplace(candidates_[i].command, Node{graph_id, ordinal});
      identity_[graph_id].push_back(IdentityOf(gpu[candidates_[i].index]));
    }
  }
  const uint32_t correlation = calls_[e.call].correlation;
  for (size_t i = e.begin; i < e.end; ++i) {
    GpuActivity& a = gpu[candidates_[i].index];
    const Node node = nodes_.at(candidates_[i].command);
    referenced_.insert(a.correlation_id);  // a visited graph's: its first submission's, always
    Clear(a);
    if (identity_[graph_id][node.ordinal] != IdentityOf(a)) {
      withheld_.Add(WithheldReason::kIdentityMismatch);
      a.correlation_id = 0;
      continue;
    }
    a.graph_id = graph_id;
    a.graph_node_id = (uint64_t{graph_id} << 32) | node.ordinal;
    a.correlation_id = correlation;
    attributor_->Attribute(a);  // the graph id limit and the key table
  }
}

// Decides the executions whose submit times, and whose tied call's end, lie before `cutoff`
// (kNever: all). What is left stays provisional, in its records.
void SubmissionMatchingStageImpl::Decide(ChunkedVector<GpuActivity>& gpu, uint64_t cutoff) {
  if (!calls_sorted_) {
    std::sort(calls_.begin(), calls_.end(),
              [](const Call& x, const Call& y) { return x.start < y.start; });
    calls_sorted_ = true;
  }
  uint64_t oldest = CollectCandidates(gpu, cutoff);
  GroupExecutions();
  // A call makes one execution: a call two executions tie to proves neither. An execution
  // waits while its submit times, or the end of the one call it ties to, are not before the
  // cutoff (another execution inside that call may still come).
  std::vector<uint32_t> claims(calls_.size(), 0);
  std::vector<bool> decide(executions_.size(), false);
  for (size_t x = 0; x < executions_.size(); ++x) {
    Execution& e = executions_[x];
    if (e.last_submit + tolerance_ >= cutoff) continue;
    if (e.last_submit < released_below_) {
      decide[x] = true;  // a released call could have contained it: unproven
      ++late_;
      continue;
    }
    e.call = TieToCall(e);
    // Any execution tying to that call has its submit times before its end + tolerance: all of
    // them are decidable now (so counted below) when that lies a tolerance before the cutoff.
    if (e.call != kNoCall && cutoff != kNever && calls_[e.call].end + 2 * tolerance_ >= cutoff) {
      continue;
    }
    decide[x] = true;
    if (e.call != kNoCall) ++claims[e.call];
  }
  for (size_t x = 0; x < executions_.size(); ++x) {
    const Execution& e = executions_[x];
    if (!decide[x]) {
      oldest = std::min(oldest, e.first_submit);
      continue;
    }
    if (e.call == kNoCall || claims[e.call] != 1) {
      ++untied_;
      Withhold(gpu, e, WithheldReason::kSubmissionUnproven);
      continue;
    }
    ++tied_;
    Attribute(gpu, e);
  }
  // Everything before the first record still provisional is decided: later scans start there.
  size_t i = std::max(scan_from_, gpu.first_index());
  while (i < gpu.size() && gpu[i].graph_id != kProvisionalGraphId) ++i;
  scan_from_ = i;
  if (cutoff != kNever) {
    ReleaseCalls(oldest, cutoff);
    std::vector<Candidate>().swap(candidates_);
    std::vector<Execution>().swap(executions_);
  }
}

// Releases the calls that end (widened by the tolerance) before both the oldest undecided submit
// time and `cutoff` — with bounded_, a cutoff of kNever means the newest call less the settle time.
void SubmissionMatchingStageImpl::ReleaseCalls(uint64_t oldest_undecided, uint64_t cutoff) {
  if (cutoff == kNever) {
    if (!bounded_ || newest_call_start_ <= settle_) return;
    cutoff = std::max(horizon_, newest_call_start_ - settle_);
  }
  const uint64_t below = std::min(oldest_undecided, cutoff);
  if (below <= released_below_) return;
  released_below_ = below;
  const size_t before = calls_.size();
  calls_.erase(std::remove_if(calls_.begin(), calls_.end(),
                              [&](const Call& c) {
                                if (c.end + tolerance_ >= below) return false;
                                if (referenced_.count(c.correlation) == 0) {
                                  graph_calls_.erase(c.correlation);
                                }
                                return true;
                              }),
               calls_.end());
  released_ += before - calls_.size();
  calls_after_release_ = calls_.size();
}

}  // namespace

std::unique_ptr<SubmissionMatchingStage> MakeSubmissionMatchingStage(bool graph_attribution,
                                                                     uint64_t tolerance_ns,
                                                                     uint64_t settle_ns,
                                                                     bool bounded) {
  return std::make_unique<SubmissionMatchingStageImpl>(graph_attribution, tolerance_ns, settle_ns,
                                                       bounded);
}

}  // namespace nodescope
