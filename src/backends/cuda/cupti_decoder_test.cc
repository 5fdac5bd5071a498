// Feeds real CUPTI record structs (from the CUDA 13 headers) through the decoder; no GPU needed.
#include "backends/cuda/cupti_decoder.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace nodescope::cupti {
namespace {

int g_name_lookups = 0;
const char* FakeApiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  ++g_name_lookups;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 311) return "cudaGraphLaunch_v10000";
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 514) return "cuGraphLaunch";
  return nullptr;
}

CUpti_ActivityKernel10 MakeKernel(const char* name, uint32_t graph_id, uint64_t node_id) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 3500;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = 4;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 256;
  k.dynamicSharedMemory = 1024;
  k.registersPerThread = 32;
  k.correlationId = 42;
  k.name = name;
  k.graphId = graph_id;
  k.graphNodeId = node_id;
  return k;
}

class DecoderTest : public ::testing::Test {
 protected:
  void SetUp() override { g_name_lookups = 0; }
  Trace trace_;
  CuptiDecoder decoder_{&trace_, 1000, &FakeApiName};
};

TEST_F(DecoderTest, GraphKernelKeepsNativeKeysAndDetails) {
  static const char kName[] = "_Z6kernelILi3EEvPf";
  const uint64_t node = (uint64_t{5} << 32) | 17;
  auto k = MakeKernel(kName, 5, node);
  ASSERT_TRUE(decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k)));
  ASSERT_EQ(trace_.gpu.size(), 1u);
  const GpuActivity& a = trace_.gpu[0];
  EXPECT_EQ(a.kind, ActivityKind::kKernel);
  EXPECT_EQ(a.start_ns, 1000u);
  EXPECT_EQ(a.end_ns, 3500u);
  EXPECT_EQ(a.stream, 7u);
  EXPECT_EQ(a.context, 1u);
  EXPECT_EQ(a.correlation_id, 42u);
  EXPECT_EQ(a.graph_id, 5u);
  EXPECT_EQ(a.graph_node_id, node);
  EXPECT_EQ(a.graph_node_id >> 32, a.graph_id);
  EXPECT_EQ(trace_.strings.Get(a.kernel.name), kName);
  EXPECT_EQ(a.kernel.grid[0], 4);
  EXPECT_EQ(a.kernel.grid[1], 2);
  EXPECT_EQ(a.kernel.block[0], 128);
  EXPECT_EQ(a.kernel.static_shared_bytes, 256u);
  EXPECT_EQ(a.kernel.dynamic_shared_bytes, 1024u);
  EXPECT_EQ(a.kernel.registers_per_thread, 32);
}

TEST_F(DecoderTest, PlainKernelCarriesNoGraphKeysAndNamesAreInternedOnce) {
  static const char kName[] = "plain_kernel";
  auto k = MakeKernel(kName, 0, 0xdeadbeef);  // a stale node id without a graph id is ignored
  for (int i = 0; i < 3; ++i) decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  ASSERT_EQ(trace_.gpu.size(), 3u);
  EXPECT_EQ(trace_.gpu[2].graph_id, 0u);
  EXPECT_EQ(trace_.gpu[2].graph_node_id, 0u);
  EXPECT_EQ(trace_.gpu[0].kernel.name, trace_.gpu[2].kernel.name);
  EXPECT_EQ(trace_.strings.size(), 2u);  // "" and the kernel name
}

TEST_F(DecoderTest, EndBeforeStartIsClamped) {
  static const char kName[] = "k";
  auto k = MakeKernel(kName, 0, 0);
  k.end = 10;  // CUPTI reports 0 for an incomplete record
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  EXPECT_EQ(trace_.gpu[0].end_ns, trace_.gpu[0].start_ns);
}

TEST_F(DecoderTest, MemcpyAndMemsetFromAGraph) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 4096;
  m.start = 10;
  m.end = 20;
  m.streamId = 3;
  m.correlationId = 9;
  m.graphId = 2;
  m.graphNodeId = (uint64_t{2} << 32) | 1;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&m));

  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof(s));
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 512;
  s.value = 0xab;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  s.start = 30;
  s.end = 31;
  s.graphId = 2;
  s.graphNodeId = (uint64_t{2} << 32) | 2;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&s));

  CUpti_ActivityMemcpyPtoP4 p;
  std::memset(&p, 0, sizeof(p));
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.bytes = 64;
  p.deviceId = 1;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&p));

  ASSERT_EQ(trace_.gpu.size(), 3u);
  EXPECT_EQ(trace_.gpu[0].kind, ActivityKind::kMemcpy);
  EXPECT_EQ(trace_.gpu[0].copy.bytes, 4096u);
  EXPECT_EQ(trace_.gpu[0].copy.direction, CopyDirection::kHtoD);
  EXPECT_EQ(trace_.gpu[0].copy.src_kind, MemoryKind::kPinned);
  EXPECT_EQ(trace_.gpu[0].copy.dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(trace_.gpu[0].graph_node_id, (uint64_t{2} << 32) | 1);
  EXPECT_EQ(trace_.gpu[1].kind, ActivityKind::kMemset);
  EXPECT_EQ(trace_.gpu[1].fill.bytes, 512u);
  EXPECT_EQ(trace_.gpu[1].fill.value, 0xabu);
  EXPECT_EQ(trace_.gpu[1].fill.memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(trace_.gpu[1].graph_id, 2u);
  EXPECT_EQ(trace_.gpu[2].copy.direction, CopyDirection::kPtoP);
  EXPECT_EQ(trace_.gpu[2].device, 1u);
}

TEST_F(DecoderTest, ApiCallsGetStrippedNamesResolvedOncePerCbid) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof(a));
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 311;
  a.start = 5;
  a.end = 9;
  a.processId = 100;
  a.threadId = 101;
  a.correlationId = 42;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = 514;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  a.cbid = 1999;  // unknown to the resolver: still named, never dropped
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  ASSERT_EQ(trace_.api.size(), 4u);
  EXPECT_EQ(trace_.strings.Get(trace_.api[0].name), "cudaGraphLaunch");
  EXPECT_EQ(trace_.api[1].name, trace_.api[0].name);
  EXPECT_EQ(trace_.api[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(trace_.strings.Get(trace_.api[2].name), "cuGraphLaunch");
  EXPECT_EQ(trace_.api[2].domain, ApiDomain::kDriver);
  EXPECT_EQ(trace_.strings.Get(trace_.api[3].name), "cuDriverApi#1999");
  EXPECT_EQ(trace_.api[0].tid, 101u);
  EXPECT_EQ(g_name_lookups, 3);
}

TEST_F(DecoderTest, ExternalCorrelationAndUnknownKinds) {
  CUpti_ActivityExternalCorrelation e;
  std::memset(&e, 0, sizeof(e));
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
  e.externalId = 77;
  e.correlationId = 42;
  EXPECT_TRUE(decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&e)));
  ASSERT_EQ(trace_.external.size(), 1u);
  EXPECT_EQ(trace_.external[0].external_id, 77u);
  EXPECT_EQ(trace_.external[0].correlation_id, 42u);

  CUpti_Activity other;
  other.kind = CUPTI_ACTIVITY_KIND_MARKER;
  EXPECT_FALSE(decoder_.Decode(&other));
  EXPECT_EQ(trace_.drops.unknown_records, 1u);
}

TEST(Decoder, StoreFullIsCountedNotSilent) {
  Trace trace;
  CuptiDecoder decoder(&trace, 2, &FakeApiName);
  static const char kName[] = "k";
  auto k = MakeKernel(kName, 0, 0);
  for (int i = 0; i < 5; ++i) decoder.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  EXPECT_EQ(trace.gpu.size(), 2u);
  EXPECT_EQ(trace.drops.store_full, 3u);
  EXPECT_EQ(trace.drops.Total(), 3u);
}

TEST(Decoder, StripsVersionSuffix) {
  EXPECT_EQ(StripApiVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersionSuffix("cuMemcpy_v2"), "cuMemcpy");
  EXPECT_EQ(StripApiVersionSuffix("cuGraphLaunch"), "cuGraphLaunch");
  EXPECT_EQ(StripApiVersionSuffix("foo_vx1"), "foo_vx1");
  EXPECT_EQ(StripApiVersionSuffix("foo_v"), "foo_v");
}

}  // namespace
}  // namespace nodescope::cupti

namespace nodescope::cupti {
namespace {

// Sampled tracing: only the records of the picked launches' correlation ids are kept; the rest
// (guards, overlaps) are counted as discarded, not as lost.
TEST_F(DecoderTest, OnlyKeptCorrelationsAreKept) {
  CorrelationSet guards;  // the kept set
  guards.Add(43);
  decoder_.KeepOnly(&guards);
  auto k = MakeKernel("k", 5, (uint64_t{5} << 32) | 1);
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof(a));
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 311;
  a.correlationId = 42;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  k.correlationId = 43;
  a.correlationId = 43;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&a));
  ASSERT_EQ(trace_.gpu.size(), 1u);
  EXPECT_EQ(trace_.gpu[0].correlation_id, 43u);
  ASSERT_EQ(trace_.api.size(), 1u);
  EXPECT_EQ(decoder_.discarded(), 2u);
  EXPECT_EQ(trace_.drops.Total(), 0u);
  // An id 2^20 later takes the slot: the older one is forgotten, never confused with it.
  guards.Add(42 + CorrelationSet::kSlots);
  EXPECT_FALSE(guards.Contains(42));
  EXPECT_TRUE(guards.Contains(42 + CorrelationSet::kSlots));
  EXPECT_FALSE(guards.Contains(0));
}

// ---- Device-launched graphs (cudaGraphInstantiateFlagDeviceLaunch) ----

// The CUDA 13.0 header's layout, which a synthetic record below relies on.
static_assert(sizeof(CUpti_ActivityDeviceGraphTrace) == 56);
static_assert(offsetof(CUpti_ActivityDeviceGraphTrace, start) == 8);
static_assert(offsetof(CUpti_ActivityDeviceGraphTrace, graphId) == 24);
static_assert(offsetof(CUpti_ActivityDeviceGraphTrace, launcherGraphId) == 28);
static_assert(offsetof(CUpti_ActivityDeviceGraphTrace, deviceLaunchMode) == 32);
static_assert(offsetof(CUpti_ActivityDeviceGraphTrace, streamId) == 40);

// CUPTI gives a conditional node's body records a graph id and no correlation id: marked, so
// attribution knows them whatever correlation id they are given later (native_attributor.h).
TEST_F(DecoderTest, GraphRecordsWithoutACorrelationAreMarkedAsConditionalBodies) {
  static const char kName[] = "body";
  auto body = MakeKernel(kName, 5, (uint64_t{5} << 32) | 3);
  body.correlationId = 0;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&body));
  auto node = MakeKernel(kName, 5, (uint64_t{5} << 32) | 1);
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&node));
  auto plain = MakeKernel(kName, 0, 0);
  plain.correlationId = 0;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&plain));
  ASSERT_EQ(trace_.gpu.size(), 3u);
  EXPECT_EQ(trace_.gpu[0].conditional_body, 1u);
  EXPECT_EQ(trace_.gpu[1].conditional_body, 0u);
  EXPECT_EQ(trace_.gpu[2].conditional_body, 0u) << "not from a graph";
}

TEST_F(DecoderTest, DeviceLaunchedRecordsAreMarkedAndCounted) {
  static const char kName[] = "device_node";
  auto k = MakeKernel(kName, 9, (uint64_t{9} << 32) | 1);
  k.isDeviceLaunched = 1;
  k.correlationId = 0;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&k));
  auto host = MakeKernel(kName, 5, uint64_t{5} << 32);
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&host));
  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.start = 10;
  m.end = 20;
  m.isDeviceLaunched = 1;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&m));
  CUpti_ActivityMemcpy6 c;
  std::memset(&c, 0, sizeof(c));
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.start = 10;
  c.end = 20;
  c.isDeviceLaunched = 1;
  decoder_.Decode(reinterpret_cast<CUpti_Activity*>(&c));
  ASSERT_EQ(trace_.gpu.size(), 4u);
  EXPECT_EQ(trace_.gpu[0].device_launched, 1u);
  EXPECT_EQ(trace_.gpu[1].device_launched, 0u);
  EXPECT_EQ(trace_.gpu[2].device_launched, 1u);
  EXPECT_EQ(trace_.gpu[3].device_launched, 1u);
  EXPECT_EQ(decoder_.device_graph_counts().device_launched_records, 3u);
}

TEST_F(DecoderTest, DeviceGraphTraceRecordsAreCountedByLaunchMode) {
  // Byte for byte as CUPTI lays it out (offsets checked above), not through the struct's names.
  alignas(8) unsigned char raw[sizeof(CUpti_ActivityDeviceGraphTrace)] = {};
  auto put32 = [&](size_t at, uint32_t v) { std::memcpy(raw + at, &v, 4); };
  auto put64 = [&](size_t at, uint64_t v) { std::memcpy(raw + at, &v, 8); };
  put32(0, CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE);
  put64(8, 1000);   // start
  put64(16, 1600);  // end
  put32(24, 7);     // graphId
  put32(28, 3);     // launcherGraphId
  const uint32_t modes[] = {CUPTI_DEVICE_GRAPH_LAUNCH_MODE_TAIL,
                            CUPTI_DEVICE_GRAPH_LAUNCH_MODE_TAIL,
                            CUPTI_DEVICE_GRAPH_LAUNCH_MODE_FIRE_AND_FORGET,
                            CUPTI_DEVICE_GRAPH_LAUNCH_MODE_FIRE_AND_FORGET_AS_SIBLING, 99};
  for (uint32_t mode : modes) {
    put32(32, mode);
    EXPECT_TRUE(decoder_.Decode(reinterpret_cast<const CUpti_Activity*>(raw)));
  }
  const auto& c = decoder_.device_graph_counts();
  EXPECT_EQ(c.device_graph_traces, 5u);
  EXPECT_EQ(c.device_graph_traces_by_mode[0], 1u);  // 99: unknown
  EXPECT_EQ(c.device_graph_traces_by_mode[1], 1u);
  EXPECT_EQ(c.device_graph_traces_by_mode[2], 2u);
  EXPECT_EQ(c.device_graph_traces_by_mode[3], 1u);
  EXPECT_EQ(c.device_graph_trace_ns, 5u * 600u);
  EXPECT_EQ(trace_.drops.unknown_records, 0u);
  EXPECT_EQ(trace_.gpu.size(), 0u);
}

}  // namespace
}  // namespace nodescope::cupti
