// The submission-matching attribution stage (stage.h): executions found by queue and submit time,
// tied to their submission call by time and thread, graphs by the stable ids of their commands;
// keys through NativeIdAttributor (the graph id limit, the key layout, its counts).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribution/native_attributor.h"
#include "attribution/stage.h"

namespace nodescope {
namespace {

class SubmissionMatchingStageImpl final : public SubmissionMatchingStage {
 public:
  SubmissionMatchingStageImpl(bool graph_attribution, uint64_t tolerance_ns)
      : tolerance_(tolerance_ns) {
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
    calls_.push_back(Call{start_ns, std::max(start_ns, end_ns), correlation, thread});
    graph_calls_.insert(correlation);
  }
  void AppendCall(uint32_t correlation) override {
    if (attributor_ != nullptr) graph_calls_.insert(correlation);
  }

  // Records are decided in Finish(), when every submission call has been seen (the records of
  // one execution and of its call come in buffers of different threads, in no set order).
  void Process(ChunkedVector<GpuActivity>& gpu, size_t first) override {
    if (attributor_ != nullptr || first >= gpu.size()) return;
    gpu.ForEachFrom(first, [](GpuActivity& a) {
      if (a.graph_id == kProvisionalGraphId) Clear(a);
    });
  }

  void Finish(ChunkedVector<GpuActivity>& gpu) override;

  void Report(AttributionInfo* info) const override {
    info->mode = attributor_ != nullptr ? "submission_matched" : "disabled";
    if (attributor_ == nullptr) return;
    attributor_->Report(info);
    for (size_t r = 0; r < info->withheld.size() && r < kWithheldReasonName.size(); ++r) {
      info->withheld[r].second += withheld_.by_reason[r];
    }
  }

  uint64_t executions_tied() const override { return tied_; }
  uint64_t executions_withheld() const override { return untied_; }

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
  void Withhold(ChunkedVector<GpuActivity>& gpu, const Execution& e, WithheldReason why) {
    for (size_t i = e.begin; i < e.end; ++i) {
      GpuActivity& a = gpu[candidates_[i].index];
      a.graph_id = 0;
      a.graph_node_id = 0;
      withheld_.Add(why);
    }
  }
  void CollectCandidates(ChunkedVector<GpuActivity>& gpu);
  void GroupExecutions();
  uint32_t TieToCall(const Execution& e) const;
  void Attribute(ChunkedVector<GpuActivity>& gpu, const Execution& e);

  const uint64_t tolerance_;
  std::unique_ptr<NativeIdAttributor> attributor_;  // null when graph attribution is off
  std::vector<Call> calls_;
  std::unordered_set<uint32_t> graph_calls_;  // correlation ids of submissions and appends
  std::vector<Candidate> candidates_;
  std::vector<Execution> executions_;
  std::unordered_map<uint64_t, Node> nodes_;     // command id -> its graph and ordinal
  std::vector<uint32_t> graph_size_;             // by graph id (0 unused)
  std::vector<std::vector<uint32_t>> identity_;  // by graph id, by ordinal: what it first ran
  WithheldCounts withheld_;
  uint64_t max_call_ns_ = 0;  // the longest submission call
  uint64_t tied_ = 0, untied_ = 0;
  bool finished_ = false;
};

void SubmissionMatchingStageImpl::CollectCandidates(ChunkedVector<GpuActivity>& gpu) {
  size_t i = gpu.first_index();  // absolute: a ring window (backends/ring_window.h) starts later
  gpu.ForEachFrom(0, [&](GpuActivity& a) {
    if (a.graph_id == kProvisionalGraphId) {
      const Candidate c{a.capture_range_id, a.graph_node_id, i, a.stream, a.context};
      Clear(a);
      if (graph_calls_.count(a.correlation_id) != 0) candidates_.push_back(c);
    }
    ++i;
  });
}

// One execution: the graph kernels of one queue whose submit times lie within the tolerance of
// the first one's (submissions to one queue are a whole call apart).
void SubmissionMatchingStageImpl::GroupExecutions() {
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
    if (identity_[graph_id][node.ordinal] != IdentityOf(a)) {
      withheld_.Add(WithheldReason::kIdentityMismatch);
      continue;
    }
    a.graph_id = graph_id;
    a.graph_node_id = (uint64_t{graph_id} << 32) | node.ordinal;
    a.correlation_id = correlation;
    attributor_->Attribute(a);  // the graph id limit and the key table
  }
}

void SubmissionMatchingStageImpl::Finish(ChunkedVector<GpuActivity>& gpu) {
  if (attributor_ == nullptr || finished_) return;
  finished_ = true;
  std::sort(calls_.begin(), calls_.end(),
            [](const Call& x, const Call& y) { return x.start < y.start; });
  for (const Call& c : calls_) max_call_ns_ = std::max(max_call_ns_, c.end - c.start);
  CollectCandidates(gpu);
  GroupExecutions();
  // A call makes one execution: a call two executions tie to proves neither.
  std::vector<uint32_t> claims(calls_.size(), 0);
  for (Execution& e : executions_) {
    e.call = TieToCall(e);
    if (e.call != kNoCall) ++claims[e.call];
  }
  for (const Execution& e : executions_) {
    if (e.call == kNoCall || claims[e.call] != 1) {
      ++untied_;
      Withhold(gpu, e, WithheldReason::kSubmissionUnproven);
      continue;
    }
    ++tied_;
    Attribute(gpu, e);
  }
  std::vector<Candidate>().swap(candidates_);
  std::vector<Execution>().swap(executions_);
}

}  // namespace

std::unique_ptr<SubmissionMatchingStage> MakeSubmissionMatchingStage(bool graph_attribution,
                                                                     uint64_t tolerance_ns) {
  return std::make_unique<SubmissionMatchingStageImpl>(graph_attribution, tolerance_ns);
}

}  // namespace nodescope
