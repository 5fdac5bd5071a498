// User ranges on the device timeline: range links, device spans and range paths.
#include "attribution/annotations.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace nodescope {

RangeLinks::RangeLinks(const Trace& trace) : ranges_(trace.ranges) {
  const size_t n = std::min(trace.ranges.held(), kMaxRanges);
  uint64_t max_id = 0;
  trace.ranges.ForEach([&](const UserRange& r) { max_id = std::max(max_id, r.id); });
  by_id_.Reserve(n, max_id);
  parent_.assign(n, kNone);
  complete_.assign(n, 0);
  uint32_t i = 0;
  trace.ranges.ForEach([&](const UserRange& r) {
    if (i < n && r.id != 0) by_id_.FindOrInsert(r.id, i);
    ++i;
  });
  std::vector<uint8_t> parent_missing(n, 0);
  i = 0;
  trace.ranges.ForEach([&](const UserRange& r) {
    if (i < n && r.parent_id != 0) {
      uint32_t p = IndexOf(r.parent_id);
      if (p == kNone) {
        parent_missing[i] = 1;
      } else {
        parent_[i] = p;
      }
    }
    ++i;
  });
  CutCyclesAndMarkChains(parent_missing);

  size_t links = 0;
  uint32_t max_correlation = 0;
  trace.external.ForEach([&](const ExternalCorrelation& e) {
    if (e.external_kind != ExternalKind::kUserRange || e.correlation_id == 0) return;
    ++links;
    max_correlation = std::max(max_correlation, e.correlation_id);
  });
  runtime_.Reserve(links, max_correlation);
  trace.external.ForEach([&](const ExternalCorrelation& e) {
    if (e.external_kind != ExternalKind::kUserRange || e.correlation_id == 0) return;
    uint32_t r = IndexOf(e.external_id);
    runtime_.FindOrInsert(e.correlation_id, r == kNone ? kUnresolved : r);
  });
}

uint32_t RangeLinks::IndexOf(uint64_t id) const { return id == 0 ? kNone : by_id_.Find(id); }

// Turns the parent links into a forest whatever the input: each chain is followed once, and a
// chain that comes back onto itself is cut at the link that closes the cycle.
void RangeLinks::CutCyclesAndMarkChains(const std::vector<uint8_t>& parent_missing) {
  enum : uint8_t { kUnseen = 0, kOnPath = 1, kDone = 2 };
  const size_t n = parent_.size();
  std::vector<uint8_t> state(n, kUnseen);
  std::vector<uint32_t> depth(n, 0);
  std::vector<uint32_t> path;
  for (size_t i = 0; i < n; ++i) {
    if (state[i] != kUnseen) continue;
    path.clear();
    uint32_t j = static_cast<uint32_t>(i);
    while (j != kNone && state[j] == kUnseen) {
      state[j] = kOnPath;
      path.push_back(j);
      j = parent_[j];
    }
    bool complete = false;
    uint32_t d = 0;
    if (j == kNone) {
      complete = parent_missing[path.back()] == 0;
    } else if (state[j] == kOnPath) {
      parent_[path.back()] = kNone;  // the link that closes the cycle
    } else {
      complete = complete_[j] != 0;
      d = depth[j];
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      ++d;
      depth[*it] = d;
      complete_[*it] = complete && d <= kMaxRangeDepth ? 1 : 0;
      state[*it] = kDone;
    }
  }
}

namespace {

constexpr uint32_t kCaptureBit = 1u << 31;  // RangeLinks::kMaxRanges keeps it out of indices
constexpr uint64_t kLinkFlagsAndReplay = (uint64_t{kCaptureBit} << 32) | 0xffffffffull;
constexpr char kUnresolvedCounter[] = "unresolved_range_links";

struct SpanKey {
  uint64_t lane;  // (device << 32) | stream
  uint64_t link;  // ((range index | kCaptureBit for capture-time links) << 32) | replay
  bool operator==(const SpanKey&) const = default;
};
struct SpanKeyHash {
  uint64_t operator()(const SpanKey& k) const {
    return MixBits((k.lane * 0x9e3779b97f4a7c15ull) ^ k.link);
  }
};

class SpanBuilder {
 public:
  SpanBuilder(const RangeLinks& links, size_t expected_spans) : links_(links) {
    index_.Reserve(expected_spans);
    spans_.reserve(expected_spans);
    for (Chain& c : runtime_) c.spans.reserve(kMaxRangeDepth);
    for (Chain& c : capture_) c.spans.reserve(kMaxRangeDepth);
  }

  void Add(const GpuActivity& a) {
    if (a.kind >= ActivityKind::kCount) return;
    const uint64_t lane = (uint64_t{a.device} << 32) | a.stream;
    const size_t slot = (a.stream + a.device * 5) % kChainSlots;
    if (a.correlation_id != 0) {
      const uint32_t r = links_.RuntimeRangeOf(a.correlation_id);
      if (r == RangeLinks::kUnresolved) {
        ++unresolved_;
      } else if (r != RangeLinks::kNone) {
        Link(runtime_[slot], a, SpanKey{lane, uint64_t{r} << 32});
      }
    }
    if (a.capture_range_id != 0) {
      const uint32_t r = links_.IndexOf(a.capture_range_id);
      if (r == RangeLinks::kNone) {
        ++unresolved_;
      } else {
        Link(capture_[slot], a,
             SpanKey{lane, (uint64_t{r | kCaptureBit} << 32) | a.correlation_id});
      }
    }
  }

  std::vector<DeviceSpan> TakeSpans() { return std::move(spans_); }
  uint64_t unresolved() const { return unresolved_; }

 private:
  // The spans of the last leaf key seen on a stream, so a run of records on one stream under one
  // range costs no lookup at all, however streams interleave.
  static constexpr size_t kChainSlots = 16;
  struct Chain {
    bool valid = false;
    bool complete = false;
    SpanKey key{};
    std::vector<uint32_t> spans;
  };

  void Link(Chain& c, const GpuActivity& a, const SpanKey& key) {
    if (!c.valid || !(c.key == key)) [[unlikely]]
      Resolve(c, key, a);
    if (!c.complete) ++unresolved_;
    for (uint32_t s : c.spans) {
      DeviceSpan& span = spans_[s];
      span.start_ns = std::min(span.start_ns, a.start_ns);
      span.end_ns = std::max(span.end_ns, a.end_ns);
    }
  }

  // Finds or creates the spans of the leaf range and of each of its ancestors.
  void Resolve(Chain& c, const SpanKey& leaf_key, const GpuActivity& a) {
    c.valid = true;
    c.key = leaf_key;
    c.spans.clear();
    const uint32_t leaf = static_cast<uint32_t>(leaf_key.link >> 32) & ~kCaptureBit;
    const uint64_t flags_and_replay = leaf_key.link & kLinkFlagsAndReplay;
    const bool capture = (flags_and_replay >> 32) != 0;
    uint32_t r = leaf;
    for (uint32_t hops = 0; r != RangeLinks::kNone && hops < kMaxRangeDepth; ++hops) {
      const SpanKey key{leaf_key.lane, (uint64_t{r} << 32) | flags_and_replay};
      const auto next = static_cast<uint32_t>(spans_.size());
      const uint32_t s = index_.FindOrInsert(key, next);
      if (s == next) {
        const UserRange& range = links_.range(r);
        spans_.push_back(DeviceSpan{range.id, a.start_ns, a.end_ns, a.device, a.stream,
                                    capture ? a.correlation_id : 0, range.name});
      }
      c.spans.push_back(s);
      r = links_.ParentOf(r);
    }
    c.complete = links_.ChainComplete(leaf);
  }

  const RangeLinks& links_;
  FlatIndexMap<SpanKey, SpanKeyHash> index_;
  std::vector<DeviceSpan> spans_;
  Chain runtime_[kChainSlots];
  Chain capture_[kChainSlots];
  uint64_t unresolved_ = 0;
};

}  // namespace

void BuildDeviceSpans(Trace& trace) {
  const RangeLinks links(trace);
  // Usually about a span per range (one per stream its work ran on); ranges on several streams
  // and replays of captured ranges add more, and the index grows by doubling for those.
  SpanBuilder builder(links, links.size() + 64);
  trace.gpu.ForEach([&](const GpuActivity& a) { builder.Add(a); });

  trace.device_spans = builder.TakeSpans();
  std::sort(trace.device_spans.begin(), trace.device_spans.end(),
            [](const DeviceSpan& a, const DeviceSpan& b) {
              if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
              if (a.device != b.device) return a.device < b.device;
              if (a.stream != b.stream) return a.stream < b.stream;
              if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;  // enclosing span first
              if (a.range_id != b.range_id) return a.range_id < b.range_id;
              return a.replay_correlation < b.replay_correlation;
            });

  std::erase_if(trace.counters, [](const auto& c) { return c.first == kUnresolvedCounter; });
  if (builder.unresolved() != 0) {
    trace.counters.emplace_back(kUnresolvedCounter, static_cast<int64_t>(builder.unresolved()));
  }
}

std::vector<uint32_t> DeviceSpanPads(const std::vector<DeviceSpan>& spans) {
  // Each span's height (levels of spans nested inside it) is found by a stack walk over one lane's
  // spans in (start, widest first) order: a popped span raises the height of the one below it.
  std::vector<uint32_t> order(spans.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto lane = [&](uint32_t i) { return (uint64_t{spans[i].device} << 32) | spans[i].stream; };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (lane(a) != lane(b)) return lane(a) < lane(b);
    if (spans[a].start_ns != spans[b].start_ns) return spans[a].start_ns < spans[b].start_ns;
    if (spans[a].end_ns != spans[b].end_ns) return spans[a].end_ns > spans[b].end_ns;
    return a < b;
  });
  std::vector<uint32_t> height(spans.size(), 0);
  std::vector<uint32_t> stack;
  auto pop = [&] {
    const uint32_t child = stack.back();
    stack.pop_back();
    if (!stack.empty()) height[stack.back()] = std::max(height[stack.back()], height[child] + 1);
  };
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    if (k > 0 && lane(order[k - 1]) != lane(i)) {
      while (!stack.empty()) pop();
    }
    while (!stack.empty() && spans[stack.back()].end_ns < spans[i].end_ns) pop();
    stack.push_back(i);
  }
  while (!stack.empty()) pop();
  for (uint32_t& h : height) ++h;
  return height;
}

std::string RangePath(const Trace& trace, const RangeLinks& links, uint64_t range_id) {
  std::string_view names[kMaxRangeDepth];  // innermost first
  size_t depth = 0;
  for (uint32_t r = links.IndexOf(range_id); r != RangeLinks::kNone && depth < kMaxRangeDepth;
       r = links.ParentOf(r)) {
    const StringId name = links.range(r).name;
    names[depth++] = name < trace.strings.size() ? trace.strings.Get(name) : std::string_view();
  }
  std::string path;
  for (size_t i = depth; i > 0; --i) {
    if (i != depth) path += '/';
    path += names[i - 1];
  }
  return path;
}

std::string RangePath(const Trace& trace, uint64_t range_id) {
  return RangePath(trace, RangeLinks(trace), range_id);
}

}  // namespace nodescope
