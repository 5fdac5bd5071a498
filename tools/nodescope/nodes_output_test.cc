// Tests of `nodescope nodes` output helpers and its text, CSV and JSON renderings.
// The renderings of a small trace are pinned byte for byte.
#include "nodes_output.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nodes_format.h"

namespace nodescope::cli {
namespace {

TEST(NodesFormat, ShortenPathDropsOuterPartsFirst) {
  const std::string p = "model/layer.2/mlp";  // 17 columns
  EXPECT_EQ(ShortenPath(p, 0), p);
  EXPECT_EQ(ShortenPath(p, 17), p);
  EXPECT_EQ(ShortenPath(p, 16), "\xe2\x80\xa6/layer.2/mlp");
  EXPECT_EQ(ShortenPath(p, 13), "\xe2\x80\xa6/layer.2/mlp");
  // Not "…/mlp", which would not say which layer: the end of the path.
  EXPECT_EQ(ShortenPath(p, 12), "\xe2\x80\xa6layer.2/mlp");
  EXPECT_EQ(ShortenPath(p, 9),
            "\xe2\x80\xa6"
            "er.2/mlp");
  EXPECT_EQ(ShortenPath(p, 1), "\xe2\x80\xa6");
  EXPECT_EQ(ShortenPath("a/b/c/d", 5), "\xe2\x80\xa6/c/d");
  EXPECT_EQ(ShortenPath("a/", 1), "\xe2\x80\xa6");
  EXPECT_EQ(ShortenPath("no_slashes_here", 5), ShortenMiddle("no_slashes_here", 5));
}

TEST(NodesFormat, CsvFieldQuotesPerRfc4180) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("f(float*, int)"), "\"f(float*, int)\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
}

// OWASP's CSV injection advice: a cell that a spreadsheet would read as a formula starts with '.
TEST(NodesFormat, CsvFieldNeutralisesFormulasAndEscapesControls) {
  EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(CsvField("+cmd"), "\"'+cmd\"");
  EXPECT_EQ(CsvField("-2+3"), "\"'-2+3\"");
  EXPECT_EQ(CsvField("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(CsvField("\tx"), "\\tx");  // a leading tab or CR becomes text, no longer a trigger
  EXPECT_EQ(CsvField("\rcr"), "\\rcr");
  EXPECT_EQ(CsvField("a=b"), "a=b");
  EXPECT_EQ(CsvField("two\nlines"), "two\\nlines");
  EXPECT_EQ(CsvField("esc\x1b[31mred"), "esc\\x1B[31mred");
  EXPECT_EQ(CsvField("\xe2\x80\xae"
                     "evil"),
            "\\u202Eevil");
}

TEST(NodesFormat, NumbersAndUnits) {
  EXPECT_EQ(Fixed4(9.75), "9.750");
  EXPECT_EQ(Fixed4(26), "26.00");
  EXPECT_EQ(Fixed4(390), "390.0");
  EXPECT_EQ(Fixed4(4096), "4096");
  EXPECT_EQ(Fixed4(-1.8), "-1.800");
  EXPECT_EQ(Fixed4(NAN), "-");
  EXPECT_EQ(Fixed4(9.9996), "10.00");
  EXPECT_EQ(Fixed4(999.96), "1000");
  EXPECT_EQ(Duration(52), "52.00 us");
  EXPECT_EQ(Duration(0.9), "0.900 us");
  EXPECT_EQ(Duration(1234), "1.234 ms");
  EXPECT_EQ(Duration(999.97), "1.000 ms");
  EXPECT_EQ(Duration(999.94), "999.9 us");
  EXPECT_EQ(Duration(999999), "1.000 s");
  EXPECT_EQ(Duration(2.5e6), "2.500 s");
  EXPECT_STREQ(UnitFor(9999).name, "us");
  EXPECT_STREQ(UnitFor(1e4).name, "ms");
  EXPECT_EQ(UnitFor(1e4).us_per_unit, 1e3);
  EXPECT_STREQ(UnitFor(1e7).name, "s");
  EXPECT_STREQ(UnitFor(NAN).name, "us");
}

TEST(NodesFormat, TableFitsTheWidth) {
  TextTable t({"n", "value", "name"}, 2);
  t.Row({"1", "2.5", "short"});
  t.Row({"12", "100.0", "a_rather_long_kernel_name_that_will_not_fit"});
  EXPECT_EQ(t.Render(2, 0),
            "   n value  name\n"
            "   1   2.5  short\n"
            "  12 100.0  a_rather_long_kernel_name_that_will_not_fit\n");
  // 2 + 2 + 1 + 5 + 2 = 12 columns before the name leave 18 of 30: fewer than kOwnLineBelow,
  // so the names go on lines of their own, 4 columns further in, with 24 of the 30.
  EXPECT_EQ(t.Render(2, 30),
            "   n value\n"
            "      name\n"
            "   1   2.5\n"
            "      short\n"
            "  12 100.0\n"
            "      a_rather_lon\xe2\x80\xa6ill_not_fit\n");
  // 48 of 60 left: the names stay in the rows, shortened.
  TextTable wide({"n", "value", "name"}, 2);
  wide.UnitRow({"", "us"});
  wide.Row({"12", "100.0", "a_rather_long_kernel_name_that_will_not_fit_in_sixty_columns"});
  EXPECT_EQ(wide.Render(2, 60),
            "   n value  name\n"
            "        us\n"
            "  12 100.0  a_rather_long_kernel_nam\xe2\x80\xa6ot_fit_in_sixty_columns\n");
  // The units stay under the headers when the names move.
  EXPECT_EQ(wide.Render(2, 40),
            "   n value\n"
            "        us\n"
            "      name\n"
            "  12 100.0\n"
            "      a_rather_long_ker\xe2\x80\xa6in_sixty_columns\n");  // 34 of 40
  // Never below kMinLastColumn (16).
  EXPECT_EQ(DisplayWidth(t.Render(0, 10).substr(t.Render(0, 10).rfind("a_"))), 17u);
}

// Graph 5: "k" then a fill 2 us later, replayed twice (4 then 6 us); a gap of 1 us in replay 2.
constexpr char kTrace[] = R"json({"traceEvents":[
{"ph":"X","cat":"kernel","name":"void k<2>(float*, int)","ts":0,"dur":4,
 "args":{"correlation":1,"graph id":5,"graph node id":21474836480,"scope":"step"}},
{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","ts":6,"dur":1,
 "args":{"correlation":1,"graph id":5,"graph node id":21474836481}},
{"ph":"X","cat":"kernel","name":"void k<2>(float*, int)","ts":100,"dur":6,
 "args":{"correlation":2,"graph id":5,"graph node id":21474836480,"scope":"step"}},
{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","ts":107,"dur":1,
 "args":{"correlation":2,"graph id":5,"graph node id":21474836481}}]})json";

std::vector<analysis::GraphStats> Stats() {
  StatusOr<analysis::GraphNodes> nodes = analysis::CollectNodeSeriesFromText("t.json", kTrace);
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return nodes.ok() ? analysis::ComputeNodeStats(*nodes) : std::vector<analysis::GraphStats>{};
}

TEST(NodesOutput, Text) {
  // k: 4, 6: total 10, mean 5, p50 4, p95/p99/max 6, stddev 1, share 10 / 12. GPU time per
  // replay 5 and 7, span 7 and 8, idle 2 and 1.
  EXPECT_EQ(NodesText("t.json", Stats(), 100),
            "t.json\n"
            "\n"
            "graph 5: 2 nodes, 2 replays, 12.00 us GPU time in all\n"
            "  GPU time per replay     p50 5.000 us   p99 7.000 us\n"
            "  span per replay         p50 7.000 us   p99 8.000 us\n"
            "  idle gaps per replay    mean 1.500 us   p99 2.000 us   (1.00 gaps per replay)\n"
            "                          gap = a time in a replay when none of its nodes runs\n"
            "  first replay            5.000 us GPU time, 1.00x the median\n"
            "\n"
            "  node replays total  mean   p50   p95   p99   max stddev drift share  scope  name\n"
            "                  us    us    us    us    us    us     us\n"
            "     0       2 10.00 5.000 4.000 6.000 6.000 6.000  1.000     - 83.3%  step   "
            "void k<2>(float*, int)\n"
            "     1       2 2.000 1.000 1.000 1.000 1.000 1.000  0.000     - 16.7%         "
            "Memset (Device)\n");
}

TEST(NodesOutput, CsvAndJson) {
  EXPECT_EQ(NodesCsv(Stats()),
            "graph_id,node_id,name,cat,scope,replays,total_us,mean_us,p50_us,p95_us,p99_us,"
            "max_us,stddev_us,drift,share,row,graph_name\r\n"
            "5,21474836480,\"void k<2>(float*, int)\",kernel,step,2,10.000,5.000,4.000,6.000,"
            "6.000,6.000,1.000,,0.833333,node,\r\n"
            "5,21474836481,Memset (Device),gpu_memset,,2,2.000,1.000,1.000,1.000,1.000,1.000,"
            "0.000,,0.166667,node,\r\n");
  EXPECT_EQ(NodesJson("t.json", Stats()),
            R"j({"trace":"t.json","graphs":[{"graph_id":5,"replays":2,"node_count":2,)j"
            R"j("node_graph_mismatches":0,)j"
            R"j("gpu_total_us":12.000,"gpu_per_replay_us":{"p50":5.000,"p99":7.000},)j"
            R"j("span_per_replay_us":{"p50":7.000,"p99":8.000},)j"
            R"j("idle_per_replay_us":{"mean":1.500,"p99":2.000},"gaps_per_replay":1.000000,)j"
            R"j("first_replay_gpu_us":5.000,"first_replay_outlier":1.000000,"nodes":[)j"
            R"j({"node_id":21474836480,"name":"void k<2>(float*, int)","cat":"kernel",)j"
            R"j("scope":"step","replays":2,"total_us":10.000,"mean_us":5.000,"p50_us":4.000,)j"
            R"j("p95_us":6.000,"p99_us":6.000,"max_us":6.000,"stddev_us":1.000,"drift":null,)j"
            R"j("share":0.833333},{"node_id":21474836481,"name":"Memset (Device)",)j"
            R"j("cat":"gpu_memset","scope":"","replays":2,"total_us":2.000,"mean_us":1.000,)j"
            R"j("p50_us":1.000,"p95_us":1.000,"p99_us":1.000,"max_us":1.000,"stddev_us":0.000,)j"
            R"j("drift":null,"share":0.166667}]}]})j"
            "\n");
}

TEST(NodesOutput, DiffAgainstItself) {
  std::vector<analysis::GraphDiff> diff = analysis::DiffNodeStats(Stats(), Stats());
  EXPECT_EQ(DiffText("a.json", "b.json", diff, 100),
            "A: a.json\n"
            "B: b.json\n"
            "\n"
            "graph 5: the same nodes in A and B\n"
            "  replays                 A 2   B 2\n"
            "  GPU time per replay     p50 A 5.000 us   B 5.000 us   (+0.0%)\n"
            "  nodes                   2 matched, 0 only in A, 0 only in B\n"
            "\n"
            "  node mean A mean B delta delta scope  name\n"
            "           us     us    us\n"
            "     0  5.000  5.000 0.000 +0.0%  step  void k<2>(float*, int)\n"
            "     1  1.000  1.000 0.000 +0.0%        Memset (Device)\n");
  EXPECT_EQ(DiffCsv(diff),
            "graph_match,graph_id_a,node_id_a,graph_id_b,node_id_b,name_a,name_b,replays_a,"
            "replays_b,mean_a_us,mean_b_us,delta_us,delta_fraction,scope_a,scope_b,"
            "fused_node_ids_a\r\n"
            "same_id,5,21474836480,5,21474836480,\"void k<2>(float*, int)\",\"void k<2>(float*, "
            "int)\",2,2,5.000,5.000,0.000,0.000000,step,step,\r\n"
            "same_id,5,21474836481,5,21474836481,Memset (Device),Memset (Device),2,2,1.000,1.000,"
            "0.000,0.000000,,,\r\n");
  EXPECT_EQ(DiffJson("a.json", "b.json", {}),
            "{\"trace_a\":\"a.json\",\"trace_b\":\"b.json\","
            "\"graphs\":[]}\n");
}

// Names from a trace reach the table escaped and bounded, whatever the width.
TEST(NodesOutput, NamesAreEscapedAndBounded) {
  const std::string huge(1 << 20, 'h');  // 1 MiB
  const std::string trace =
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"\u202eevil\u001b[2J","ts":0,"dur":1,)"
      R"("args":{"graph id":5,"graph node id":21474836480,"scope":"s\u2066x"}},)"
      R"({"ph":"X","cat":"kernel","name":")" +
      huge +
      R"(","ts":2,"dur":1,)"
      R"("args":{"graph id":5,"graph node id":21474836481}}]})";
  StatusOr<analysis::GraphNodes> nodes = analysis::CollectNodeSeriesFromText("t\x1b.json", trace);
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  const std::vector<analysis::GraphStats> stats = analysis::ComputeNodeStats(*nodes);
  for (size_t width : {0, 80, 200}) {
    const std::string text = NodesText("t\x1b.json", stats, width);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << width;
    EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << width;  // U+202E
    EXPECT_EQ(text.find("\xe2\x81\xa6"), std::string::npos) << width;  // U+2066
    EXPECT_NE(text.find("t\\x1B.json"), std::string::npos) << width;
    EXPECT_LT(text.size(), 4096u) << width;
  }
  EXPECT_NE(NodesText("t", stats, 0).find("\\u202Eevil\\x1B[2J"), std::string::npos);
}

// The committed torch.compile-free MLP trace at 80 columns: every line fits, and each name says
// which kernel it is (issue 9: "Kernel2<cut…lign1>", "sm80_xmma_g…cublas", "vectorized_…nel<…>").
TEST(NodesOutput, ExampleTraceIsReadableAtEightyColumns) {
  StatusOr<analysis::GraphNodes> nodes =
      analysis::CollectNodeSeries(NODESCOPE_EXAMPLES_DIR "/traces/torch_graph_mlp.json");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  const std::string text = NodesText("t.json", analysis::ComputeNodeStats(*nodes), 80);
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    EXPECT_LE(DisplayWidth(line), 80u) << line;
    start = end + 1;
  }
  EXPECT_NE(text.find("vectorized_elementwise_kernel<GeluCUDAKernelImpl, \xe2\x80\xa6>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("<CUDAFunctor_add<float>, \xe2\x80\xa6>"), std::string::npos);
  EXPECT_NE(text.find("sm80_xmma_gemm_f32f32\xe2\x80\xa6tilesize64x64x8"), std::string::npos);
  EXPECT_NE(text.find("Kernel2<cutlass_80_simt_sgemm_128x64_8x5_tn_align1>"), std::string::npos);
  EXPECT_NE(text.find("vectorized_layer_norm_kernel<float, float, false>"), std::string::npos);
}

// kTrace with graph 5's DAG (k -> memset) and a graph 6 without one. Replay spans 7 and 8 (p50
// 7); k 2x faster: 5 and 5; the memset 2x faster: 6.5 and 7.5.
std::vector<analysis::GraphStats> StatsWithDag() {
  std::string trace = kTrace;
  trace.insert(trace.rfind("]}"),
               R"j(,{"ph":"X","cat":"kernel","name":"other","ts":200,"dur":1,)j"
               R"j("args":{"correlation":3,"graph id":6,"graph node id":25769803776}})j");
  StatusOr<analysis::GraphNodes> nodes = analysis::CollectNodeSeriesFromText("t.json", trace);
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  if (!nodes.ok()) return {};
  GraphDag dag;
  dag.graph_id = 5;
  dag.nodes = {{21474836480, DagNodeType::kKernel, 0}, {21474836481, DagNodeType::kMemset, 0}};
  dag.edges = {{21474836480, 21474836481, DagEdgeType::kFull}};
  nodes->dags.push_back(dag);
  return analysis::ComputeNodeStats(*nodes);
}

TEST(NodesOutput, CriticalPathText) {
  EXPECT_EQ(
      NodesText("t.json", StatsWithDag(), 0),
      "t.json\n"
      "\n"
      "graph 5: 2 nodes, 2 replays, 12.00 us GPU time in all\n"
      "  GPU time per replay     p50 5.000 us   p99 7.000 us\n"
      "  span per replay         p50 7.000 us   p99 8.000 us\n"
      "  idle gaps per replay    mean 1.500 us   p99 2.000 us   (1.00 gaps per replay)\n"
      "                          gap = a time in a replay when none of its nodes runs\n"
      "  first replay            5.000 us GPU time, 1.00x the median\n"
      "  critical path           2 of 2 replays analysed; span p50 7.000 us\n"
      "                          path: share of those replays whose critical path runs through the "
      "node\n"
      "                          slack: p50 of how much longer it could run before its replay ends "
      "later\n"
      "                          2x gain: span p50 minus span p50 with the node 2x faster, gaps as "
      "measured\n"
      "                          (an upper bound for a node that starts before its predecessor "
      "ends: PDL)\n"
      "\n"
      "  node replays total  mean   p50   p95   p99   max stddev drift share   path slack 2x gain  "
      "scope  name\n"
      "                  us    us    us    us    us    us     us                       us      us\n"
      "     0       2 10.00 5.000 4.000 6.000 6.000 6.000  1.000     - 83.3% 100.0% 0.000   2.000  "
      "step   void k<2>(float*, int)\n"
      "     1       2 2.000 1.000 1.000 1.000 1.000 1.000  0.000     - 16.7% 100.0% 0.000   0.500  "
      "       Memset (Device)\n"
      "\n"
      "graph 6: 1 node, 1 replay, 1.000 us GPU time in all\n"
      "  GPU time per replay     p50 1.000 us   p99 1.000 us\n"
      "  span per replay         p50 1.000 us   p99 1.000 us\n"
      "  idle gaps per replay    mean 0.000 us   p99 0.000 us   (0.00 gaps per replay)\n"
      "                          gap = a time in a replay when none of its nodes runs\n"
      "  first replay            1.000 us GPU time, 1.00x the median\n"
      "  critical path           no DAG of this graph in the trace\n"
      "\n"
      "  node replays total  mean   p50   p95   p99   max stddev drift  share  name\n"
      "                  us    us    us    us    us    us     us\n"
      "     0       1 1.000 1.000 1.000 1.000 1.000 1.000  0.000     - 100.0%  other\n");
}

TEST(NodesOutput, CriticalPathCsvAndJson) {
  EXPECT_EQ(
      NodesCsv(StatsWithDag()),
      R"j(graph_id,node_id,name,cat,scope,replays,total_us,mean_us,p50_us,p95_us,p99_us,)j"
      R"j(max_us,stddev_us,drift,share,row,graph_name,critical_path_share,slack_p50_us,)j"
      R"j(slack_min_us,whatif_span_p50_us,whatif_gain_us)j"
      "\r\n"
      R"j(5,21474836480,"void k<2>(float*, int)",kernel,step,2,10.000,5.000,4.000,6.000,6.000,)j"
      R"j(6.000,1.000,,0.833333,node,,1.000000,0.000,0.000,5.000,2.000)j"
      "\r\n"
      R"j(5,21474836481,Memset (Device),gpu_memset,,2,2.000,1.000,1.000,1.000,1.000,1.000,)j"
      R"j(0.000,,0.166667,node,,1.000000,0.000,0.000,6.500,0.500)j"
      "\r\n"
      R"j(6,25769803776,other,kernel,,1,1.000,1.000,1.000,1.000,1.000,1.000,0.000,,1.000000,)j"
      R"j(node,,,,,,)j"
      "\r\n");
  EXPECT_EQ(
      NodesJson("t.json", StatsWithDag()),
      R"j({"trace":"t.json","graphs":[{"graph_id":5,"replays":2,"node_count":2,)j"
      R"j("node_graph_mismatches":0,"gpu_total_us":12.000,"gpu_per_replay_us":{"p50":5.000,)j"
      R"j("p99":7.000},"span_per_replay_us":{"p50":7.000,"p99":8.000},)j"
      R"j("idle_per_replay_us":{"mean":1.500,"p99":2.000},"gaps_per_replay":1.000000,)j"
      R"j("first_replay_gpu_us":5.000,"first_replay_outlier":1.000000,)j"
      R"j("critical_path":{"dag":true,"speedup":2,"replays_from":"every_replay","replays":2,)j"
      R"j("replays_analysed":2,"replays_skipped":{"missing_node":0,"unknown_node":0,)j"
      R"j("repeated_node":0,"incomplete_dag":0,"invalid_dag":0},"span_p50_us":7.000},)j"
      R"j("nodes":[{"node_id":21474836480,"name":"void k<2>(float*, int)","cat":"kernel",)j"
      R"j("scope":"step","replays":2,"total_us":10.000,"mean_us":5.000,"p50_us":4.000,)j"
      R"j("p95_us":6.000,"p99_us":6.000,"max_us":6.000,"stddev_us":1.000,"drift":null,)j"
      R"j("share":0.833333,"critical_path":{"share":1.000000,"slack_p50_us":0.000,)j"
      R"j("slack_min_us":0.000,"whatif_span_p50_us":5.000,"whatif_gain_us":2.000}},)j"
      R"j({"node_id":21474836481,"name":"Memset (Device)","cat":"gpu_memset","scope":"",)j"
      R"j("replays":2,"total_us":2.000,"mean_us":1.000,"p50_us":1.000,"p95_us":1.000,)j"
      R"j("p99_us":1.000,"max_us":1.000,"stddev_us":0.000,"drift":null,"share":0.166667,)j"
      R"j("critical_path":{"share":1.000000,"slack_p50_us":0.000,"slack_min_us":0.000,)j"
      R"j("whatif_span_p50_us":6.500,"whatif_gain_us":0.500}}]},{"graph_id":6,"replays":1,)j"
      R"j("node_count":1,"node_graph_mismatches":0,"gpu_total_us":1.000,)j"
      R"j("gpu_per_replay_us":{"p50":1.000,"p99":1.000},"span_per_replay_us":{"p50":1.000,)j"
      R"j("p99":1.000},"idle_per_replay_us":{"mean":0.000,"p99":0.000},)j"
      R"j("gaps_per_replay":0.000000,"first_replay_gpu_us":1.000,)j"
      R"j("first_replay_outlier":1.000000,"critical_path":{"dag":false},)j"
      R"j("nodes":[{"node_id":25769803776,"name":"other","cat":"kernel","scope":"",)j"
      R"j("replays":1,"total_us":1.000,"mean_us":1.000,"p50_us":1.000,"p95_us":1.000,)j"
      R"j("p99_us":1.000,"max_us":1.000,"stddev_us":0.000,"drift":null,"share":1.000000,)j"
      R"j("critical_path":null}]}]})j"
      "\n");
}

}  // namespace
}  // namespace nodescope::cli
