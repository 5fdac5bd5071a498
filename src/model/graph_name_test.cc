// Tests of the stable graph name: fixed values (the name must not change between builds), what
// changes it and what does not, scopes, labels and uniqueness.
#include "model/graph_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nodescope {
namespace {

std::vector<GraphNameNode> Chain() {
  return {{0, "gemm"}, {1, "relu"}, {2, "Memcpy DtoD (Device -> Device)"}};
}

TEST(GraphFingerprint, IsFnv1aOfTheDocumentedStream) {
  // FNV-1a 64 of the empty stream is its offset basis; of "N\0\0\0\0a\0" computed by hand below.
  EXPECT_EQ(GraphFingerprint({}), 0xcbf29ce484222325ull);
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : std::string("N\0\0\0\0a\0", 7)) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  EXPECT_EQ(GraphFingerprint({{0, "a"}}), h);
}

TEST(GraphFingerprint, FixedValuesDoNotChange) {
  // Pinned (checked against a Python FNV-1a of the same stream): a change here renames every
  // graph in dashboards and scripts.
  EXPECT_EQ(FingerprintHex(GraphFingerprint(Chain())), "86e7a49f");
  EXPECT_EQ(GraphName(Chain(), nullptr, ""), "graph-86e7a49f");
  EXPECT_EQ(GraphName(Chain(), nullptr, "decode/step"), "decode.step-86e7a49f");
}

TEST(GraphFingerprint, OrderOfInputDoesNotMatterButOrdinalsAndNamesDo) {
  std::vector<GraphNameNode> reversed = Chain();
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(GraphFingerprint(reversed), GraphFingerprint(Chain()));
  std::vector<GraphNameNode> renamed = Chain();
  renamed[1].name = "gelu";
  EXPECT_NE(GraphFingerprint(renamed), GraphFingerprint(Chain()));
  std::vector<GraphNameNode> swapped = {{0, "relu"}, {1, "gemm"}, {2, "x"}};
  std::vector<GraphNameNode> plain = {{0, "gemm"}, {1, "relu"}, {2, "x"}};
  EXPECT_NE(GraphFingerprint(swapped), GraphFingerprint(plain));
  // Name boundaries count: "ab"+"c" is not "a"+"bc".
  EXPECT_NE(GraphFingerprint({{0, "ab"}, {1, "c"}}), GraphFingerprint({{0, "a"}, {1, "bc"}}));
}

TEST(GraphFingerprint, IssuedOrdinalsAreLeftOut) {
  std::vector<GraphNameNode> updated = Chain();
  updated.push_back({0xffffffffu, "gemm_after_update"});
  EXPECT_EQ(GraphFingerprint(updated), GraphFingerprint(Chain()));
}

TEST(GraphFingerprint, DagEdgesAndTheirTypesCount) {
  GraphDag chain;
  chain.graph_id = 7;
  chain.edges = {{(7ull << 32) | 0, (7ull << 32) | 1, DagEdgeType::kFull},
                 {(7ull << 32) | 1, (7ull << 32) | 2, DagEdgeType::kFull}};
  GraphDag fork = chain;
  fork.edges[1].from = (7ull << 32) | 0;
  GraphDag pdl = chain;
  pdl.edges[1].type = DagEdgeType::kProgrammatic;
  const uint64_t without = GraphFingerprint(Chain());
  const uint64_t with_chain = GraphFingerprint(Chain(), &chain);
  EXPECT_NE(with_chain, without);
  EXPECT_NE(GraphFingerprint(Chain(), &fork), with_chain);
  EXPECT_NE(GraphFingerprint(Chain(), &pdl), with_chain);
  // The same DAG under another graph id (another run): the same fingerprint.
  GraphDag other_id = chain;
  other_id.graph_id = 9;
  for (DagEdge& e : other_id.edges) {
    e.from = (9ull << 32) | (e.from & 0xffffffffu);
    e.to = (9ull << 32) | (e.to & 0xffffffffu);
  }
  std::swap(other_id.edges[0], other_id.edges[1]);  // and listed in another order
  EXPECT_EQ(GraphFingerprint(Chain(), &other_id), with_chain);
}

TEST(CommonScope, WholePartsOnly) {
  EXPECT_EQ(CommonScope({"a/b/c", "a/b/d"}), "a/b");
  EXPECT_EQ(CommonScope({"a/b", "a/b/c"}), "a/b");
  EXPECT_EQ(CommonScope({"a/b/c", "a/b"}), "a/b");
  EXPECT_EQ(CommonScope({"a/bc", "a/bd"}), "a");
  EXPECT_EQ(CommonScope({"a/b", "a/bc"}), "a");
  EXPECT_EQ(CommonScope({"ab", "ac"}), "");
  EXPECT_EQ(CommonScope({"step", ""}), "");
  EXPECT_EQ(CommonScope({"step"}), "step");
  EXPECT_EQ(CommonScope({}), "");
}

TEST(SanitizeLabel, FitsALabelAndACommandLine) {
  EXPECT_EQ(SanitizeLabel("model/layer.2/mlp"), "model.layer.2.mlp");
  EXPECT_EQ(SanitizeLabel("  forward pass (bf16) "), "forward_pass_bf16");
  EXPECT_EQ(SanitizeLabel("$(rm -rf ~);\n\x1b[1m"), "rm_-rf_1m");
  EXPECT_EQ(SanitizeLabel("\xc3\xa9tape"), "tape");
  EXPECT_EQ(SanitizeLabel("///"), "");
  const std::string longer(50, 'x');
  EXPECT_EQ(SanitizeLabel("outer/" + longer), std::string(kMaxScopeLabel, 'x'));
  EXPECT_EQ(GraphName(Chain(), nullptr, "\xe2\x9c\x93"), "graph-86e7a49f");
}

TEST(UniqueGraphNames, LaterDuplicatesGetASuffix) {
  std::vector<std::string> names = {"g-1", "g-2", "g-1", "g-1", "g-2"};
  UniqueGraphNames(names);
  EXPECT_EQ(names, (std::vector<std::string>{"g-1", "g-2", "g-1-2", "g-1-3", "g-2-2"}));
  std::vector<std::string> clash = {"x", "x", "x-2"};
  UniqueGraphNames(clash);
  EXPECT_EQ(clash, (std::vector<std::string>{"x", "x-3", "x-2"}));
}

}  // namespace
}  // namespace nodescope
