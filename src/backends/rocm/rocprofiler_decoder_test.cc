// The decoder on hand-built SDK records: kernels named through code-object symbols, the recipe's
// tag kept as a provisional key (a pushed range id is not one), copies, API calls with their
// user range, the clock shift, unknown records and the event limit.
#include "backends/rocm/rocprofiler_decoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "attribution/stage.h"

namespace nodescope::rocprofiler {
namespace {

rocprofiler_buffer_tracing_kernel_dispatch_record_t Dispatch(uint64_t kernel, uint64_t external) {
  rocprofiler_buffer_tracing_kernel_dispatch_record_t r{};
  r.size = sizeof(r);
  r.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
  r.operation = ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
  r.correlation_id.internal = 77;
  r.correlation_id.external.value = external;
  r.start_timestamp = 1000;
  r.end_timestamp = 3000;
  r.dispatch_info.agent_id.handle = 3;
  r.dispatch_info.queue_id.handle = 9;
  r.dispatch_info.kernel_id = kernel;
  r.dispatch_info.workgroup_size = {256, 1, 1};
  r.dispatch_info.grid_size = {1024, 2, 1};
  r.dispatch_info.group_segment_size = 64;
  return r;
}

struct Batch {
  std::vector<rocprofiler_record_header_t> headers;
  std::vector<rocprofiler_record_header_t*> pointers;
  void Add(uint32_t kind, void* payload, uint32_t category = ROCPROFILER_BUFFER_CATEGORY_TRACING) {
    rocprofiler_record_header_t h{};
    h.category = category;
    h.kind = kind;
    h.payload = payload;
    headers.push_back(h);
  }
  rocprofiler_record_header_t** Get() {
    pointers.clear();
    for (auto& h : headers) pointers.push_back(&h);
    return pointers.data();
  }
};

TEST(RocprofilerDecoder, DispatchesKernelNamesAndProvisionalKeys) {
  Trace trace;
  RocprofilerDecoder d(&trace, 100, /*boot_to_realtime_ns=*/500);
  d.SetAgentDevice(2, 0);
  d.SetAgentDevice(3, 1);
  d.AddKernelSymbol(5, "chain_k0");
  const uint64_t tag = ReconstructingStage::kMinTag + 42;
  auto tagged = Dispatch(5, tag);
  auto ranged = Dispatch(5, 7);  // a pushed user-range id: no key
  auto unnamed = Dispatch(6, 0);
  Batch b;
  b.Add(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, &tagged);
  b.Add(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, &ranged);
  b.Add(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, &unnamed);
  d.Decode(b.Get(), b.headers.size());
  ASSERT_EQ(trace.gpu.size(), 3u);
  const GpuActivity& a = trace.gpu[0];
  EXPECT_EQ(a.kind, ActivityKind::kKernel);
  EXPECT_EQ(trace.strings.Get(a.kernel.name), "chain_k0");
  EXPECT_EQ(a.start_ns, 1500u);
  EXPECT_EQ(a.end_ns, 3500u);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.stream, 9u);
  EXPECT_EQ(a.correlation_id, 77u);
  EXPECT_EQ(a.kernel.grid[0], 4);
  EXPECT_EQ(a.kernel.grid[1], 2);
  EXPECT_EQ(a.kernel.block[0], 256);
  EXPECT_EQ(a.kernel.static_shared_bytes, 64u);
  EXPECT_EQ(a.graph_id, ReconstructingStage::kProvisionalGraphId);
  EXPECT_EQ(a.graph_node_id, tag);
  EXPECT_EQ(trace.gpu[1].graph_id, 0u);
  EXPECT_EQ(trace.gpu[1].graph_node_id, 0u);
  EXPECT_EQ(trace.strings.Get(trace.gpu[2].kernel.name), "<unknown kernel>");
}

TEST(RocprofilerDecoder, CopiesApiCallsAndRanges) {
  Trace trace;
  RocprofilerDecoder d(&trace, 100, 0);
  d.SetAgentDevice(2, 0);
  rocprofiler_buffer_tracing_memory_copy_record_t copy{};
  copy.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
  copy.operation = ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE;
  copy.dst_agent_id.handle = 2;
  copy.src_agent_id.handle = 1;
  copy.bytes = 4096;
  copy.correlation_id.internal = 12;
  rocprofiler_buffer_tracing_hip_api_record_t api{};
  api.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
  api.operation = ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch;
  api.correlation_id.internal = 12;
  api.correlation_id.external.value = 3;  // the user range open around the call
  api.thread_id = 4242;
  api.start_timestamp = 10;
  api.end_timestamp = 20;
  rocprofiler_buffer_tracing_correlation_id_retirement_record_t retired{};
  Batch b;
  b.Add(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, &copy);
  b.Add(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, &api);
  b.Add(ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT, &retired);
  b.Add(99, &retired);                                      // a kind we do not decode
  b.Add(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, &copy, 7);  // another category
  d.Decode(b.Get(), b.headers.size());
  ASSERT_EQ(trace.gpu.size(), 1u);
  EXPECT_EQ(trace.gpu[0].kind, ActivityKind::kMemcpy);
  EXPECT_EQ(trace.gpu[0].copy.direction, CopyDirection::kHtoD);
  EXPECT_EQ(trace.gpu[0].copy.bytes, 4096u);
  ASSERT_EQ(trace.api.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.api[0].name), "hipGraphLaunch");
  EXPECT_EQ(trace.api[0].tid, 4242u);
  EXPECT_EQ(trace.api[0].correlation_id, 12u);
  ASSERT_EQ(trace.external.size(), 1u);
  EXPECT_EQ(trace.external[0].external_id, 3u);
  EXPECT_EQ(trace.external[0].correlation_id, 12u);
  EXPECT_EQ(trace.drops.unknown_records, 2u);
}

TEST(RocprofilerDecoder, ApiNamesOutsideTheDeclaredSubset) {
  Trace trace;
  RocprofilerDecoder d(&trace, 100, 0);
  rocprofiler_buffer_tracing_hip_api_record_t a{}, b{}, c{};
  a.operation = ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync;
  b.operation = 400;    // an operation we declare no name for
  c.operation = 70000;  // past any table
  Batch batch;
  for (auto* r : {&a, &b, &c}) batch.Add(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, r);
  d.Decode(batch.Get(), batch.headers.size());
  ASSERT_EQ(trace.api.size(), 3u);
  EXPECT_EQ(trace.strings.Get(trace.api[0].name), "hipMemcpyAsync");
  EXPECT_EQ(trace.strings.Get(trace.api[1].name), "hip_runtime_api_400");
  EXPECT_EQ(trace.strings.Get(trace.api[2].name), "hip_runtime_api");
  EXPECT_EQ(trace.external.size(), 0u);  // no range pushed
}

TEST(RocprofilerDecoder, EventLimitCountsStoreFull) {
  Trace trace;
  RocprofilerDecoder d(&trace, 2, 0);
  auto r = Dispatch(1, 0);
  Batch b;
  for (int i = 0; i < 5; ++i) b.Add(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, &r);
  d.Decode(b.Get(), b.headers.size());
  EXPECT_EQ(trace.gpu.size(), 2u);
  EXPECT_EQ(trace.drops.store_full, 3u);
}

}  // namespace
}  // namespace nodescope::rocprofiler
