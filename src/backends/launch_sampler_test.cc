#include "backends/launch_sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

using Decision = LaunchSampler::Decision;
bool Kept(Decision d) { return d == Decision::kKeep; }

TEST(LaunchSamplerTest, EveryOneTracesEverything) {
  LaunchSampler s(1);
  for (uint32_t i = 0; i < 1000; ++i) {
    EXPECT_TRUE(Kept(s.SampleGraphLaunch(i % 3)));
    EXPECT_TRUE(Kept(s.SamplePlainLaunch()));
  }
  LaunchSampler::Counts c = s.counts();
  EXPECT_EQ(c.graph_launches, 1000u);
  EXPECT_EQ(c.graph_launches_kept, 1000u);
  EXPECT_EQ(c.plain_launches_kept, 1000u);
}

TEST(LaunchSamplerTest, FirstLaunchOfEveryExecIsTraced) {
  LaunchSampler s(1000000);  // the draw almost never says yes
  for (uint32_t exec = 0; exec < 500; ++exec) {
    EXPECT_TRUE(Kept(s.SampleGraphLaunch(exec * 7 + 1))) << "exec " << exec * 7 + 1;
  }
  // The largest tracked id too; past it nothing is picked, and it is counted.
  EXPECT_TRUE(Kept(s.SampleGraphLaunch(LaunchSampler::kTrackedExecIds - 1)));
  EXPECT_FALSE(Kept(s.SampleGraphLaunch(LaunchSampler::kTrackedExecIds)));
  EXPECT_EQ(s.counts().untracked_execs, 1u);
  int again = 0;
  for (int r = 0; r < 100; ++r) again += Kept(s.SampleGraphLaunch(8)) ? 1 : 0;
  EXPECT_LE(again, 1);
}

// About 1 launch in N, per exec, with the binomial spread of independent draws: a rate bound
// that a wrong threshold (1 in N^2, 1 in N/2) or a draw stuck at one value fails.
TEST(LaunchSamplerTest, RateIsAboutOneInN) {
  for (uint32_t n : {2u, 20u, 100u}) {
    LaunchSampler s(n, 42);
    const int launches = 200000;
    int traced = 0;
    for (int i = 0; i < launches; ++i) traced += Kept(s.SampleGraphLaunch(5)) ? 1 : 0;
    const double expect = launches / static_cast<double>(n);
    const double sigma = std::sqrt(expect * (1.0 - 1.0 / n));
    EXPECT_NEAR(traced, expect + 1, 5 * sigma + 1) << "n=" << n;
    EXPECT_EQ(s.counts().graph_launches_kept, static_cast<uint64_t>(traced));
    int plain = 0;
    for (int i = 0; i < launches; ++i) plain += Kept(s.SamplePlainLaunch()) ? 1 : 0;
    EXPECT_NEAR(plain, expect, 5 * sigma) << "n=" << n;
  }
}

// The launch of an exec after a kept one guards (instrumented, discarded), once; a launch kept
// again needs no guard before it; other execs are not disturbed. A launch overlapping another's
// window is instrumented and discarded, and serves as its exec's guard.
TEST(LaunchSamplerTest, GuardsAndOverlaps) {
  LaunchSampler s(1000000000, 1);                         // picks only first launches
  EXPECT_EQ(s.SampleGraphLaunch(3), Decision::kKeep);     // first
  EXPECT_EQ(s.SampleGraphLaunch(4), Decision::kKeep);     // first of another exec
  EXPECT_EQ(s.SampleGraphLaunch(3), Decision::kDiscard);  // the guard of exec 3
  EXPECT_EQ(s.SampleGraphLaunch(3), Decision::kSkip);
  EXPECT_EQ(s.SampleGraphLaunch(3, /*window_open=*/true), Decision::kDiscard);  // overlap
  EXPECT_EQ(s.SampleGraphLaunch(3), Decision::kSkip) << "an overlap needs no guard";
  EXPECT_EQ(s.SampleGraphLaunch(4, /*window_open=*/true), Decision::kDiscard);  // guard + overlap
  EXPECT_EQ(s.SampleGraphLaunch(4), Decision::kSkip) << "the overlap was exec 4's guard";
  // An exec id past the tracked range cannot be guarded: never picked, discarded in a window.
  EXPECT_EQ(s.SampleGraphLaunch(LaunchSampler::kTrackedExecIds + 1), Decision::kSkip);
  EXPECT_EQ(s.SampleGraphLaunch(LaunchSampler::kTrackedExecIds + 1, true), Decision::kDiscard);
  LaunchSampler::Counts c = s.counts();
  EXPECT_EQ(c.graph_launches, 10u);
  EXPECT_EQ(c.graph_launches_kept, 2u);
  EXPECT_EQ(c.graph_guards, 2u);
  EXPECT_EQ(c.graph_overlaps, 2u);
  EXPECT_EQ(c.untracked_execs, 2u);
  EXPECT_EQ(s.SamplePlainLaunch(true), Decision::kDiscard);  // plain launches never guard
  EXPECT_EQ(s.SamplePlainLaunch(false), Decision::kSkip);
  EXPECT_EQ(s.counts().plain_overlaps, 1u);
}

// A burst of B: the pick and the B - 1 launches of the exec after it are kept, then one guard;
// interleaved launches of another exec and overlaps do not shorten it; a burst longer than
// kMaxBurst is clamped.
TEST(LaunchSamplerTest, BurstsKeepConsecutiveLaunchesThenGuardOnce) {
  LaunchSampler s(1000000000, 1, /*burst=*/3);
  EXPECT_EQ(s.burst(), 3u);
  EXPECT_EQ(s.SampleGraphLaunch(7), Decision::kKeep);                        // first: the pick
  EXPECT_EQ(s.SampleGraphLaunch(9), Decision::kKeep);                        // another exec's first
  EXPECT_EQ(s.SampleGraphLaunch(7, /*window_open=*/true), Decision::kKeep);  // burst, 2 of 3
  EXPECT_EQ(s.SampleGraphLaunch(7), Decision::kKeep);                        // burst, 3 of 3
  EXPECT_EQ(s.SampleGraphLaunch(7), Decision::kDiscard);                     // the guard
  EXPECT_EQ(s.SampleGraphLaunch(7), Decision::kSkip);
  EXPECT_EQ(s.SampleGraphLaunch(9), Decision::kKeep);
  EXPECT_EQ(s.SampleGraphLaunch(9), Decision::kKeep);
  EXPECT_EQ(s.SampleGraphLaunch(9), Decision::kDiscard);
  EXPECT_EQ(s.SampleGraphLaunch(9), Decision::kSkip);
  LaunchSampler::Counts c = s.counts();
  EXPECT_EQ(c.graph_launches_kept, 6u);
  EXPECT_EQ(c.graph_guards, 2u);
  EXPECT_EQ(LaunchSampler(5, 1, 99).burst(), LaunchSampler::kMaxBurst);
  EXPECT_EQ(LaunchSampler(5, 1, 0).burst(), 1u);
}

// Neighbouring execs share a word of the owed counters: a burst of one never touches another's.
TEST(LaunchSamplerTest, BurstCountersOfNeighbouringExecsAreApart) {
  LaunchSampler s(1000000000, 1, LaunchSampler::kMaxBurst);
  for (uint32_t e = 0; e < 16; ++e) EXPECT_EQ(s.SampleGraphLaunch(e), Decision::kKeep);
  for (uint32_t k = 1; k < LaunchSampler::kMaxBurst; ++k) {
    for (uint32_t e = 0; e < 16; ++e) EXPECT_EQ(s.SampleGraphLaunch(e), Decision::kKeep) << e;
  }
  for (uint32_t e = 0; e < 16; ++e) EXPECT_EQ(s.SampleGraphLaunch(e), Decision::kDiscard) << e;
  for (uint32_t e = 0; e < 16; ++e) EXPECT_EQ(s.SampleGraphLaunch(e), Decision::kSkip) << e;
}

// With bursts the pick is drawn with probability 1/(N*B): kept = B per cycle of N*B + B - 1
// launches on average (a pick, B - 1 kept without a draw, then draws until the next pick), so
// about 1 in N still; guards are 1 per B kept. Counts come in bursts of B: the bound widens by
// sqrt(B). A burst that B = 1 would not make (a guard per pick) fails the guard count.
TEST(LaunchSamplerTest, BurstRateIsAboutOneInN) {
  for (uint32_t b : {2u, 4u, 8u}) {
    const uint32_t n = 20;
    LaunchSampler s(n, 42, b);
    const int launches = 400000;
    int traced = 0;
    for (int i = 0; i < launches; ++i) traced += Kept(s.SampleGraphLaunch(5)) ? 1 : 0;
    const double expect = launches * double(b) / (double(n) * b + b - 1);
    const double sigma = std::sqrt(expect * b);
    EXPECT_NEAR(traced, expect, 5 * sigma) << "b=" << b;
    const LaunchSampler::Counts c = s.counts();
    // One guard per pick, unless the guard launch is itself picked (1 in N*B): it is kept.
    const double picks = double(traced) / b;
    EXPECT_NEAR(double(c.graph_guards), picks * (1.0 - 1.0 / (n * b)), 5 * std::sqrt(picks / n))
        << "b=" << b;
  }
}

// With N = 1 nothing is guarded or discarded: every launch is kept.
TEST(LaunchSamplerTest, EveryOneNeedsNoGuards) {
  LaunchSampler s(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s.SampleGraphLaunch(3, i % 2 == 0), Decision::kKeep);
  EXPECT_EQ(s.counts().graph_guards, 0u);
}

// Not periodic: with N = 4, a launch pattern of period 4 must still see every phase traced.
TEST(LaunchSamplerTest, DrawsDoNotFollowAPeriod) {
  LaunchSampler s(4, 7);
  int per_phase[4] = {0, 0, 0, 0};
  for (int i = 0; i < 40000; ++i) per_phase[i % 4] += Kept(s.SampleGraphLaunch(1)) ? 1 : 0;
  for (int p = 0; p < 4; ++p) EXPECT_NEAR(per_phase[p], 2500, 250) << "phase " << p;
}

TEST(LaunchSamplerTest, ThreadsDrawFromTheirOwnStreams) {
  std::vector<bool> a, b;
  {
    LaunchSampler s(10, 99);
    for (int i = 0; i < 1000; ++i) a.push_back(Kept(s.SamplePlainLaunch()));
  }
  std::thread([&] {
    LaunchSampler s(10, 99);
    for (int i = 0; i < 1000; ++i) b.push_back(Kept(s.SamplePlainLaunch()));
  }).join();
  // Each thread seeds its generator from (seed, thread ordinal): two threads with one seed must
  // not make the same decisions, and each stream must be about 1 in 10.
  int yes = 0;
  for (bool x : a) yes += x ? 1 : 0;
  EXPECT_GT(yes, 50);
  EXPECT_LT(yes, 150);
  EXPECT_NE(a, b);
}

// Many threads launching the same execs: every exec's first launch traced exactly once in the
// "first" sense (the bit), counts add up, nothing torn (TSan runs this: label concurrent).
TEST(LaunchSamplerTest, ConcurrentLaunches) {
  LaunchSampler s(50, 3);
  constexpr int kThreads = 4, kPerThread = 20000, kExecs = 64;
  std::vector<std::thread> threads;
  std::atomic<int> traced{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (Kept(s.SampleGraphLaunch(static_cast<uint32_t>((i + t) % kExecs)))) traced.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  LaunchSampler::Counts c = s.counts();
  EXPECT_EQ(c.graph_launches, static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(c.graph_launches_kept, static_cast<uint64_t>(traced.load()));
  EXPECT_GE(traced.load(), kExecs);  // at least every exec's first launch
  EXPECT_LT(traced.load(), kExecs + kThreads * kPerThread / 50 * 2);
}

}  // namespace
}  // namespace nodescope
