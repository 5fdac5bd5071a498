// The decoder on hand-built PTI records, v1 and v2 layouts: kernels (device from PCI address,
// stream from the queue handle, correlation id, name), copies (direction, P2P), fills, API calls
// with their names, external correlation kinds, unknown kinds, the event limit, and the version
// rule choosing the layout.
#include "backends/xpu/pti_decoder.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace nodescope::pti {
namespace {

int g_queue_a, g_queue_b;  // two Level Zero queue handles

template <typename K>
K Kernel(const char* pci, void* queue, uint32_t corr, const char* name) {
  K k{};
  k._view_kind._view_kind = PTI_VIEW_DEVICE_GPU_KERNEL;
  k._queue_handle = queue;
  k._name = name;
  k._correlation_id = corr;
  std::strncpy(k._pci_address, pci, sizeof(k._pci_address));
  k._start_timestamp = 1000 + corr;
  k._end_timestamp = 2000 + corr;
  return k;
}

const pti_view_record_base* Base(const void* r) {
  return static_cast<const pti_view_record_base*>(r);
}

class PtiDecoderTest : public ::testing::TestWithParam<bool> {};

TEST_P(PtiDecoderTest, KernelsCopiesFillsOnDevicesAndQueues) {
  const bool v2 = GetParam();
  Trace trace;
  PtiDecoder d(&trace, 100, v2, nullptr);
  if (v2) {
    auto k1 = Kernel<pti_view_record_kernel_v2>("0:3a:0.0", &g_queue_a, 5, "gemm");
    auto k2 = Kernel<pti_view_record_kernel_v2>("0:7a:0.0", &g_queue_b, 6, "relu");
    auto k3 = Kernel<pti_view_record_kernel_v2>("0:3a:0.0", &g_queue_b, 7, "gemm");
    d.Decode(Base(&k1)), d.Decode(Base(&k2)), d.Decode(Base(&k3));
  } else {
    auto k1 = Kernel<pti_view_record_kernel>("0:3a:0.0", &g_queue_a, 5, "gemm");
    auto k2 = Kernel<pti_view_record_kernel>("0:7a:0.0", &g_queue_b, 6, "relu");
    auto k3 = Kernel<pti_view_record_kernel>("0:3a:0.0", &g_queue_b, 7, "gemm");
    d.Decode(Base(&k1)), d.Decode(Base(&k2)), d.Decode(Base(&k3));
  }
  pti_view_record_memory_copy_v2 c{};
  c._view_kind._view_kind = PTI_VIEW_DEVICE_GPU_MEM_COPY;
  c._mem_src = PTI_VIEW_MEMORY_TYPE_MEMORY;
  c._mem_dst = PTI_VIEW_MEMORY_TYPE_DEVICE;
  c._queue_handle = &g_queue_a;
  std::strcpy(c._pci_address, "0:7a:0.0");
  c._bytes = 4096;
  c._correlation_id = 8;
  d.Decode(Base(&c));
  pti_view_record_memory_copy_p2p_v2 p{};
  p._view_kind._view_kind = PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P;
  p._queue_handle = &g_queue_a;
  std::strcpy(p._src_pci_address, "0:3a:0.0");
  std::strcpy(p._dst_pci_address, "0:aa:0.0");
  p._bytes = 512;
  d.Decode(Base(&p));
  pti_view_record_memory_fill_v2 f{};
  f._view_kind._view_kind = PTI_VIEW_DEVICE_GPU_MEM_FILL;
  f._mem_type = PTI_VIEW_MEMORY_TYPE_DEVICE;
  f._queue_handle = &g_queue_b;
  std::strcpy(f._pci_address, "0:7a:0.0");
  f._bytes = 64;
  f._value_for_set = 7;
  d.Decode(Base(&f));

  ASSERT_EQ(trace.gpu.size(), 6u);
  const GpuActivity& k1 = trace.gpu[0];
  EXPECT_EQ(k1.kind, ActivityKind::kKernel);
  EXPECT_EQ(k1.device, 0u);
  EXPECT_EQ(k1.stream, 1u);
  EXPECT_EQ(k1.correlation_id, 5u);
  EXPECT_EQ(k1.start_ns, 1005u);
  EXPECT_EQ(k1.end_ns, 2005u);
  EXPECT_EQ(trace.strings.Get(k1.kernel.name), "gemm");
  EXPECT_EQ(trace.gpu[1].device, 1u);
  EXPECT_EQ(trace.gpu[1].stream, 2u);
  EXPECT_EQ(trace.strings.Get(trace.gpu[1].kernel.name), "relu");
  EXPECT_EQ(trace.gpu[2].device, 0u);  // the same queue handle on the same numbering
  EXPECT_EQ(trace.gpu[2].stream, 2u);
  EXPECT_EQ(trace.gpu[2].kernel.name, k1.kernel.name);
  EXPECT_EQ(trace.gpu[3].kind, ActivityKind::kMemcpy);
  EXPECT_EQ(trace.gpu[3].copy.direction, CopyDirection::kHtoD);
  EXPECT_EQ(trace.gpu[3].copy.bytes, 4096u);
  EXPECT_EQ(trace.gpu[3].device, 1u);
  EXPECT_EQ(trace.gpu[4].copy.direction, CopyDirection::kPtoP);
  EXPECT_EQ(trace.gpu[4].device, 0u);
  EXPECT_EQ(trace.gpu[5].kind, ActivityKind::kMemset);
  EXPECT_EQ(trace.gpu[5].fill.bytes, 64u);
  EXPECT_EQ(trace.gpu[5].fill.value, 7u);
  EXPECT_EQ(trace.gpu[5].fill.memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(trace.gpu[5].stream, 2u);
  ASSERT_EQ(trace.devices.size(), 3u);  // the P2P destination is a device too
  EXPECT_EQ(trace.devices[1].name, "Intel GPU at PCI 0:7a:0.0");
  for (size_t i = 0; i < trace.gpu.size(); ++i)
    EXPECT_EQ(trace.gpu[i].graph_id, 0u);  // never attributed here
}

INSTANTIATE_TEST_SUITE_P(Layouts, PtiDecoderTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "v2" : "v1";
                         });

TEST(PtiDecoder, DeviceByUuidWhenNoPciAddress) {
  Trace trace;
  PtiDecoder d(&trace, 100, true, nullptr);
  auto a = Kernel<pti_view_record_kernel_v2>("", &g_queue_a, 1, "k");
  auto b = a;
  a._device_uuid[0] = 1;
  b._device_uuid[0] = 2;
  d.Decode(Base(&a)), d.Decode(Base(&b)), d.Decode(Base(&a));
  ASSERT_EQ(trace.gpu.size(), 3u);
  EXPECT_EQ(trace.gpu[0].device, 0u);
  EXPECT_EQ(trace.gpu[1].device, 1u);
  EXPECT_EQ(trace.gpu[2].device, 0u);
}

pti_result FakeApiName(pti_api_group_id group, uint32_t id, const char** name) {
  if (group == PTI_API_GROUP_SYCL && id == urEnqueueKernelLaunch_id) {
    *name = "urEnqueueKernelLaunch";
    return PTI_SUCCESS;
  }
  return PTI_ERROR_BAD_API_ID;
}

TEST(PtiDecoder, ApiCallsExternalKindsUnknownAndLimit) {
  Trace trace;
  PtiDecoder d(&trace, 3, true, &FakeApiName);
  pti_view_record_api api{};
  api._view_kind._view_kind = PTI_VIEW_RUNTIME_API;
  api._api_group = PTI_API_GROUP_SYCL;
  api._api_id = urEnqueueKernelLaunch_id;
  api._thread_id = 42;
  api._correlation_id = 9;
  api._start_timestamp = 10;
  api._end_timestamp = 20;
  d.Decode(Base(&api));
  api._api_id = urQueueFinish_id;  // no name from PTI
  d.Decode(Base(&api));
  ASSERT_EQ(trace.api.size(), 2u);
  EXPECT_EQ(trace.strings.Get(trace.api[0].name), "urEnqueueKernelLaunch");
  EXPECT_EQ(trace.strings.Get(trace.api[1].name), "sycl_api_97");
  EXPECT_EQ(trace.api[0].tid, 42u);
  EXPECT_EQ(trace.api[0].correlation_id, 9u);
  EXPECT_EQ(trace.api[0].domain, ApiDomain::kRuntime);

  pti_view_record_external_correlation e{};
  e._view_kind._view_kind = PTI_VIEW_EXTERNAL_CORRELATION;
  e._correlation_id = 9;
  e._external_id = 1234;
  e._external_kind = PTI_VIEW_EXTERNAL_KIND_CUSTOM_1;
  d.Decode(Base(&e));
  e._external_kind = PTI_VIEW_EXTERNAL_KIND_CUSTOM_0;
  e._external_id = 99;
  d.Decode(Base(&e));
  ASSERT_EQ(trace.external.size(), 2u);
  EXPECT_EQ(trace.external[0].external_kind, ExternalKind::kUserRange);
  EXPECT_EQ(trace.external[0].external_id, 1234u);
  EXPECT_EQ(trace.external[0].correlation_id, 9u);
  EXPECT_EQ(trace.external[1].external_kind, ExternalKind::kOther);

  pti_view_record_base odd{};
  std::memset(&odd, 0, sizeof(odd));
  const uint32_t future_kind = 77;  // a kind a newer PTI emits
  std::memcpy(&odd, &future_kind, sizeof(future_kind));
  d.Decode(&odd);
  EXPECT_EQ(trace.drops.unknown_records, 1u);

  auto k = Kernel<pti_view_record_kernel_v2>("0:3a:0.0", &g_queue_a, 1, "k");
  d.Decode(Base(&k));  // the third event: kept
  d.Decode(Base(&k));  // past the limit: counted
  EXPECT_EQ(trace.gpu.size(), 1u);
  EXPECT_EQ(trace.drops.store_full, 1u);
}

// What the decoder hands the attribution stage: provisional graph fields on every kernel (both
// layouts), graph submission and append calls as their runtime API records are decoded.
class RecordingStage final : public SubmissionMatchingStage {
 public:
  void ExecCreated(uint32_t, uint64_t) override {}
  void ExecChanged(uint32_t, uint64_t) override {}
  void TemplateNodeCreated(uint64_t, uint64_t) override {}
  void TemplateNodeCloned(uint64_t, uint64_t) override {}
  void ExecNodeBound(uint64_t, uint64_t, uint64_t) override {}
  void Process(ChunkedVector<GpuActivity>&, size_t) override {}
  void Report(AttributionInfo*) const override {}
  void SubmissionCall(uint32_t correlation, uint32_t thread, uint64_t start_ns,
                      uint64_t end_ns) override {
    submissions.push_back({correlation, thread, start_ns, end_ns});
  }
  void AppendCall(uint32_t correlation) override { appends.push_back(correlation); }
  void Flushed(ChunkedVector<GpuActivity>&, uint64_t) override {}
  void Finish(ChunkedVector<GpuActivity>&) override {}
  uint64_t executions_tied() const override { return 0; }
  uint64_t executions_withheld() const override { return 0; }
  uint64_t executions_late() const override { return 0; }
  uint64_t records_late() const override { return 0; }
  size_t calls_held() const override { return 0; }
  uint64_t calls_released() const override { return 0; }
  std::vector<std::array<uint64_t, 4>> submissions;
  std::vector<uint32_t> appends;
};

TEST_P(PtiDecoderTest, KernelsCarryTheirCommandSubmitTimeAndThreadForTheStage) {
  const bool v2 = GetParam();
  Trace trace;
  RecordingStage stage;
  PtiDecoder d(&trace, 100, v2, nullptr, &stage);
  auto fill = [](auto k) {
    k._kernel_id = 42;
    k._submit_timestamp = 900;
    k._thread_id = 7;
    return k;
  };
  if (v2) {
    auto k = fill(Kernel<pti_view_record_kernel_v2>("0:3a:0.0", &g_queue_a, 5, "gemm"));
    d.Decode(Base(&k));
  } else {
    auto k = fill(Kernel<pti_view_record_kernel>("0:3a:0.0", &g_queue_a, 5, "gemm"));
    d.Decode(Base(&k));
  }
  ASSERT_EQ(trace.gpu.size(), 1u);
  EXPECT_EQ(trace.gpu[0].graph_id, SubmissionMatchingStage::kProvisionalGraphId);
  EXPECT_EQ(trace.gpu[0].graph_node_id, 42u);
  EXPECT_EQ(trace.gpu[0].capture_range_id, 900u);
  EXPECT_EQ(trace.gpu[0].context, 7u);
  EXPECT_EQ(trace.gpu[0].correlation_id, 5u);

  pti_view_record_api api{};
  api._view_kind._view_kind = PTI_VIEW_RUNTIME_API;
  api._api_group = PTI_API_GROUP_SYCL;
  api._thread_id = 3;
  api._start_timestamp = 100;
  api._end_timestamp = 200;
  const uint32_t ids[] = {urEnqueueCommandBufferExp_id, urEnqueueGraphExp_id,
                          urCommandBufferAppendKernelLaunchExp_id, urEnqueueKernelLaunch_id};
  for (uint32_t i = 0; i < 4; ++i) {
    api._api_id = ids[i];
    api._correlation_id = 10 + i;
    d.Decode(Base(&api));
  }
  api._api_group = PTI_API_GROUP_LEVELZERO;  // a driver record under the same id: not a call
  api._view_kind._view_kind = PTI_VIEW_DRIVER_API;
  api._api_id = urEnqueueGraphExp_id;
  d.Decode(Base(&api));
  ASSERT_EQ(stage.submissions.size(), 2u);
  EXPECT_EQ(stage.submissions[0], (std::array<uint64_t, 4>{10, 3, 100, 200}));
  EXPECT_EQ(stage.submissions[1][0], 11u);
  EXPECT_EQ(stage.appends, std::vector<uint32_t>{12});
}

TEST(PtiDecoder, LayoutFromVersion) {
  EXPECT_FALSE(UsesV2Layout(pti_version{0, 17, 3}));
  EXPECT_TRUE(UsesV2Layout(pti_version{0, 18, 0}));
  EXPECT_TRUE(UsesV2Layout(pti_version{1, 0, 0}));
}

}  // namespace
}  // namespace nodescope::pti
