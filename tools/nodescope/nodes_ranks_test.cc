// Tests of `nodescope nodes` across ranks on synthetic jobs (synthetic_job.h) with a
// known straggler and known waits: from one trace per rank read in parallel, and from the merged
// trace; text, CSV and JSON.
#include "nodes_ranks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "analysis/merge/synthetic_job.h"
#include "analysis/merge/trace_merge.h"

namespace nodescope::cli {
namespace {

using analysis::CrossGraph;
using analysis::CrossNode;
using namespace analysis::synthetic;

// What every reading of the job must find: rank `straggler` slow at node 1 by `slow_us`, every
// other rank waiting that long in the all-reduce (node 2) in each of the replays.
void ExpectJob(const JobShape& job, const RankTraces& traces) {
  ASSERT_EQ(traces.inputs.size(), static_cast<size_t>(job.ranks));
  for (int r = 0; r < job.ranks; ++r) EXPECT_EQ(traces.inputs[r].rank, r);
  std::vector<CrossGraph> graphs = analysis::CompareRanks(traces.inputs);
  ASSERT_EQ(graphs.size(), 1u);
  const CrossGraph& g = graphs[0];
  EXPECT_EQ(g.graph_id, 2u);
  EXPECT_EQ(g.ranks_matched, static_cast<size_t>(job.ranks));
  for (int r = 0; r < job.ranks; ++r) EXPECT_EQ(g.graph_ids[r], 2u + r);  // ids differ per rank
  ASSERT_EQ(g.nodes.size(), 4u);
  ASSERT_TRUE(g.straggler_node.has_value());
  EXPECT_EQ(*g.straggler_node, 1u);
  EXPECT_EQ(g.straggler_rank, job.straggler);
  EXPECT_NEAR(g.straggler_excess_us, job.slow_us, 1e-6);
  EXPECT_EQ(g.replays_compared, static_cast<uint64_t>(job.replays));
  const CrossNode& gemm = g.nodes[1];
  EXPECT_EQ(gemm.slowest_rank, job.straggler);
  EXPECT_NEAR(gemm.min_mean_us, 20, 1e-6);
  EXPECT_NEAR(gemm.median_mean_us, 20, 1e-6);
  EXPECT_NEAR(gemm.max_mean_us, 20 + job.slow_us, 1e-6);
  EXPECT_TRUE(std::isnan(gemm.ranks[0].wait_mean_us));  // not a collective
  const CrossNode& ar = g.nodes[2];
  EXPECT_TRUE(ar.collective);
  ASSERT_EQ(ar.ranks.size(), static_cast<size_t>(job.ranks));
  for (const analysis::RankNode& r : ar.ranks) {
    const double expected = r.rank == job.straggler ? 0 : job.slow_us;
    EXPECT_NEAR(r.wait_mean_us, expected, 1e-3) << "rank " << r.rank;
    EXPECT_NEAR(r.wait_max_us, expected, 1e-3) << "rank " << r.rank;
    EXPECT_NEAR(r.wait_total_us, expected * job.replays, 1e-2) << "rank " << r.rank;
  }
  // The waiting ranks' all-reduce lasts longer: it is the slowest there, not the straggler.
  EXPECT_NE(ar.slowest_rank, job.straggler);
  EXPECT_NEAR(ar.most_wait_us, job.slow_us, 1e-3);
  EXPECT_NE(ar.most_waiting_rank, job.straggler);
}

TEST(NodesRanks, TwoTracesReadInParallel) {
  JobShape job;
  std::vector<std::string> paths = WriteRankTraces(job);
  StatusOr<RankTraces> traces = LoadRankTraces({paths[1], paths[0]}, {}, 2);
  ASSERT_TRUE(traces.ok()) << traces.status().ToString();
  ExpectJob(job, *traces);
}

TEST(NodesRanks, FourRanksAndTheirMergedTrace) {
  JobShape job;
  job.ranks = 4;
  job.straggler = 2;
  job.slow_us = 30;
  job.replays = 25;
  std::vector<std::string> paths = WriteRankTraces(job);
  StatusOr<RankTraces> traces = LoadRankTraces(paths, {}, 3);
  ASSERT_TRUE(traces.ok()) << traces.status().ToString();
  ExpectJob(job, *traces);

  const std::string merged_path = paths[0] + ".merged.json";
  {
    std::ofstream file(merged_path);
    StringJsonOutput out;
    ASSERT_TRUE(analysis::MergeTraces(paths, out).ok());
    file << out.str();
  }
  StatusOr<RankTraces> merged = LoadRankTraces({merged_path}, {}, 1);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ExpectJob(job, *merged);
  EXPECT_EQ(merged->inputs[2].source, merged_path + " (slot 2)");
}

// --top N across ranks: the N nodes with the most GPU time over the ranks, in node id order, the
// straggler's node among them.
TEST(NodesRanks, TopKeepsTheHeaviestNodesAndTheStraggler) {
  JobShape job;  // 2 ranks, per replay: gemm_b 20 + 70 us, the all-reduce 55 + 5, gemm_a 10 + 10
  std::vector<std::string> paths = WriteRankTraces(job);
  StatusOr<RankTraces> traces = LoadRankTraces(paths, {}, 2);
  ASSERT_TRUE(traces.ok());
  analysis::NodeStatsOptions top;
  top.top = 2;
  std::vector<CrossGraph> graphs = analysis::CompareRanks(traces->inputs, top);
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].node_count, 4u);
  ASSERT_EQ(graphs[0].nodes.size(), 2u);
  EXPECT_EQ(graphs[0].nodes[0].name, "gemm_b");
  EXPECT_EQ(graphs[0].nodes[1].name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_EQ(graphs[0].straggler_node, std::optional<size_t>(0));
  const std::string text = RanksOutput(NodesFormat::kText, traces->inputs, graphs, 100);
  EXPECT_NE(text.find(", 4 nodes (top 2 shown)\n"), std::string::npos) << text;

  // 4 ranks: the all-reduce (3 x 55 + 5 us) outweighs gemm_b (3 x 20 + 70 us), the straggler's
  // node, which is kept in its place with --top 1.
  job.ranks = 4;
  paths = WriteRankTraces(job);
  traces = LoadRankTraces(paths, {}, 2);
  ASSERT_TRUE(traces.ok());
  top.top = 1;
  graphs = analysis::CompareRanks(traces->inputs, top);
  ASSERT_EQ(graphs.size(), 1u);
  ASSERT_EQ(graphs[0].nodes.size(), 1u);
  EXPECT_EQ(graphs[0].nodes[0].name, "gemm_b");
  EXPECT_EQ(graphs[0].straggler_node, std::optional<size_t>(0));
  top.top = 2;
  graphs = analysis::CompareRanks(traces->inputs, top);
  ASSERT_EQ(graphs[0].nodes.size(), 2u);
  EXPECT_EQ(graphs[0].nodes[0].name, "gemm_b");
  EXPECT_EQ(graphs[0].nodes[1].name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

TEST(NodesRanks, TextCsvAndJson) {
  JobShape job;
  std::vector<std::string> paths = WriteRankTraces(job);
  StatusOr<RankTraces> traces = LoadRankTraces(paths, {}, 2);
  ASSERT_TRUE(traces.ok());
  std::vector<CrossGraph> graphs = analysis::CompareRanks(traces->inputs);
  const std::string text = RanksOutput(NodesFormat::kText, traces->inputs, graphs, 100);
  EXPECT_NE(text.find("graph 2 on 2 of 2 ranks (rank 1: graph 3), 4 nodes\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  straggler      rank 1 at node 1 (gemm_b): mean 70.00 us, 50.00 us above "
                      "the median of the ranks' means\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  waiting        rank 0 at node 2 (ncclDevKernel_AllReduce_Sum_f32_RING_LL)"
                      ": 50.00 us per replay on average, over 10 replays\n"),
            std::string::npos)
      << text;

  const std::string csv = RanksOutput(NodesFormat::kCsv, traces->inputs, graphs, 0);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 4) << csv;
  EXPECT_NE(csv.find("\n2,8589934594,0," + paths[0] +
                     ",2,8589934594,ncclDevKernel_AllReduce_Sum_f32_RING_LL,true,10,55.000,"
                     "55.000,55.000,550.000,5.000,5.000,55.000,0,50.000,50.000,500.000,10\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n2,8589934593,1," + paths[1] +
                     ",3,12884901889,gemm_b,false,10,70.000,70.000,70.000,700.000,20.000,20.000,"
                     "70.000,1,,,,0\n"),
            std::string::npos)
      << csv;

  const std::string json = RanksOutput(NodesFormat::kJson, traces->inputs, graphs, 0);
  EXPECT_NE(json.find(R"("straggler":{"rank":1,"node_id":8589934593,"excess_us":50.000})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("rank":1,"source":")"), std::string::npos);
  EXPECT_NE(json.find(R"("wait_mean_us":null)"), std::string::npos);
}

}  // namespace
}  // namespace nodescope::cli
