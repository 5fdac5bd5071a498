// Tests of user ranges on the device timeline: device spans from scripted records, range paths.
#include "attribution/annotations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace nodescope {
namespace {

constexpr uint32_t kStream = 7;

void AddRange(Trace& t, uint64_t id, uint64_t parent, std::string_view name) {
  UserRange r{};
  r.id = id;
  r.parent_id = parent;
  r.start_ns = 1;
  r.end_ns = 1000000;
  r.name = t.strings.Intern(name);
  r.pid = 1;
  r.tid = 2;
  r.end_tid = 2;
  t.ranges.push_back(r);
}

// The API call with `correlation` was made while `range_id` was the innermost open range.
void AddExternal(Trace& t, uint32_t correlation, uint64_t range_id,
                 ExternalKind kind = ExternalKind::kUserRange) {
  t.external.push_back(ExternalCorrelation{range_id, correlation, kind});
}

GpuActivity Kernel(uint32_t correlation, uint64_t start, uint64_t end, uint32_t stream = kStream,
                   uint32_t device = 0, uint64_t capture_range = 0) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.start_ns = start;
  a.end_ns = end;
  a.correlation_id = correlation;
  a.device = device;
  a.stream = stream;
  a.capture_range_id = capture_range;
  return a;
}

std::vector<DeviceSpan> SpansOf(const Trace& t, uint64_t range_id) {
  std::vector<DeviceSpan> out;
  for (const DeviceSpan& s : t.device_spans) {
    if (s.range_id == range_id) out.push_back(s);
  }
  return out;
}

int64_t Unresolved(const Trace& t) {
  for (const auto& [name, value] : t.counters) {
    if (name == "unresolved_range_links") return value;
  }
  return 0;
}

bool HasCounter(const Trace& t) {
  return std::any_of(t.counters.begin(), t.counters.end(),
                     [](const auto& c) { return c.first == "unresolved_range_links"; });
}

void ExpectSpan(const DeviceSpan& s, uint64_t start, uint64_t end, uint32_t device, uint32_t stream,
                uint32_t replay = 0) {
  EXPECT_EQ(s.start_ns, start) << "range " << s.range_id;
  EXPECT_EQ(s.end_ns, end) << "range " << s.range_id;
  EXPECT_EQ(s.device, device) << "range " << s.range_id;
  EXPECT_EQ(s.stream, stream) << "range " << s.range_id;
  EXPECT_EQ(s.replay_correlation, replay) << "range " << s.range_id;
}

TEST(BuildDeviceSpans, NestedRangesParentContainsChild) {
  Trace t;
  AddRange(t, 1, 0, "outer");
  AddRange(t, 2, 1, "inner");
  AddExternal(t, 10, 1);
  AddExternal(t, 11, 2);
  AddExternal(t, 12, 2);
  t.gpu.push_back(Kernel(10, 100, 200));
  t.gpu.push_back(Kernel(11, 300, 400));
  t.gpu.push_back(Kernel(12, 500, 600));
  BuildDeviceSpans(t);

  ASSERT_EQ(t.device_spans.size(), 2u);
  EXPECT_EQ(t.device_spans[0].range_id, 1u);
  ExpectSpan(t.device_spans[0], 100, 600, 0, kStream);
  EXPECT_EQ(t.strings.Get(t.device_spans[0].name), "outer");
  EXPECT_EQ(t.device_spans[1].range_id, 2u);
  ExpectSpan(t.device_spans[1], 300, 600, 0, kStream);
  EXPECT_EQ(t.strings.Get(t.device_spans[1].name), "inner");
  EXPECT_FALSE(HasCounter(t));
}

TEST(BuildDeviceSpans, SameStartPutsEnclosingSpanFirst) {
  Trace t;
  AddRange(t, 9, 0, "outer");
  AddRange(t, 3, 9, "inner");  // a smaller id than its parent: order comes from the extent
  AddExternal(t, 10, 3);
  AddExternal(t, 11, 9);
  t.gpu.push_back(Kernel(10, 100, 200));
  t.gpu.push_back(Kernel(11, 250, 300));
  BuildDeviceSpans(t);
  ASSERT_EQ(t.device_spans.size(), 2u);
  EXPECT_EQ(t.device_spans[0].range_id, 9u);
  EXPECT_EQ(t.device_spans[1].range_id, 3u);
}

TEST(BuildDeviceSpans, OneRangeOnTwoStreamsGivesTwoSpans) {
  Trace t;
  AddRange(t, 1, 0, "step");
  for (uint32_t c = 1; c <= 6; ++c) AddExternal(t, c, 1);
  // Interleaved: 7, 8, 7, 8, ...
  t.gpu.push_back(Kernel(1, 100, 150, 7));
  t.gpu.push_back(Kernel(2, 120, 180, 8));
  t.gpu.push_back(Kernel(3, 200, 260, 7));
  t.gpu.push_back(Kernel(4, 210, 400, 8));
  t.gpu.push_back(Kernel(5, 300, 350, 7));
  t.gpu.push_back(Kernel(6, 500, 510, 8));
  BuildDeviceSpans(t);
  ASSERT_EQ(t.device_spans.size(), 2u);
  ExpectSpan(t.device_spans[0], 100, 350, 0, 7);
  ExpectSpan(t.device_spans[1], 120, 510, 0, 8);
}

TEST(BuildDeviceSpans, TwoDevicesSortedByStartThenDevice) {
  Trace t;
  AddRange(t, 1, 0, "allreduce");
  AddExternal(t, 1, 1);
  AddExternal(t, 2, 1);
  AddExternal(t, 3, 1);
  t.gpu.push_back(Kernel(1, 100, 200, 7, 1));
  t.gpu.push_back(Kernel(2, 100, 300, 7, 0));
  t.gpu.push_back(Kernel(3, 400, 500, 7, 1));
  BuildDeviceSpans(t);
  ASSERT_EQ(t.device_spans.size(), 2u);
  ExpectSpan(t.device_spans[0], 100, 300, 0, 7);
  ExpectSpan(t.device_spans[1], 100, 500, 1, 7);
}

TEST(BuildDeviceSpans, WidestExtentWinsWhateverTheOrder) {
  std::vector<GpuActivity> records = {
      Kernel(1, 500, 600), Kernel(2, 100, 150),  // earliest start
      Kernel(3, 200, 900),                       // latest end, neither first nor last
      Kernel(4, 300, 310), Kernel(5, 700, 800),
  };
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(records.begin(), records.end(), rng);
    Trace t;
    AddRange(t, 1, 0, "outer");
    AddRange(t, 2, 1, "inner");
    for (uint32_t c = 1; c <= 5; ++c) AddExternal(t, c, c % 2 == 0 ? 2 : 1);
    for (const GpuActivity& a : records) t.gpu.push_back(a);
    BuildDeviceSpans(t);
    ASSERT_EQ(t.device_spans.size(), 2u);
    ExpectSpan(SpansOf(t, 1)[0], 100, 900, 0, kStream);  // every record widens the outer range
    ExpectSpan(SpansOf(t, 2)[0], 100, 310, 0, kStream);  // correlations 2 and 4
  }
}

TEST(BuildDeviceSpans, ActivityOutsideAnyRangeGivesNoSpan) {
  Trace t;
  AddRange(t, 1, 0, "r");
  AddExternal(t, 10, 1);
  t.gpu.push_back(Kernel(11, 100, 200));  // its launch had no range open
  t.gpu.push_back(Kernel(0, 300, 400));   // no correlation at all
  GpuActivity copy = Kernel(12, 500, 600);
  copy.kind = ActivityKind::kMemcpy;
  t.gpu.push_back(copy);
  AddExternal(t, 13, 1, ExternalKind::kOther);  // another tool's id, not a range
  t.gpu.push_back(Kernel(13, 700, 800));
  BuildDeviceSpans(t);
  EXPECT_TRUE(t.device_spans.empty());
  EXPECT_FALSE(HasCounter(t));
}

TEST(BuildDeviceSpans, CopiesAndFillsWidenSpansToo) {
  Trace t;
  AddRange(t, 1, 0, "io");
  AddExternal(t, 1, 1);
  AddExternal(t, 2, 1);
  GpuActivity copy = Kernel(1, 100, 200);
  copy.kind = ActivityKind::kMemcpy;
  GpuActivity fill = Kernel(2, 300, 350);
  fill.kind = ActivityKind::kMemset;
  t.gpu.push_back(copy);
  t.gpu.push_back(fill);
  BuildDeviceSpans(t);
  ASSERT_EQ(t.device_spans.size(), 1u);
  ExpectSpan(t.device_spans[0], 100, 350, 0, kStream);
}

// A graph captured as: range 5 "layer" { range 6 "attn" { node 0, node 1 } node 2 }, replayed 50
// times; every kernel of one replay carries that launch's correlation id.
void AddCapturedReplays(Trace& t, int replays, uint32_t first_correlation, uint64_t t0) {
  for (int r = 0; r < replays; ++r) {
    const uint32_t corr = first_correlation + static_cast<uint32_t>(r);
    const uint64_t base = t0 + 1000 * static_cast<uint64_t>(r);
    t.gpu.push_back(Kernel(corr, base + 0, base + 100, kStream, 0, 6));
    t.gpu.push_back(Kernel(corr, base + 120, base + 200, kStream, 0, 6));
    t.gpu.push_back(Kernel(corr, base + 250, base + 300, kStream, 0, 5));
  }
}

TEST(BuildDeviceSpans, CapturedNestedRangeGivesOneSpanPerReplay) {
  Trace t;
  AddRange(t, 5, 0, "layer");
  AddRange(t, 6, 5, "attn");
  constexpr int kReplays = 50;
  AddCapturedReplays(t, kReplays, 100, 10000);
  BuildDeviceSpans(t);

  ASSERT_EQ(t.device_spans.size(), 2u * kReplays);
  std::vector<DeviceSpan> layer = SpansOf(t, 5), attn = SpansOf(t, 6);
  ASSERT_EQ(layer.size(), size_t{kReplays});
  ASSERT_EQ(attn.size(), size_t{kReplays});
  for (int r = 0; r < kReplays; ++r) {
    const uint64_t base = 10000 + 1000 * static_cast<uint64_t>(r);
    const uint32_t corr = 100 + static_cast<uint32_t>(r);
    ExpectSpan(layer[static_cast<size_t>(r)], base, base + 300, 0, kStream, corr);
    ExpectSpan(attn[static_cast<size_t>(r)], base, base + 200, 0, kStream, corr);
  }
  EXPECT_FALSE(HasCounter(t));
}

TEST(BuildDeviceSpans, RuntimeRangeAroundReplaysAndCaptureRangesBoth) {
  Trace t;
  AddRange(t, 1, 0, "train step");  // open around the cudaGraphLaunch calls
  AddRange(t, 5, 0, "layer");       // open during capture
  AddRange(t, 6, 5, "attn");
  constexpr int kReplays = 3;
  for (uint32_t c = 100; c < 100 + kReplays; ++c) AddExternal(t, c, 1);
  AddCapturedReplays(t, kReplays, 100, 10000);
  BuildDeviceSpans(t);

  std::vector<DeviceSpan> step = SpansOf(t, 1);
  ASSERT_EQ(step.size(), 1u);
  ExpectSpan(step[0], 10000, 12300, 0, kStream, 0);  // all replays
  EXPECT_EQ(SpansOf(t, 5).size(), size_t{kReplays});
  EXPECT_EQ(SpansOf(t, 6).size(), size_t{kReplays});
  EXPECT_EQ(t.device_spans.size(), 1u + 2u * kReplays);
  EXPECT_EQ(t.device_spans[0].range_id, 1u) << "same start as replay 0's spans, but wider";
}

TEST(BuildDeviceSpans, BrokenAndCyclicParentChainsTerminate) {
  Trace t;
  AddRange(t, 1, 99, "orphan");  // parent 99 does not exist
  AddRange(t, 2, 3, "cycle a");
  AddRange(t, 3, 2, "cycle b");
  AddRange(t, 4, 4, "own parent");
  AddExternal(t, 1, 1);
  AddExternal(t, 2, 2);
  AddExternal(t, 4, 4);
  t.gpu.push_back(Kernel(1, 100, 200));
  t.gpu.push_back(Kernel(2, 300, 400));
  t.gpu.push_back(Kernel(4, 500, 600));
  BuildDeviceSpans(t);

  ASSERT_EQ(SpansOf(t, 1).size(), 1u);  // what resolved is still linked
  ExpectSpan(SpansOf(t, 1)[0], 100, 200, 0, kStream);
  EXPECT_EQ(SpansOf(t, 2).size(), 1u);
  EXPECT_EQ(SpansOf(t, 3).size(), 1u) << "each member of the cycle once";
  EXPECT_EQ(SpansOf(t, 4).size(), 1u);
  EXPECT_EQ(Unresolved(t), 3);
  EXPECT_EQ(RangePath(t, 4), "own parent");
  std::string cycle = RangePath(t, 2);
  EXPECT_TRUE(cycle == "cycle b/cycle a" || cycle == "cycle a") << cycle;
}

TEST(BuildDeviceSpans, OverlyDeepChainIsCappedAndCounted) {
  Trace t;
  constexpr uint64_t kDepth = kMaxRangeDepth + 50;
  for (uint64_t id = 1; id <= kDepth; ++id) AddRange(t, id, id - 1, "level");
  AddExternal(t, 1, kDepth);  // the innermost range
  t.gpu.push_back(Kernel(1, 100, 200));
  BuildDeviceSpans(t);
  EXPECT_EQ(t.device_spans.size(), size_t{kMaxRangeDepth});
  EXPECT_EQ(Unresolved(t), 1);
}

TEST(BuildDeviceSpans, UnknownIdsAreCountedNotLinked) {
  Trace t;
  AddRange(t, 1, 0, "known");
  AddExternal(t, 10, 777);  // a range that was dropped, or corrupt input
  t.gpu.push_back(Kernel(10, 100, 200));
  t.gpu.push_back(Kernel(11, 300, 400, kStream, 0, 888));  // unknown capture-time range
  AddExternal(t, 12, 1);
  t.gpu.push_back(Kernel(12, 500, 600, kStream, 0, 999));  // the runtime link still counts
  BuildDeviceSpans(t);
  ASSERT_EQ(t.device_spans.size(), 1u);
  ExpectSpan(t.device_spans[0], 500, 600, 0, kStream);
  EXPECT_EQ(Unresolved(t), 3);
}

TEST(BuildDeviceSpans, ExternalIdsWithoutAnyRangesAreCounted) {
  Trace t;
  AddExternal(t, 10, 5);
  t.gpu.push_back(Kernel(10, 100, 200));
  BuildDeviceSpans(t);
  EXPECT_TRUE(t.device_spans.empty());
  EXPECT_EQ(Unresolved(t), 1);
}

TEST(BuildDeviceSpans, RunningTwiceGivesTheSameResult) {
  Trace t;
  AddRange(t, 1, 0, "r");
  AddExternal(t, 10, 1);
  AddExternal(t, 11, 42);
  t.gpu.push_back(Kernel(10, 100, 200));
  t.gpu.push_back(Kernel(11, 100, 200));
  BuildDeviceSpans(t);
  BuildDeviceSpans(t);
  EXPECT_EQ(t.device_spans.size(), 1u);
  EXPECT_EQ(std::count_if(t.counters.begin(), t.counters.end(),
                          [](const auto& c) { return c.first == "unresolved_range_links"; }),
            1);
  EXPECT_EQ(Unresolved(t), 1);
}

DeviceSpan Span(uint64_t range, uint64_t start, uint64_t end, uint32_t stream = kStream,
                uint32_t device = 0) {
  return DeviceSpan{range, start, end, device, stream, 0, kNoString};
}

TEST(DeviceSpanPads, OneNanosecondMorePerLevelNestedInside) {
  // stream 7: a > {b > c, d}; e apart. Stream 8: f alone. Device 1, stream 7: g > h.
  const std::vector<DeviceSpan> spans = {Span(1, 100, 900),
                                         Span(2, 100, 500),
                                         Span(3, 200, 500),
                                         Span(4, 600, 900),
                                         Span(5, 1000, 1100),
                                         Span(6, 100, 900, 8),
                                         Span(7, 100, 900, kStream, 1),
                                         Span(8, 100, 200, kStream, 1)};
  EXPECT_EQ(DeviceSpanPads(spans), (std::vector<uint32_t>{3, 2, 1, 1, 1, 1, 2, 1}));
}

TEST(DeviceSpanPads, EqualBoundsNestInOrderAndOrderOfInputDoesNotMatter) {
  // Three ranges over exactly the same work (outer > mid > inner): the first listed is outermost.
  std::vector<DeviceSpan> spans = {Span(1, 100, 200), Span(2, 100, 200), Span(3, 100, 200),
                                   Span(4, 150, 160)};
  EXPECT_EQ(DeviceSpanPads(spans), (std::vector<uint32_t>{4, 3, 2, 1}));
  std::swap(spans[0], spans[3]);  // inner-most first: the extent decides, then the order
  EXPECT_EQ(DeviceSpanPads(spans), (std::vector<uint32_t>{1, 4, 3, 2}));
}

TEST(DeviceSpanPads, OverlapWithoutNestingAndEmptyInput) {
  // Ranges of two threads on one stream: b starts inside a and ends after it; neither nests.
  EXPECT_EQ(DeviceSpanPads({Span(1, 100, 300), Span(2, 200, 400), Span(3, 250, 260)}),
            (std::vector<uint32_t>{1, 2, 1}));
  EXPECT_TRUE(DeviceSpanPads({}).empty());
}

TEST(DeviceSpanPads, CapturedReplaysUnderARuntimeRange) {
  Trace t;
  AddRange(t, 1, 0, "train step");
  AddRange(t, 5, 0, "layer");
  AddRange(t, 6, 5, "attn");
  for (uint32_t c = 100; c < 103; ++c) AddExternal(t, c, 1);
  AddCapturedReplays(t, 3, 100, 10000);
  BuildDeviceSpans(t);
  const std::vector<uint32_t> pads = DeviceSpanPads(t.device_spans);
  ASSERT_EQ(pads.size(), t.device_spans.size());
  for (size_t i = 0; i < pads.size(); ++i) {
    const uint64_t range = t.device_spans[i].range_id;
    EXPECT_EQ(pads[i], range == 1 ? 3u : range == 5 ? 2u : 1u) << "range " << range;
  }
}

TEST(RangePath, JoinsNamesOutermostFirst) {
  Trace t;
  AddRange(t, 1, 0, "model");
  AddRange(t, 2, 1, "layer 3");
  AddRange(t, 3, 2, "attn");
  AddRange(t, 4, 50, "orphan");
  EXPECT_EQ(RangePath(t, 3), "model/layer 3/attn");
  EXPECT_EQ(RangePath(t, 1), "model");
  EXPECT_EQ(RangePath(t, 4), "orphan") << "the part that resolved";
  EXPECT_EQ(RangePath(t, 0), "");
  EXPECT_EQ(RangePath(t, 12345), "");
  RangeLinks links(t);
  EXPECT_EQ(RangePath(t, links, 2), "model/layer 3");
}

TEST(RangeLinks, RuntimeLinks) {
  Trace t;
  AddRange(t, 1, 0, "a");
  AddExternal(t, 10, 1);
  AddExternal(t, 11, 2);
  AddExternal(t, 12, 1, ExternalKind::kOther);
  RangeLinks links(t);
  EXPECT_TRUE(links.has_runtime_links());
  EXPECT_EQ(links.RuntimeRangeOf(10), 0u);
  EXPECT_EQ(links.RuntimeRangeOf(11), RangeLinks::kUnresolved);
  EXPECT_EQ(links.RuntimeRangeOf(12), RangeLinks::kNone);
  EXPECT_EQ(links.RuntimeRangeOf(13), RangeLinks::kNone);
  EXPECT_TRUE(links.ChainComplete(0));
}

}  // namespace
}  // namespace nodescope
