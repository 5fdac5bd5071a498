// The rocprofiler-sdk declarations the backend compiles against (ours, or the real SDK's when
// CMake found it) against the numbers of ../shared/docs/SDK-ABI.md: sizes, offsets, constants,
// computed there from the SDK 1.0.0 headers on x86-64. A wrong edit fails to compile. The
// prototypes are pinned as function types, so a changed parameter fails too. Layouts marked
// "(real headers)" are not in SDK-ABI.md; they were checked against the SDK 1.0.0 public headers
// (ROCm/rocm-systems@1b1610fc) outside the repository.
#include "backends/rocm/sdk/rocprofiler_sdk.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

namespace {

#define EXPECT_LAYOUT(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "." #field " moved")

// ---- Record layouts (SDK-ABI.md, "record layouts") ----
static_assert(sizeof(rocprofiler_kernel_dispatch_info_t) == 128);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, size, 0);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, agent_id, 8);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, queue_id, 16);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, kernel_id, 24);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, dispatch_id, 32);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, private_segment_size, 40);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, group_segment_size, 44);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, workgroup_size, 48);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, grid_size, 60);
EXPECT_LAYOUT(rocprofiler_kernel_dispatch_info_t, reserved_padding, 72);

static_assert(sizeof(rocprofiler_tool_configure_result_t) == 32);
EXPECT_LAYOUT(rocprofiler_tool_configure_result_t, size, 0);
EXPECT_LAYOUT(rocprofiler_tool_configure_result_t, initialize, 8);
EXPECT_LAYOUT(rocprofiler_tool_configure_result_t, finalize, 16);
EXPECT_LAYOUT(rocprofiler_tool_configure_result_t, tool_data, 24);

static_assert(sizeof(rocprofiler_record_header_t) == 16);
EXPECT_LAYOUT(rocprofiler_record_header_t, category, 0);
EXPECT_LAYOUT(rocprofiler_record_header_t, kind, 4);
EXPECT_LAYOUT(rocprofiler_record_header_t, hash, 0);
EXPECT_LAYOUT(rocprofiler_record_header_t, payload, 8);

static_assert(sizeof(rocprofiler_async_correlation_id_t) == 16);
EXPECT_LAYOUT(rocprofiler_async_correlation_id_t, internal, 0);
EXPECT_LAYOUT(rocprofiler_async_correlation_id_t, external, 8);

static_assert(sizeof(rocprofiler_buffer_tracing_kernel_dispatch_record_t) == 184);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, size, 0);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, kind, 8);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, operation, 12);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, correlation_id, 16);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, thread_id, 32);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, start_timestamp, 40);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, end_timestamp, 48);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_kernel_dispatch_record_t, dispatch_info, 56);

static_assert(sizeof(rocprofiler_buffer_tracing_memory_copy_record_t) == 96);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, size, 0);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, kind, 8);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, operation, 12);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, correlation_id, 16);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, thread_id, 32);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, start_timestamp, 40);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, end_timestamp, 48);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, dst_agent_id, 56);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, src_agent_id, 64);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, bytes, 72);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, dst_address, 80);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_memory_copy_record_t, src_address, 88);

static_assert(sizeof(rocprofiler_correlation_id_t) == 24);
EXPECT_LAYOUT(rocprofiler_correlation_id_t, internal, 0);
EXPECT_LAYOUT(rocprofiler_correlation_id_t, external, 8);
EXPECT_LAYOUT(rocprofiler_correlation_id_t, ancestor, 16);

static_assert(sizeof(rocprofiler_callback_tracing_record_t) == 64);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, context_id, 0);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, thread_id, 8);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, correlation_id, 16);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, kind, 40);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, operation, 44);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, phase, 48);
EXPECT_LAYOUT(rocprofiler_callback_tracing_record_t, payload, 56);

using KernelSymbol = rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;
static_assert(sizeof(KernelSymbol) == 88);
EXPECT_LAYOUT(KernelSymbol, size, 0);
EXPECT_LAYOUT(KernelSymbol, kernel_id, 8);
EXPECT_LAYOUT(KernelSymbol, code_object_id, 16);
EXPECT_LAYOUT(KernelSymbol, kernel_name, 24);
EXPECT_LAYOUT(KernelSymbol, kernel_object, 32);
EXPECT_LAYOUT(KernelSymbol, kernarg_segment_size, 40);
EXPECT_LAYOUT(KernelSymbol, kernarg_segment_alignment, 44);
EXPECT_LAYOUT(KernelSymbol, group_segment_size, 48);
EXPECT_LAYOUT(KernelSymbol, private_segment_size, 52);
EXPECT_LAYOUT(KernelSymbol, sgpr_count, 56);
EXPECT_LAYOUT(KernelSymbol, arch_vgpr_count, 60);
EXPECT_LAYOUT(KernelSymbol, accum_vgpr_count, 64);
EXPECT_LAYOUT(KernelSymbol, kernel_code_entry_byte_offset, 72);
EXPECT_LAYOUT(KernelSymbol, kernel_address, 80);

using CodeObjectLoad = rocprofiler_callback_tracing_code_object_load_data_t;
static_assert(sizeof(CodeObjectLoad) == 88);
EXPECT_LAYOUT(CodeObjectLoad, size, 0);
EXPECT_LAYOUT(CodeObjectLoad, code_object_id, 8);
EXPECT_LAYOUT(CodeObjectLoad, agent_id, 16);
EXPECT_LAYOUT(CodeObjectLoad, uri, 32);
EXPECT_LAYOUT(CodeObjectLoad, load_base, 40);
EXPECT_LAYOUT(CodeObjectLoad, load_size, 48);
EXPECT_LAYOUT(CodeObjectLoad, load_delta, 56);
EXPECT_LAYOUT(CodeObjectLoad, storage_type, 64);
EXPECT_LAYOUT(CodeObjectLoad, storage_file, 72);
EXPECT_LAYOUT(CodeObjectLoad, memory_base, 72);
EXPECT_LAYOUT(CodeObjectLoad, memory_size, 80);

// ---- Sizes and argument offsets (SDK-ABI.md, "sizes, argument offsets, constants") ----
static_assert(sizeof(rocprofiler_hip_api_args_t) == 88);
static_assert(sizeof(rocprofiler_hip_api_retval_t) == 24);
static_assert(sizeof(rocprofiler_callback_tracing_hip_api_data_t) == 120);
EXPECT_LAYOUT(rocprofiler_callback_tracing_hip_api_data_t, args, 8);
EXPECT_LAYOUT(rocprofiler_callback_tracing_hip_api_data_t, retval, 96);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphLaunch.graphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphLaunch.stream, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecUpdate.hGraphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecUpdate.hGraph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecKernelNodeSetParams.hGraphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecKernelNodeSetParams.node, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecKernelNodeSetParams.pNodeParams, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiate.pGraphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiate.graph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiateWithFlags.pGraphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiateWithFlags.graph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiateWithFlags.flags, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecDestroy.graphExec, 0);
// (real headers) the other arguments the simulated SDK and the backend read.
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecUpdate.hErrorNode_out, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphExecUpdate.updateResult_out, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiate.pErrorNode, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiate.pLogBuffer, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiate.bufferSize, 32);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiateWithParams.pGraphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphInstantiateWithParams.graph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphLaunch_spt.graphExec, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphLaunch_spt.stream, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamBeginCapture.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamBeginCapture.mode, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddKernelNode.pGraphNode, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddKernelNode.graph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddKernelNode.pDependencies, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddKernelNode.numDependencies, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddKernelNode.pNodeParams, 32);
// hip/api_args.h:843-853 and :878-885 (rocm-systems@1b1610fc), read outside the repo.
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.pGraphNode, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.numDependencies, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.dst, 32);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.src, 40);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.count, 48);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemcpyNode1D.kind, 56);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemsetNode.graph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphAddMemsetNode.pMemsetParams, 32);
// hip/api_args.h:547-550, :570-574, :2252-2257 (rocm-systems@1b1610fc).
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipEventCreate.event, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipEventRecord.event, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipEventRecord.stream, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamWaitEvent.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamWaitEvent.event, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamWaitEvent.flags, 16);
// (real headers) callback_tracing.h:248-266 (rocm-systems@1b1610fc): the host kernel symbol.
static_assert(sizeof(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t) ==
              120);
EXPECT_LAYOUT(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
              kernel_id, 16);
EXPECT_LAYOUT(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
              host_function, 32);
EXPECT_LAYOUT(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
              device_function, 48);
EXPECT_LAYOUT(rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t,
              workgroup_size, 112);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamEndCapture.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamEndCapture.pGraph, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.function_address, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.numBlocks, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.dimBlocks, 20);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.args, 32);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.sharedMemBytes, 40);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipLaunchKernel.stream, 48);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpyAsync.dst, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpyAsync.src, 8);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpyAsync.sizeBytes, 16);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpyAsync.kind, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpyAsync.stream, 32);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipMemcpy.kind, 24);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamCreate.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamDestroy.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipStreamSynchronize.stream, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipSetDevice.deviceId, 0);
EXPECT_LAYOUT(rocprofiler_hip_api_args_t, hipGraphDestroy.graph, 0);
EXPECT_LAYOUT(rocprofiler_callback_tracing_hip_api_data_t, size, 0);

// (real headers) the buffered HIP API record: thread_id comes last, unlike the async records.
static_assert(sizeof(rocprofiler_buffer_tracing_hip_api_record_t) == 64);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, kind, 8);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, operation, 12);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, correlation_id, 16);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, start_timestamp, 40);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, end_timestamp, 48);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_hip_api_record_t, thread_id, 56);
// (real headers) retirement, kernel dispatch callback payload, stream payload, client id.
static_assert(sizeof(rocprofiler_buffer_tracing_correlation_id_retirement_record_t) == 32);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_correlation_id_retirement_record_t, timestamp, 16);
EXPECT_LAYOUT(rocprofiler_buffer_tracing_correlation_id_retirement_record_t,
              internal_correlation_id, 24);
static_assert(sizeof(rocprofiler_callback_tracing_kernel_dispatch_data_t) == 152);
EXPECT_LAYOUT(rocprofiler_callback_tracing_kernel_dispatch_data_t, dispatch_info, 24);
static_assert(sizeof(rocprofiler_callback_tracing_hip_stream_data_t) == 24);
EXPECT_LAYOUT(rocprofiler_callback_tracing_hip_stream_data_t, stream_id, 8);
EXPECT_LAYOUT(rocprofiler_callback_tracing_hip_stream_data_t, stream_value, 16);
static_assert(sizeof(rocprofiler_client_id_t) == 24);
EXPECT_LAYOUT(rocprofiler_client_id_t, name, 8);
EXPECT_LAYOUT(rocprofiler_client_id_t, handle, 16);
// (real headers) the agent (device) description and its query.
static_assert(sizeof(rocprofiler_agent_v0_t) == 312);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, id, 8);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, type, 16);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, gfx_target_version, 100);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, vendor_id, 104);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, device_id, 106);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, location_id, 108);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, domain, 112);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, sdma_fw_version, 144);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, fw_version, 148);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, capability, 152);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, local_mem_size, 176);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, gpu_id, 192);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, workgroup_max_dim, 200);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, mem_banks, 224);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, name, 248);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, vendor_name, 256);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, product_name, 264);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, model_name, 272);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, node_id, 280);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, logical_node_id, 284);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, logical_node_type_id, 288);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, runtime_visibility, 292);
EXPECT_LAYOUT(rocprofiler_agent_v0_t, uuid, 296);
static_assert(sizeof(rocprofiler_agent_runtime_visiblity_t) == 4);
static_assert(ROCPROFILER_AGENT_TYPE_CPU == 1 && ROCPROFILER_AGENT_TYPE_GPU == 2);
static_assert(ROCPROFILER_AGENT_INFO_VERSION_0 == 1);
static_assert(sizeof(rocprofiler_user_data_t) == 8 && sizeof(rocprofiler_address_t) == 8);
static_assert(sizeof(rocprofiler_tracing_operation_t) == 4);
static_assert(sizeof(rocprofiler_buffer_tracing_kind_t) == 4);
static_assert(sizeof(rocprofiler_callback_tracing_kind_t) == 4);
static_assert(sizeof(rocprofiler_callback_phase_t) == 4);
static_assert(sizeof(rocprofiler_status_t) == 4);
static_assert(sizeof(rocprofiler_external_correlation_id_request_kind_t) == 4);

// ---- Constants (SDK-ABI.md) ----
static_assert(ROCPROFILER_STATUS_SUCCESS == 0);
static_assert(ROCPROFILER_BUFFER_CATEGORY_TRACING == 1);
static_assert(ROCPROFILER_BUFFER_POLICY_DISCARD == 1);
static_assert(ROCPROFILER_BUFFER_POLICY_LOSSLESS == 2);
static_assert(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH == 11);
static_assert(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY == 10);
static_assert(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API == 5);
static_assert(ROCPROFILER_KERNEL_DISPATCH_COMPLETE == 2);
static_assert(ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE == 2);
static_assert(ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST == 3);
static_assert(ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE == 4);
static_assert(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API == 5);
static_assert(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT == 10);
static_assert(ROCPROFILER_CALLBACK_TRACING_HIP_STREAM == 20);
// The marker (ROCTx) core API (real headers: rocprofiler-sdk/fwd.h, marker/api_id.h,
// marker/api_args.h, callback_tracing.h at
// ROCm/rocm-systems@1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992).
static_assert(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API == 7);
static_assert(ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA == 0);
static_assert(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA == 1);
static_assert(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop == 2);
static_assert(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA == 3);
static_assert(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop == 4);
static_assert(sizeof(roctx_range_id_t) == 8);
static_assert(sizeof(rocprofiler_marker_api_args_t) == 16);
static_assert(sizeof(rocprofiler_marker_api_retval_t) == 8);
static_assert(sizeof(rocprofiler_callback_tracing_marker_api_data_t) == 32);
EXPECT_LAYOUT(rocprofiler_callback_tracing_marker_api_data_t, size, 0);
EXPECT_LAYOUT(rocprofiler_callback_tracing_marker_api_data_t, args, 8);
EXPECT_LAYOUT(rocprofiler_callback_tracing_marker_api_data_t, retval, 24);
EXPECT_LAYOUT(rocprofiler_marker_api_args_t, roctxRangePushA.message, 0);
EXPECT_LAYOUT(rocprofiler_marker_api_args_t, roctxRangeStartA.message, 0);
EXPECT_LAYOUT(rocprofiler_marker_api_args_t, roctxRangeStop.id, 0);
static_assert(std::is_same_v<decltype(rocprofiler_marker_api_retval_t{}.roctx_range_id_t_retval),
                             roctx_range_id_t>);
static_assert(ROCPROFILER_CALLBACK_PHASE_ENTER == 1);
static_assert(ROCPROFILER_CALLBACK_PHASE_EXIT == 2);
static_assert(ROCPROFILER_CODE_OBJECT_LOAD == 1);
static_assert(ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER == 2);
static_assert(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH == 11);
static_assert(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY == 10);
static_assert(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API == 5);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch == 166);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate == 153);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams == 147);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate == 159);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags == 160);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy == 143);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture == 333);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture == 338);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel == 214);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync == 268);
static_assert(ROCPROFILER_HIP_STREAM_SET == 3);
// ROCM-PTI-FACTS.md's table of HIP operation ids.
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch_spt == 420);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams == 438);
// (real headers) the other values declared.
static_assert(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH == 12);
static_assert(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY == 13);
static_assert(ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT == 13);
static_assert(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_ALLOCATION == 15);
static_assert(ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER == 3);
static_assert(ROCPROFILER_HIP_STREAM_CREATE == 1 && ROCPROFILER_HIP_STREAM_DESTROY == 2);
static_assert(ROCPROFILER_KERNEL_DISPATCH_ENQUEUE == 1);
static_assert(ROCPROFILER_MEMORY_COPY_HOST_TO_HOST == 1);
static_assert(ROCPROFILER_CALLBACK_PHASE_LOAD == 1 && ROCPROFILER_CALLBACK_PHASE_UNLOAD == 2);
static_assert(ROCPROFILER_STATUS_ERROR == 1);
static_assert(ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID == 10);
static_assert(ROCPROFILER_STATUS_ERROR_BUFFER_BUSY == 14);
static_assert(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED == 15);
static_assert(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED == 16);
static_assert(ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED == 17);
static_assert(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT == 19);
static_assert(ROCPROFILER_STATUS_ERROR_FINALIZED == 21);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy == 136);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate == 334);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy == 337);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize == 346);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy == 259);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice == 327);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize == 66);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphCreate == 134);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode == 124);
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode1D == 128);  // :161
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemsetNode == 131);    // :164
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate == 76);            // :109
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord == 81);            // :114
static_assert(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent == 348);       // :381

// ---- Prototypes (ROCM-PTI-FACTS.md, with the parameter types of the real headers) ----
// The real headers put nonnull attributes on some functions; the function types are compared.
#pragma GCC diagnostic ignored "-Wignored-attributes"
template <typename F, typename Expected>
constexpr bool kSameType = std::is_same_v<F, Expected>;

static_assert(kSameType<decltype(&rocprofiler_configure), rocprofiler_configure_func_t>);
static_assert(
    kSameType<rocprofiler_tool_initialize_t, int (*)(rocprofiler_client_finalize_t, void*)>);
static_assert(kSameType<rocprofiler_tool_finalize_t, void (*)(void*)>);
static_assert(kSameType<rocprofiler_client_finalize_t, void (*)(rocprofiler_client_id_t)>);
static_assert(kSameType<decltype(&rocprofiler_force_configure),
                        rocprofiler_status_t (*)(rocprofiler_configure_func_t)>);
static_assert(kSameType<decltype(&rocprofiler_create_context),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t*)>);
static_assert(kSameType<decltype(&rocprofiler_start_context),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t)>);
static_assert(kSameType<decltype(&rocprofiler_stop_context),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t)>);
static_assert(kSameType<decltype(&rocprofiler_context_is_active),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t, int*)>);
static_assert(kSameType<rocprofiler_buffer_tracing_cb_t,
                        void (*)(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
                                 rocprofiler_record_header_t**, size_t, void*, uint64_t)>);
static_assert(kSameType<decltype(&rocprofiler_create_buffer),
                        rocprofiler_status_t (*)(
                            rocprofiler_context_id_t, size_t, size_t, rocprofiler_buffer_policy_t,
                            rocprofiler_buffer_tracing_cb_t, void*, rocprofiler_buffer_id_t*)>);
static_assert(kSameType<decltype(&rocprofiler_flush_buffer),
                        rocprofiler_status_t (*)(rocprofiler_buffer_id_t)>);
static_assert(kSameType<decltype(&rocprofiler_destroy_buffer),
                        rocprofiler_status_t (*)(rocprofiler_buffer_id_t)>);
static_assert(
    kSameType<decltype(&rocprofiler_configure_buffer_tracing_service),
              rocprofiler_status_t (*)(rocprofiler_context_id_t, rocprofiler_buffer_tracing_kind_t,
                                       const rocprofiler_tracing_operation_t*, size_t,
                                       rocprofiler_buffer_id_t)>);
static_assert(
    kSameType<rocprofiler_callback_tracing_cb_t,
              void (*)(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*)>);
static_assert(kSameType<decltype(&rocprofiler_configure_callback_tracing_service),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t,
                                                 rocprofiler_callback_tracing_kind_t,
                                                 const rocprofiler_tracing_operation_t*, size_t,
                                                 rocprofiler_callback_tracing_cb_t, void*)>);
static_assert(
    kSameType<rocprofiler_external_correlation_id_request_cb_t,
              int (*)(rocprofiler_thread_id_t, rocprofiler_context_id_t,
                      rocprofiler_external_correlation_id_request_kind_t,
                      rocprofiler_tracing_operation_t, uint64_t, rocprofiler_user_data_t*, void*)>);
static_assert(kSameType<decltype(&rocprofiler_configure_external_correlation_id_request_service),
                        rocprofiler_status_t (*)(
                            rocprofiler_context_id_t,
                            const rocprofiler_external_correlation_id_request_kind_t*, size_t,
                            rocprofiler_external_correlation_id_request_cb_t, void*)>);
static_assert(kSameType<decltype(&rocprofiler_push_external_correlation_id),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t, rocprofiler_thread_id_t,
                                                 rocprofiler_user_data_t)>);
static_assert(kSameType<decltype(&rocprofiler_pop_external_correlation_id),
                        rocprofiler_status_t (*)(rocprofiler_context_id_t, rocprofiler_thread_id_t,
                                                 rocprofiler_user_data_t*)>);
static_assert(
    kSameType<rocprofiler_query_available_agents_cb_t,
              rocprofiler_status_t (*)(rocprofiler_agent_version_t, const void**, size_t, void*)>);
static_assert(
    kSameType<decltype(&rocprofiler_query_available_agents),
              rocprofiler_status_t (*)(rocprofiler_agent_version_t,
                                       rocprofiler_query_available_agents_cb_t, size_t, void*)>);
static_assert(kSameType<decltype(&rocprofiler_get_timestamp),
                        rocprofiler_status_t (*)(rocprofiler_timestamp_t*)>);
static_assert(kSameType<decltype(&rocprofiler_get_thread_id),
                        rocprofiler_status_t (*)(rocprofiler_thread_id_t*)>);
static_assert(kSameType<decltype(&rocprofiler_get_version),
                        rocprofiler_status_t (*)(uint32_t*, uint32_t*, uint32_t*)>);
static_assert(
    kSameType<decltype(&rocprofiler_get_status_string), const char* (*)(rocprofiler_status_t)>);

// The record header's two views of one word: category in the low half, kind in the high half
// (the SDK's rocprofiler_record_header_compute_hash), on this little-endian target.
TEST(RocprofilerSdkAbi, RecordHeaderHashIsCategoryThenKind) {
  rocprofiler_record_header_t header{};
  header.category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
  header.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
  EXPECT_EQ(header.hash, uint64_t{1} | (uint64_t{11} << 32));
}

// The code-object payload's agent: two names for one field.
TEST(RocprofilerSdkAbi, CodeObjectAgentAliases) {
  rocprofiler_callback_tracing_code_object_load_data_t load{};
  load.agent_id.handle = 42;
  EXPECT_EQ(load.rocp_agent.handle, 42u);
}

TEST(RocprofilerSdkAbi, DeclaredVersionIsOnePointZero) {
  EXPECT_EQ(ROCPROFILER_VERSION, 10000 * ROCPROFILER_VERSION_MAJOR +
                                     100 * ROCPROFILER_VERSION_MINOR + ROCPROFILER_VERSION_PATCH);
#if !NODESCOPE_ROCM_REAL_SDK
  EXPECT_EQ(ROCPROFILER_VERSION, 10000);
#endif
}

}  // namespace
