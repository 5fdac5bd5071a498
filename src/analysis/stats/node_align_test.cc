// AlignNodes: pairs that follow the code, fusions, scopes and the cell limit.
#include "analysis/stats/node_align.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nodescope::analysis {
namespace {

std::vector<AlignNode> Nodes(const std::vector<std::string>& names) {
  static std::vector<std::string> held;  // the views' text, for the test's life
  held.reserve(100000);
  std::vector<AlignNode> out;
  for (const std::string& n : names) {
    held.push_back(n);
    out.push_back({held.back(), "", -1});
  }
  return out;
}

// "P0/0 A1 A2>F0 B3" style: one token per step.
std::string Render(const AlignResult& r) {
  std::string s;
  for (const AlignStep& st : r.steps) {
    if (!s.empty()) s += ' ';
    switch (st.kind) {
      case AlignKind::kPaired:
        s += "P" + std::to_string(st.a_begin) + "/" + std::to_string(st.b);
        break;
      case AlignKind::kOnlyA:
        s += "A" + std::to_string(st.a_begin);
        break;
      case AlignKind::kOnlyB:
        s += "B" + std::to_string(st.b);
        break;
      case AlignKind::kFused:
        s += "F" + std::to_string(st.a_begin) + "-" + std::to_string(st.a_end) + ">" +
             std::to_string(st.b);
        break;
    }
  }
  return s;
}

TEST(AlignNodes, IdenticalListsPairPositionByPosition) {
  auto a = Nodes({"x", "y", "z"});
  EXPECT_EQ(Render(AlignNodes(a, a)), "P0/0 P1/1 P2/2");
}

TEST(AlignNodes, ARemovedNodeDoesNotShiftTheRest) {
  auto a = Nodes({"k0", "k1", "k2", "k3", "k4"});
  auto b = Nodes({"k0", "k1", "k3", "k4"});
  EXPECT_EQ(Render(AlignNodes(a, b)), "P0/0 P1/1 A2 P3/2 P4/3");
  EXPECT_EQ(Render(AlignNodes(b, a)), "P0/0 P1/1 B2 P2/3 P3/4");
}

TEST(AlignNodes, AChainWithTwoNodesFusedPairsEveryOtherNodeToItself) {
  auto a = Nodes({"k0", "k1", "add", "relu", "k4", "k5", "k6"});
  auto b = Nodes({"k0", "k1", "add_relu", "k4", "k5", "k6"});
  EXPECT_EQ(Render(AlignNodes(a, b)), "P0/0 P1/1 F2-4>2 P4/3 P5/4 P6/5");
}

TEST(AlignNodes, AReplacedKernelIsRemovedAndAddedNotPaired) {
  auto a = Nodes({"k0", "gemm_v1", "k2"});
  auto b = Nodes({"k0", "gemm_v2", "k2"});
  EXPECT_EQ(Render(AlignNodes(a, b)), "P0/0 A1 B1 P2/2");
}

TEST(AlignNodes, ScopesTellIdenticalKernelsApart) {
  // Layer 1's GEMM removed: layers 0 and 2 keep their own pairs (by scope), not layer 1's.
  std::vector<AlignNode> a = {
      {"gemm", "layer0", -1}, {"gemm", "layer1", -1}, {"gemm", "layer2", -1}};
  std::vector<AlignNode> b = {{"gemm", "layer0", -1}, {"gemm", "layer2", -1}};
  // The common prefix pairs layer 0; the rest (layer1, layer2 vs layer2) by weight.
  EXPECT_EQ(Render(AlignNodes(a, b)), "P0/0 A1 P2/1");
}

TEST(AlignNodes, InsertionsInTheMiddleOfRepeats) {
  auto a = Nodes({"a", "b", "a", "b", "a", "b"});
  auto b = Nodes({"a", "b", "c", "a", "b", "a", "b"});
  EXPECT_EQ(Render(AlignNodes(a, b)), "P0/0 P1/1 B2 P2/3 P3/4 P4/5 P5/6");
}

TEST(AlignNodes, EmptyLists) {
  auto a = Nodes({"x", "y"});
  EXPECT_EQ(Render(AlignNodes(a, {})), "A0 A1");
  EXPECT_EQ(Render(AlignNodes({}, a)), "B0 B1");
  EXPECT_EQ(Render(AlignNodes({}, {})), "");
}

TEST(AlignNodes, PastTheCellLimitPairsByPositionAndSaysSo) {
  auto a = Nodes({"s", "x", "y", "z", "e"});
  auto b = Nodes({"s", "q", "y", "r", "e"});
  AlignResult r = AlignNodes(a, b, /*max_cells=*/4);
  EXPECT_TRUE(r.approximate);
  EXPECT_EQ(Render(r), "P0/0 A1 B1 P2/2 A3 B3 P4/4");
  EXPECT_FALSE(AlignNodes(a, b).approximate);
}

TEST(AlignNodes, TwoThousandNodeChainWithOneFusion) {
  std::vector<std::string> an, bn;
  for (int i = 0; i < 2000; ++i)
    an.push_back("k" + std::to_string(i % 7) + "_" + std::to_string(i));
  bn = an;
  bn.erase(bn.begin() + 1000, bn.begin() + 1003);
  bn.insert(bn.begin() + 1000, "fused");
  auto a = Nodes(an), b = Nodes(bn);
  AlignResult r = AlignNodes(a, b);
  size_t paired = 0, fused = 0;
  for (const AlignStep& s : r.steps) {
    if (s.kind == AlignKind::kPaired) {
      ++paired;
      EXPECT_EQ(a[s.a_begin].name, b[s.b].name);
    }
    if (s.kind == AlignKind::kFused) {
      ++fused;
      EXPECT_EQ(s.a_begin, 1000u);
      EXPECT_EQ(s.a_end, 1003u);
      EXPECT_EQ(s.b, 1000u);
    }
  }
  EXPECT_EQ(paired, 1997u);
  EXPECT_EQ(fused, 1u);
}

}  // namespace
}  // namespace nodescope::analysis
