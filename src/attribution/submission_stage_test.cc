// The submission-matching stage (stage.h): executions by queue and submit time, tied to exactly
// one submission call of the recording thread, graphs by command ids, verification, the off
// switch, and what is withheld and why.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "attribution/stage.h"

namespace nodescope {
namespace {

using Stage = SubmissionMatchingStage;

// A provisional kernel as the PTI decoder stores it.
GpuActivity Kernel(uint64_t command, uint64_t submit, uint32_t stream, uint32_t thread,
                   StringId name, uint32_t correlation) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.graph_id = Stage::kProvisionalGraphId;
  a.graph_node_id = command;
  a.capture_range_id = submit;
  a.context = thread;
  a.stream = stream;
  a.kernel.name = name;
  a.correlation_id = correlation;
  return a;
}
uint64_t Key(uint32_t graph, uint32_t ordinal) { return (uint64_t{graph} << 32) | ordinal; }

uint64_t Withheld(const AttributionInfo& info, const std::string& reason) {
  for (const auto& [r, count] : info.withheld) {
    if (r == reason) return count;
  }
  return ~uint64_t{0};
}

// A graph of `nodes` commands (ids first_command...) appended by calls with correlation ids
// 100 + i on `thread`; `replays` submissions on `thread`, each call [t, t + 1000) with the submit
// time at t + 500 (+ `jitter` on odd nodes), correlation 1000 + r.
void Replay(Stage& stage, ChunkedVector<GpuActivity>& gpu, uint64_t first_command, int nodes,
            int replays, uint32_t stream, uint32_t thread, uint64_t t0, uint32_t name_base,
            uint64_t jitter = 0) {
  for (int i = 0; i < nodes; ++i) stage.AppendCall(100 + thread * 10 + i);
  for (int r = 0; r < replays; ++r) {
    const uint64_t t = t0 + uint64_t(r) * 10000;
    stage.SubmissionCall(1000 + thread * 1000 + r, thread, t, t + 1000);
    for (int i = 0; i < nodes; ++i) {
      gpu.push_back(Kernel(first_command + i, t + 500 + (i % 2) * jitter, stream, thread,
                           name_base + i, 100 + thread * 10 + i));
    }
  }
}

TEST(SubmissionMatchingStage, SixNodesReplayedAHundredTimesGiveSixKeysAHundredTimesEach) {
  auto stage = MakeSubmissionMatchingStage(true);
  ChunkedVector<GpuActivity> gpu;
  gpu.push_back(Kernel(1, 50, 1, 7, 99, 55));  // a plain kernel: its call is no graph's
  Replay(*stage, gpu, 10, 6, 100, 1, 7, 1000000, 1, /*jitter=*/30);
  stage->Process(gpu, 0);
  EXPECT_EQ(gpu[1].graph_id, Stage::kProvisionalGraphId);  // undecided until Finish
  stage->Finish(gpu);
  EXPECT_EQ(gpu[0].graph_id, 0u);
  EXPECT_EQ(gpu[0].graph_node_id, 0u);
  EXPECT_EQ(gpu[0].correlation_id, 55u);
  std::map<uint64_t, int> keys;
  for (size_t i = 1; i < gpu.size(); ++i) {
    const GpuActivity& a = gpu[i];
    ++keys[a.graph_node_id];
    const size_t replay = (i - 1) / 6, node = (i - 1) % 6;
    EXPECT_EQ(a.graph_id, 1u);
    EXPECT_EQ(a.graph_node_id, Key(1, static_cast<uint32_t>(node)));
    EXPECT_EQ(a.correlation_id, 1000 + 7 * 1000 + replay);  // the replay's submission call
    EXPECT_EQ(a.capture_range_id, 0u);
    EXPECT_EQ(a.context, 0u);
  }
  EXPECT_EQ(keys.size(), 6u);
  for (const auto& [key, n] : keys) EXPECT_EQ(n, 100) << key;
  EXPECT_EQ(stage->executions_tied(), 100u);
  EXPECT_EQ(stage->executions_withheld(), 0u);
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(info.mode, "submission_matched");
  EXPECT_EQ(Withheld(info, "submission_unproven"), 0u);
}

TEST(SubmissionMatchingStage, TwoGraphsOnTwoThreadsGetTwoGraphIdsAndOverlapsAreWithheld) {
  auto stage = MakeSubmissionMatchingStage(true);
  ChunkedVector<GpuActivity> gpu;
  Replay(*stage, gpu, 10, 3, 5, 1, 7, 1000000, 1);
  // Thread 8's calls start 300 ns after thread 7's: each submit time of either lies in both calls.
  Replay(*stage, gpu, 20, 3, 5, 2, 8, 1000300, 11);
  // One more replay on thread 8 alone, far away: tied.
  stage->SubmissionCall(5000, 8, 9000000, 9001000);
  for (int i = 0; i < 3; ++i) gpu.push_back(Kernel(20 + i, 9000500, 2, 8, 11 + i, 180 + i));
  stage->Finish(gpu);
  size_t keyed = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (gpu[i].graph_id != 0) {
      ++keyed;
      EXPECT_EQ(gpu[i].graph_id, 1u);  // the first tied execution defines the first graph
      EXPECT_EQ(gpu[i].correlation_id, 5000u);
    }
  }
  EXPECT_EQ(keyed, 3u);
  EXPECT_EQ(stage->executions_tied(), 1u);
  EXPECT_EQ(stage->executions_withheld(), 10u);
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(Withheld(info, "submission_unproven"), 30u);
}

TEST(SubmissionMatchingStage, ACallOfAnotherThreadOrNoCallProvesNothing) {
  auto stage = MakeSubmissionMatchingStage(true);
  ChunkedVector<GpuActivity> gpu;
  for (int i = 0; i < 2; ++i) stage->AppendCall(100 + i);
  // Recorded by thread 7, submitted (as far as the records show) by thread 9.
  stage->SubmissionCall(900, 9, 1000, 2000);
  for (int i = 0; i < 2; ++i) gpu.push_back(Kernel(10 + i, 1500, 1, 7, 1 + i, 100 + i));
  // No call at all around this one's submit time (its record was lost).
  for (int i = 0; i < 2; ++i) gpu.push_back(Kernel(10 + i, 50000, 1, 7, 1 + i, 100 + i));
  stage->Finish(gpu);
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].graph_id, 0u) << i;
    EXPECT_EQ(gpu[i].correlation_id, 100 + i % 2) << i;  // the SDK's, untouched
  }
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(Withheld(info, "submission_unproven"), 4u);
}

TEST(SubmissionMatchingStage, OneCallClaimedByTwoExecutionsProvesNeither) {
  auto stage = MakeSubmissionMatchingStage(true);
  ChunkedVector<GpuActivity> gpu;
  for (int i = 0; i < 2; ++i) stage->AppendCall(100 + i);
  stage->SubmissionCall(900, 7, 1000, 2000);
  for (int i = 0; i < 2; ++i) gpu.push_back(Kernel(10 + i, 1200, 1, 7, 1 + i, 100 + i));
  for (int i = 0; i < 2; ++i) gpu.push_back(Kernel(10 + i, 1800, 2, 7, 1 + i, 100 + i));
  stage->Finish(gpu);
  for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].graph_id, 0u) << i;
  EXPECT_EQ(stage->executions_withheld(), 2u);
}

TEST(SubmissionMatchingStage, PartialMixedAndDuplicatedExecutionsAreWithheld) {
  auto stage = MakeSubmissionMatchingStage(true);
  ChunkedVector<GpuActivity> gpu;
  Replay(*stage, gpu, 10, 4, 1, 1, 7, 1000000, 1);  // defines the graph: commands 10..13
  const size_t defined = gpu.size();
  auto submission = [&](uint64_t t, uint32_t corr) { stage->SubmissionCall(corr, 7, t, t + 1000); };
  submission(2000000, 2001);  // a partial replay: 3 of 4 commands
  for (int i = 0; i < 3; ++i) gpu.push_back(Kernel(10 + i, 2000500, 1, 7, 1 + i, 170 + i));
  submission(3000000, 3001);  // a known command with an unknown one
  gpu.push_back(Kernel(10, 3000500, 1, 7, 1, 170));
  gpu.push_back(Kernel(77, 3000500, 1, 7, 5, 170));
  submission(4000000, 4001);  // one command twice (two executions the time cannot separate)
  for (int i = 0; i < 4; ++i) gpu.push_back(Kernel(10 + i, 4000500, 1, 7, 1 + i, 170 + i));
  gpu.push_back(Kernel(10, 4000510, 1, 7, 1, 170));
  submission(5000000, 5001);  // a node running another kernel than it first ran
  for (int i = 0; i < 4; ++i)
    gpu.push_back(Kernel(10 + i, 5000500, 1, 7, i == 2 ? 9 : 1 + i, 170 + i));
  stage->Finish(gpu);
  for (size_t i = 0; i < defined; ++i) EXPECT_EQ(gpu[i].graph_id, 1u) << i;
  size_t keyed = 0;
  for (size_t i = defined; i < gpu.size(); ++i) keyed += gpu[i].graph_id != 0;
  EXPECT_EQ(keyed, 3u);  // the last replay's three unchanged nodes
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(Withheld(info, "dispatch_count_mismatch"), 3u + 2u + 5u);
  EXPECT_EQ(Withheld(info, "identity_mismatch"), 1u);
}

TEST(SubmissionMatchingStage, SubmitTimesJustOutsideTheirCallWithinTheToleranceAreTied) {
  auto stage = MakeSubmissionMatchingStage(true, 40);
  ChunkedVector<GpuActivity> gpu;
  stage->AppendCall(100);
  stage->SubmissionCall(900, 7, 1000, 2000);
  gpu.push_back(Kernel(10, 2030, 1, 7, 1, 100));  // 30 ns past the call's end: tied
  stage->SubmissionCall(901, 7, 5000, 6000);
  gpu.push_back(Kernel(10, 6050, 1, 7, 1, 100));  // 50 ns past: not
  stage->Finish(gpu);
  EXPECT_EQ(gpu[0].graph_node_id, Key(1, 0));
  EXPECT_EQ(gpu[1].graph_id, 0u);
}

TEST(SubmissionMatchingStage, OffClearsEveryProvisionalRecordInProcess) {
  auto stage = MakeSubmissionMatchingStage(false);
  ChunkedVector<GpuActivity> gpu;
  Replay(*stage, gpu, 10, 6, 3, 1, 7, 1000000, 1);
  stage->Process(gpu, 0);
  stage->Finish(gpu);
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].graph_id, 0u);
    EXPECT_EQ(gpu[i].graph_node_id, 0u);
    EXPECT_EQ(gpu[i].capture_range_id, 0u);
    EXPECT_EQ(gpu[i].context, 0u);
  }
  AttributionInfo info;
  stage->Report(&info);
  EXPECT_EQ(info.mode, "disabled");
}

}  // namespace
}  // namespace nodescope
