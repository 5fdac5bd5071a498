// Sampled mode and conditional bodies (conditional_bodies.h): synthetic CUPTI records through the
// decoder, as an H100 (CUDA 13.0) delivers them: a WHILE node's body kernels with correlation 0,
// the exec's graph id and an internal stream; the exec's other nodes with the launch's id.
#include "backends/cuda/conditional_bodies.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backends/cuda/cupti_decoder.h"

namespace nodescope::cupti {
namespace {

constexpr uint32_t kExec = 3;
const char kLead[] = "_Z5resetPi";
const char kBody[] = "_Z1kILi12EEvPf";

CUpti_ActivityKernel10 Kernel(const char* name, uint32_t correlation, uint64_t start,
                              uint32_t ordinal, uint32_t graph = kExec) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = start + 50;
  k.streamId = correlation == 0 ? 15 : 13;
  k.correlationId = correlation;
  k.name = name;
  k.graphId = graph;
  k.graphNodeId = (uint64_t{graph} << 32) | ordinal;
  k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
  return k;
}

class BodiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    proofs_.Set(kExec, true);
    decoder_.KeepOnly(&kept_, &proofs_);
  }
  // A windowed launch `corr` of kExec whose lead starts at `start`.
  void Lead(uint32_t corr, uint64_t start, uint32_t graph = kExec) {
    auto k = Kernel(kLead, corr, start, 0, graph);
    decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  }
  void Body(uint64_t start, uint32_t graph = kExec) {
    auto k = Kernel(kBody, 0, start, 2, graph);
    decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  }
  // The kept bodies' starts (ordinal 2: the body node), each with its owner's correlation id.
  std::vector<uint64_t> BodyStarts() const {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < trace_.gpu.size(); ++i) {
      if ((trace_.gpu[i].graph_node_id & 0xffffffffu) == 2) out.push_back(trace_.gpu[i].start_ns);
    }
    return out;
  }
  std::vector<uint32_t> BodyCorrelations() const {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < trace_.gpu.size(); ++i) {
      if ((trace_.gpu[i].graph_node_id & 0xffffffffu) == 2) {
        out.push_back(trace_.gpu[i].correlation_id);
      }
    }
    return out;
  }
  size_t Leads() const { return trace_.gpu.size() - BodyStarts().size(); }
  const ConditionalBodies::Counts& counts() const { return decoder_.bodies()->counts(); }

  Trace trace_;
  CorrelationSet kept_;
  ExecIdBits proofs_;
  CuptiDecoder decoder_{&trace_, 100000, nullptr};
};

TEST_F(BodiesTest, KeptLaunchKeepsItsBodiesAndAGuardsAreDiscarded) {
  kept_.Add(10);  // 11 is its guard: instrumented, not kept
  Lead(10, 100);
  Body(200);
  Body(300);
  EXPECT_EQ(decoder_.bodies()->pending(), 2u);  // no later launch yet: not proven
  EXPECT_EQ(BodyStarts().size(), 0u);
  Lead(11, 1000);  // the guard's lead proves 200 and 300 were the kept launch's
  EXPECT_EQ(BodyStarts(), (std::vector<uint64_t>{200, 300}));
  Body(1100);  // the guard's body
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts(), (std::vector<uint64_t>{200, 300}));
  EXPECT_EQ(Leads(), 1u);
  EXPECT_EQ(counts().kept, 2u);
  EXPECT_EQ(counts().discarded, 1u);
  EXPECT_EQ(decoder_.discarded(), 2u);  // the guard's lead and body
  EXPECT_EQ(decoder_.bodies()->pending(), 0u);
  // Kept bodies keep CUPTI's keys and take their launch's correlation id.
  EXPECT_EQ(BodyCorrelations(), (std::vector<uint32_t>{10, 10}));
  const GpuActivity& b = trace_.gpu[1];
  EXPECT_EQ(b.correlation_id, 10u);
  EXPECT_EQ(b.graph_id, kExec);
  EXPECT_EQ(b.graph_node_id, (uint64_t{kExec} << 32) | 2);
  EXPECT_EQ(b.stream, 15u);
  EXPECT_EQ(trace_.strings.Get(b.kernel.name), kBody);
}

TEST_F(BodiesTest, BodiesBeforeTheirLaunchsRecordsWaitForThem) {
  kept_.Add(10);
  Body(200);  // in an earlier buffer than its launch's records
  Body(1100);
  EXPECT_EQ(decoder_.bodies()->pending(), 2u);
  Lead(11, 1000);  // the guard's, first
  Lead(10, 100);
  EXPECT_EQ(BodyStarts().size(), 0u);  // 200's owner is known, no later launch seen after it
  Lead(11, 1000);                      // another record of the guard: nothing new
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts(), (std::vector<uint64_t>{200}));
  EXPECT_EQ(BodyCorrelations(), (std::vector<uint32_t>{10}));
  EXPECT_EQ(counts().kept, 1u);
  EXPECT_EQ(counts().discarded, 1u);
  EXPECT_EQ(counts().withheld_no_launch, 0u);
}

TEST_F(BodiesTest, BodiesAfterBothLaunchesAreDecidedAtOnce) {
  kept_.Add(11);  // the second launch kept, the first a guard of an earlier pick
  Lead(10, 100);
  Lead(11, 1000);
  Lead(12, 2000);
  Body(1500);
  Body(300);
  EXPECT_EQ(decoder_.bodies()->pending(), 0u);
  EXPECT_EQ(BodyStarts(), (std::vector<uint64_t>{1500}));
  EXPECT_EQ(BodyCorrelations(), (std::vector<uint32_t>{11}));
  EXPECT_EQ(counts().discarded, 1u);
}

TEST_F(BodiesTest, AnEarlierRecordOfALaunchMovesItsFirstStart) {
  kept_.Add(10);
  Lead(10, 500);   // a later node of launch 10 first
  Body(300);       // before every known record of 10: no owner yet
  Lead(10, 100);   // 10's lead: 300 is 10's
  Lead(11, 1000);  // and proven
  EXPECT_EQ(BodyStarts(), (std::vector<uint64_t>{300}));
}

TEST_F(BodiesTest, ConditionalFirstGraphIsWithheldAndCounted) {
  proofs_.Set(kExec, false);  // e.g. the WHILE node is the graph's first node
  kept_.Add(10);
  Lead(10, 100);
  Body(200);
  Lead(11, 1000);
  Body(1100);
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts().size(), 0u);
  EXPECT_EQ(counts().withheld_unproven, 2u);
  EXPECT_EQ(counts().kept + counts().discarded, 0u);
}

TEST_F(BodiesTest, ABodyWithNoLaunchBeforeItIsWithheldAtSettle) {
  kept_.Add(10);
  Lead(10, 1000);
  Body(200);
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts().size(), 0u);
  EXPECT_EQ(counts().withheld_no_launch, 1u);
}

TEST_F(BodiesTest, AFullPendingStoreWithholdsAndCounts) {
  kept_.Add(10);
  Lead(10, 100);
  for (size_t i = 0; i < ConditionalBodies::kPending + 3; ++i) Body(200 + i);
  EXPECT_EQ(decoder_.bodies()->pending(), ConditionalBodies::kPending);
  EXPECT_EQ(counts().withheld_pending_full, 3u);
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts().size(), ConditionalBodies::kPending);
  EXPECT_EQ(counts().kept, ConditionalBodies::kPending);
}

TEST_F(BodiesTest, BurstOfFourKeptThenAGuardInAnyOrder) {
  for (uint32_t c = 10; c < 14; ++c) kept_.Add(c);  // 14: the burst's guard
  // Every body first (buffers of the internal stream), then the launches' records, newest first.
  for (uint32_t c = 10; c <= 14; ++c) {
    Body((c - 9) * 1000 + 100);
    Body((c - 9) * 1000 + 200);
  }
  for (uint32_t c = 14; c >= 10; --c) Lead(c, (c - 9) * 1000);
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts().size(), 8u);
  for (uint64_t t : BodyStarts()) EXPECT_LT(t, 5000u);  // none of the guard's (5100, 5200)
  // Each body under its own launch: t in [(c - 9) * 1000, +1000) -> c.
  const std::vector<uint64_t> starts = BodyStarts();
  const std::vector<uint32_t> corrs = BodyCorrelations();
  for (size_t i = 0; i < starts.size(); ++i) EXPECT_EQ(corrs[i], starts[i] / 1000 + 9) << starts[i];
  EXPECT_EQ(counts().kept, 8u);
  EXPECT_EQ(counts().discarded, 2u);
  EXPECT_EQ(Leads(), 4u);
}

TEST_F(BodiesTest, BurstInLaunchOrderIsDecidedAsItGoes) {
  for (uint32_t c = 10; c < 14; ++c) kept_.Add(c);
  for (uint32_t c = 10; c <= 14; ++c) {
    Lead(c, (c - 9) * 1000);
    Body((c - 9) * 1000 + 100);
  }
  EXPECT_EQ(BodyStarts().size(), 4u);  // each proven by the next launch's lead
  EXPECT_EQ(BodyCorrelations(), (std::vector<uint32_t>{10, 11, 12, 13}));
  EXPECT_EQ(decoder_.bodies()->pending(), 1u);  // the guard's, until Settle
  decoder_.SettleBodies();
  EXPECT_EQ(BodyStarts().size(), 4u);
  EXPECT_EQ(counts().discarded, 1u);
}

TEST_F(BodiesTest, OtherExecsLaunchesDoNotDecide) {
  proofs_.Set(4, true);
  kept_.Add(10);
  Lead(10, 100);
  Body(200);
  Lead(11, 150, /*graph=*/4);  // another exec's launch, concurrent: says nothing of exec 3's
  Lead(12, 1000, /*graph=*/4);
  EXPECT_EQ(decoder_.bodies()->pending(), 1u);
}

TEST_F(BodiesTest, AForgottenLaunchWithholdsTheBodiesItCouldOwn) {
  kept_.Add(10);
  Lead(10, 100);
  // More windowed launches of exec 3 than the table holds: 10 is forgotten.
  for (uint32_t i = 1; i <= ConditionalBodies::kLaunches; ++i) Lead(10 + i, 100 + 1000 * i);
  Body(200);  // 10's, or so it seems; but 10 is gone
  EXPECT_EQ(counts().withheld_forgotten, 1u);
  EXPECT_EQ(BodyStarts().size(), 0u);
}

TEST_F(BodiesTest, FullTracingKeepsBodiesAsTheyCome) {
  Trace trace;
  CuptiDecoder full(&trace, 100, nullptr);
  auto k = Kernel(kBody, 0, 200, 2);
  full.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  EXPECT_EQ(trace.gpu.size(), 1u);
  EXPECT_EQ(full.bodies(), nullptr);
}

TEST_F(BodiesTest, SampledWithoutProofsDiscardsBodiesAsBefore) {
  Trace trace;
  CuptiDecoder d(&trace, 100, nullptr);
  d.KeepOnly(&kept_);
  auto k = Kernel(kBody, 0, 200, 2);
  d.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  EXPECT_EQ(trace.gpu.size(), 0u);
  EXPECT_EQ(d.discarded(), 1u);
}

// ---- Which DAGs prove their bodies' launch ----

GraphDag Dag(std::vector<DagNode> nodes, std::vector<DagEdge> edges) {
  GraphDag d;
  d.graph_id = kExec;
  d.nodes = std::move(nodes);
  d.edges = std::move(edges);
  return d;
}

TEST(ProvesBodyOwner, KernelBeforeTheConditional) {
  // reset -> empty -> WHILE: the kernel is an ancestor through the empty node.
  EXPECT_TRUE(ProvesBodyOwner(Dag({{1, DagNodeType::kKernel, 0},
                                   {2, DagNodeType::kEmpty, 0},
                                   {3, DagNodeType::kConditional, 0}},
                                  {{1, 2, DagEdgeType::kFull}, {2, 3, DagEdgeType::kFull}})));
}

TEST(ProvesBodyOwner, ConditionalFirstOrUnprovenIsNot) {
  // WHILE -> kernel: nothing recorded before the body.
  EXPECT_FALSE(ProvesBodyOwner(
      Dag({{1, DagNodeType::kConditional, 0}, {2, DagNodeType::kKernel, 0}}, {{1, 2}})));
  // Two conditionals, one with a lead and one without.
  EXPECT_FALSE(ProvesBodyOwner(Dag({{1, DagNodeType::kMemset, 0},
                                    {2, DagNodeType::kConditional, 0},
                                    {3, DagNodeType::kConditional, 0}},
                                   {{1, 2}})));
  // A programmatic edge: the conditional may start before the kernel.
  EXPECT_FALSE(
      ProvesBodyOwner(Dag({{1, DagNodeType::kKernel, 0}, {2, DagNodeType::kConditional, 0}},
                          {{1, 2, DagEdgeType::kProgrammatic}})));
  // A conditional inside a child graph.
  EXPECT_FALSE(ProvesBodyOwner(Dag({{1, DagNodeType::kKernel, 0},
                                    {2, DagNodeType::kChildGraph, 0},
                                    {3, DagNodeType::kConditional, 2}},
                                   {{1, 2}})));
  // No conditional at all: a correlation-0 record of it is unexplained.
  EXPECT_FALSE(ProvesBodyOwner(Dag({{1, DagNodeType::kKernel, 0}}, {})));
}

TEST(ExecIdBits, SetAndClear) {
  ExecIdBits p;
  EXPECT_FALSE(p.Has(7));
  p.Set(7, true);
  p.Set(8, true);
  EXPECT_TRUE(p.Has(7));
  p.Set(7, false);
  EXPECT_FALSE(p.Has(7));
  EXPECT_TRUE(p.Has(8));
  p.Set(ExecIdBits::kExecIds, true);  // past the tracked ids: never proven
  EXPECT_FALSE(p.Has(ExecIdBits::kExecIds));
}

}  // namespace
}  // namespace nodescope::cupti
