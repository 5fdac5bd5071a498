// The PTI declarations the backend compiles against (ours, or PTI's when CMake found it) against
// the numbers of ../shared/docs/SDK-ABI.md: sizes, offsets, constants, computed there from the
// PTI 1.0.0 headers on x86-64. A wrong edit fails to compile. The prototypes are pinned as
// function types, so a changed parameter fails too. What is marked "(real headers)" is not in
// SDK-ABI.md; it was checked against PTI's public headers (intel/pti-gpu@fcd0ca81) outside the
// repository, as was everything else here (docs/pti-notes.md, "ABI check").
#include "backends/xpu/sdk/pti_sdk.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

#define EXPECT_LAYOUT(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "." #field " moved")

// ---- Record layouts (SDK-ABI.md, "PTI: record layouts") ----
// pti_view_record_kernel
static_assert(sizeof(pti_view_record_kernel) == 168);
EXPECT_LAYOUT(pti_view_record_kernel, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_kernel, _queue_handle, 8);
EXPECT_LAYOUT(pti_view_record_kernel, _context_handle, 16);
EXPECT_LAYOUT(pti_view_record_kernel, _name, 24);
EXPECT_LAYOUT(pti_view_record_kernel, _source_file_name, 32);
EXPECT_LAYOUT(pti_view_record_kernel, _source_line_number, 40);
EXPECT_LAYOUT(pti_view_record_kernel, _kernel_id, 48);
EXPECT_LAYOUT(pti_view_record_kernel, _correlation_id, 56);
EXPECT_LAYOUT(pti_view_record_kernel, _thread_id, 60);
EXPECT_LAYOUT(pti_view_record_kernel, _pci_address, 64);
EXPECT_LAYOUT(pti_view_record_kernel, _device_uuid, 80);
EXPECT_LAYOUT(pti_view_record_kernel, _append_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_kernel, _start_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_kernel, _end_timestamp, 112);
EXPECT_LAYOUT(pti_view_record_kernel, _submit_timestamp, 120);
EXPECT_LAYOUT(pti_view_record_kernel, _sycl_task_begin_timestamp, 128);
EXPECT_LAYOUT(pti_view_record_kernel, _sycl_enqk_begin_timestamp, 136);
EXPECT_LAYOUT(pti_view_record_kernel, _sycl_node_id, 144);
EXPECT_LAYOUT(pti_view_record_kernel, _sycl_queue_id, 152);
EXPECT_LAYOUT(pti_view_record_kernel, _sycl_invocation_id, 160);
// pti_view_record_kernel_v2
static_assert(sizeof(pti_view_record_kernel_v2) == 184);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _queue_handle, 8);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _context_handle, 16);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _name, 24);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _source_file_name, 32);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _source_line_number, 40);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _kernel_id, 48);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _correlation_id, 56);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _thread_id, 60);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _pci_address, 64);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _device_uuid, 80);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _append_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _start_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _end_timestamp, 112);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _submit_timestamp, 120);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _sycl_task_begin_timestamp, 128);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _sycl_enqk_begin_timestamp, 136);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _sycl_node_id, 144);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _sycl_queue_id, 152);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _sycl_invocation_id, 160);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _device_handle, 168);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _engine_ordinal, 176);
EXPECT_LAYOUT(pti_view_record_kernel_v2, _engine_index, 180);
// pti_view_record_memory_copy
static_assert(sizeof(pti_view_record_memory_copy) == 136);
EXPECT_LAYOUT(pti_view_record_memory_copy, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_copy, _memcpy_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_copy, _mem_src, 8);
EXPECT_LAYOUT(pti_view_record_memory_copy, _mem_dst, 12);
EXPECT_LAYOUT(pti_view_record_memory_copy, _queue_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_copy, _context_handle, 24);
EXPECT_LAYOUT(pti_view_record_memory_copy, _name, 32);
EXPECT_LAYOUT(pti_view_record_memory_copy, _pci_address, 40);
EXPECT_LAYOUT(pti_view_record_memory_copy, _device_uuid, 56);
EXPECT_LAYOUT(pti_view_record_memory_copy, _mem_op_id, 72);
EXPECT_LAYOUT(pti_view_record_memory_copy, _correlation_id, 80);
EXPECT_LAYOUT(pti_view_record_memory_copy, _thread_id, 84);
EXPECT_LAYOUT(pti_view_record_memory_copy, _append_timestamp, 88);
EXPECT_LAYOUT(pti_view_record_memory_copy, _start_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_memory_copy, _end_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_memory_copy, _submit_timestamp, 112);
EXPECT_LAYOUT(pti_view_record_memory_copy, _bytes, 120);
EXPECT_LAYOUT(pti_view_record_memory_copy, _sycl_queue_id, 128);
// pti_view_record_memory_copy_v2
static_assert(sizeof(pti_view_record_memory_copy_v2) == 152);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _memcpy_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _mem_src, 8);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _mem_dst, 12);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _queue_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _context_handle, 24);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _name, 32);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _pci_address, 40);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _device_uuid, 56);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _mem_op_id, 72);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _correlation_id, 80);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _thread_id, 84);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _append_timestamp, 88);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _start_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _end_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _submit_timestamp, 112);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _bytes, 120);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _sycl_queue_id, 128);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _device_handle, 136);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _engine_ordinal, 144);
EXPECT_LAYOUT(pti_view_record_memory_copy_v2, _engine_index, 148);
// pti_view_record_memory_copy_p2p (real headers)
static_assert(sizeof(pti_view_record_memory_copy_p2p) == 168);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _memcpy_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _mem_src, 8);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _mem_dst, 12);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _queue_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _context_handle, 24);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _name, 32);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _src_pci_address, 40);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _dst_pci_address, 56);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _src_uuid, 72);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _dst_uuid, 88);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _mem_op_id, 104);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _correlation_id, 112);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _thread_id, 116);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _append_timestamp, 120);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _start_timestamp, 128);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _end_timestamp, 136);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _submit_timestamp, 144);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _bytes, 152);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p, _sycl_queue_id, 160);
// pti_view_record_memory_copy_p2p_v2 (real headers)
static_assert(sizeof(pti_view_record_memory_copy_p2p_v2) == 192);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _memcpy_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _mem_src, 8);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _mem_dst, 12);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _queue_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _context_handle, 24);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _name, 32);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _src_pci_address, 40);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _dst_pci_address, 56);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _src_uuid, 72);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _dst_uuid, 88);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _mem_op_id, 104);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _correlation_id, 112);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _thread_id, 116);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _append_timestamp, 120);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _start_timestamp, 128);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _end_timestamp, 136);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _submit_timestamp, 144);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _bytes, 152);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _sycl_queue_id, 160);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _src_device_handle, 168);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _dst_device_handle, 176);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _engine_ordinal, 184);
EXPECT_LAYOUT(pti_view_record_memory_copy_p2p_v2, _engine_index, 188);
// pti_view_record_memory_fill
static_assert(sizeof(pti_view_record_memory_fill) == 136);
EXPECT_LAYOUT(pti_view_record_memory_fill, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_fill, _mem_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_fill, _queue_handle, 8);
EXPECT_LAYOUT(pti_view_record_memory_fill, _context_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_fill, _name, 24);
EXPECT_LAYOUT(pti_view_record_memory_fill, _pci_address, 32);
EXPECT_LAYOUT(pti_view_record_memory_fill, _device_uuid, 48);
EXPECT_LAYOUT(pti_view_record_memory_fill, _mem_op_id, 64);
EXPECT_LAYOUT(pti_view_record_memory_fill, _correlation_id, 72);
EXPECT_LAYOUT(pti_view_record_memory_fill, _thread_id, 76);
EXPECT_LAYOUT(pti_view_record_memory_fill, _append_timestamp, 80);
EXPECT_LAYOUT(pti_view_record_memory_fill, _start_timestamp, 88);
EXPECT_LAYOUT(pti_view_record_memory_fill, _end_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_memory_fill, _submit_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_memory_fill, _bytes, 112);
EXPECT_LAYOUT(pti_view_record_memory_fill, _value_for_set, 120);
EXPECT_LAYOUT(pti_view_record_memory_fill, _sycl_queue_id, 128);
// pti_view_record_memory_fill_v2
static_assert(sizeof(pti_view_record_memory_fill_v2) == 152);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _mem_type, 4);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _queue_handle, 8);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _context_handle, 16);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _name, 24);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _pci_address, 32);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _device_uuid, 48);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _mem_op_id, 64);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _correlation_id, 72);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _thread_id, 76);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _append_timestamp, 80);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _start_timestamp, 88);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _end_timestamp, 96);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _submit_timestamp, 104);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _bytes, 112);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _value_for_set, 120);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _sycl_queue_id, 128);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _device_handle, 136);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _engine_ordinal, 144);
EXPECT_LAYOUT(pti_view_record_memory_fill_v2, _engine_index, 148);
// pti_view_record_external_correlation
static_assert(sizeof(pti_view_record_external_correlation) == 24);
EXPECT_LAYOUT(pti_view_record_external_correlation, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_external_correlation, _correlation_id, 4);
EXPECT_LAYOUT(pti_view_record_external_correlation, _external_id, 8);
EXPECT_LAYOUT(pti_view_record_external_correlation, _external_kind, 16);
// pti_view_record_api
static_assert(sizeof(pti_view_record_api) == 48);
EXPECT_LAYOUT(pti_view_record_api, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_api, _start_timestamp, 8);
EXPECT_LAYOUT(pti_view_record_api, _end_timestamp, 16);
EXPECT_LAYOUT(pti_view_record_api, _api_group, 24);
EXPECT_LAYOUT(pti_view_record_api, _api_id, 28);
EXPECT_LAYOUT(pti_view_record_api, _process_id, 32);
EXPECT_LAYOUT(pti_view_record_api, _thread_id, 36);
EXPECT_LAYOUT(pti_view_record_api, _correlation_id, 40);
EXPECT_LAYOUT(pti_view_record_api, _return_code, 44);
// pti_view_record_overhead
static_assert(sizeof(pti_view_record_overhead) == 56);
EXPECT_LAYOUT(pti_view_record_overhead, _view_kind, 0);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_start_timestamp_ns, 8);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_end_timestamp_ns, 16);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_thread_id, 24);
EXPECT_LAYOUT(pti_view_record_overhead, _api_id, 28);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_count, 32);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_duration_ns, 40);
EXPECT_LAYOUT(pti_view_record_overhead, _overhead_kind, 48);

// Each v2 record extends its v1 record: a v1 reader of a v2 buffer sees the same fields (what
// PTI's own headers assert).
static_assert(offsetof(pti_view_record_kernel_v2, _device_handle) ==
              sizeof(pti_view_record_kernel));
static_assert(offsetof(pti_view_record_memory_copy_v2, _device_handle) ==
              sizeof(pti_view_record_memory_copy));
static_assert(offsetof(pti_view_record_memory_fill_v2, _device_handle) ==
              sizeof(pti_view_record_memory_fill));
static_assert(offsetof(pti_view_record_memory_copy_p2p_v2, _src_device_handle) ==
              sizeof(pti_view_record_memory_copy_p2p));
static_assert(sizeof(pti_view_record_base) == 4);
static_assert(sizeof(pti_version) == 12);  // (real headers)
EXPECT_LAYOUT(pti_version, _major, 0);
EXPECT_LAYOUT(pti_version, _minor, 4);
EXPECT_LAYOUT(pti_version, _patch, 8);

// Every enum is 4 bytes (PTI_STATIC_ASSERT in the headers).
static_assert(sizeof(pti_result) == 4);
static_assert(sizeof(pti_view_kind) == 4);
static_assert(sizeof(pti_view_memory_type) == 4);
static_assert(sizeof(pti_view_memcpy_type) == 4);
static_assert(sizeof(pti_view_external_kind) == 4);
static_assert(sizeof(pti_view_overhead_kind) == 4);
static_assert(sizeof(pti_api_group_id) == 4);
static_assert(sizeof(pti_api_class) == 4);

// ---- Constants (SDK-ABI.md, "PTI: constants") ----
static_assert(PTI_SUCCESS == 0);
static_assert(PTI_STATUS_END_OF_BUFFER == 1);
static_assert(PTI_VIEW_DEVICE_GPU_KERNEL == 1);
static_assert(PTI_VIEW_DRIVER_API == 3);
static_assert(PTI_VIEW_COLLECTION_OVERHEAD == 5);
static_assert(PTI_VIEW_RUNTIME_API == 6);
static_assert(PTI_VIEW_EXTERNAL_CORRELATION == 7);
static_assert(PTI_VIEW_DEVICE_GPU_MEM_COPY == 8);
static_assert(PTI_VIEW_DEVICE_GPU_MEM_FILL == 9);
static_assert(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0 == 2);
static_assert(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1 == 3);
static_assert(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3 == 5);
static_assert(PTI_MAX_PCI_ADDRESS_SIZE == 16);
static_assert(PTI_MAX_DEVICE_UUID_SIZE == 16);
// SDK-ABI.md prints -2; the header's value is unsigned: 0xFFFFFFFFFFFFFFFF - 1 (real headers).
static_assert(uint64_t{PTI_INVALID_QUEUE_ID} == UINT64_MAX - 1);
// ROCM-PTI-FACTS.md (view kinds, external kinds, result codes) and the real headers.
static_assert(PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P == 10);
static_assert(PTI_VIEW_DEVICE_SYNCHRONIZATION == 11);
static_assert(PTI_VIEW_COMMUNICATION == 12);
static_assert(PTI_VIEW_EXTERNAL_KIND_CUSTOM_2 == 4);
static_assert(PTI_ERROR_BAD_ARGUMENT == 3);
static_assert(PTI_ERROR_NO_CALLBACKS_SET == 4);
static_assert(PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY == 5);
static_assert(PTI_ERROR_TRACING_NOT_INITIALIZED == 51);
static_assert(PTI_ERROR_INTERNAL == 200);
static_assert(PTI_API_GROUP_LEVELZERO == 1);
static_assert(PTI_API_GROUP_SYCL == 3);
static_assert(PTI_API_CLASS_GPU_OPERATION_CORE == 1);
static_assert(PTI_VIEW_MEMORY_TYPE_DEVICE == 2);  // (real headers)
static_assert(PTI_VIEW_MEMCPY_TYPE_M2D == 2);     // (real headers)
static_assert(PTI_VIEW_MEMCPY_TYPE_H2D == 6);     // (real headers)
static_assert(PTI_VIEW_MEMCPY_TYPE_D2H == 9);     // (real headers)
static_assert(PTI_VIEW_MEMCPY_TYPE_D2D == 10);    // (real headers)
// API ids: graph submissions from ROCM-PTI-FACTS.md; the others (real headers, generated by PTI
// from Unified Runtime v0.12 and its Level Zero headers).
static_assert(urEnqueueCommandBufferExp_id == 242);
static_assert(urEnqueueGraphExp_id == 308);
static_assert(urEnqueueKernelLaunch_id == 17);
static_assert(urEnqueueUSMFill_id == 32);
static_assert(urEnqueueUSMMemcpy_id == 33);
static_assert(urQueueCreate_id == 92);
static_assert(urQueueFinish_id == 97);
static_assert(urCommandBufferFinalizeExp_id == 123);
static_assert(urCommandBufferAppendKernelLaunchExp_id == 125);
static_assert(urEnqueueKernelLaunchWithArgsExp_id == 295);
static_assert(zeCommandQueueExecuteCommandLists_id == 31);
static_assert(zeCommandListAppendMemoryCopy_id == 41);
static_assert(zeCommandListAppendMemoryFill_id == 42);
static_assert(zeCommandListAppendLaunchKernel_id == 55);

// ---- Prototypes ----
template <typename A, typename B>
constexpr bool kSameType = std::is_same_v<A, B>;

static_assert(kSameType<pti_fptr_buffer_requested, void (*)(unsigned char**, size_t*)>);
static_assert(kSameType<pti_fptr_buffer_completed, void (*)(unsigned char*, size_t, size_t)>);
static_assert(kSameType<pti_fptr_get_timestamp, uint64_t (*)()>);
static_assert(kSameType<decltype(&ptiViewSetCallbacks),
                        pti_result (*)(pti_fptr_buffer_requested, pti_fptr_buffer_completed)>);
static_assert(kSameType<decltype(&ptiViewEnable), pti_result (*)(pti_view_kind)>);
static_assert(kSameType<decltype(&ptiViewDisable), pti_result (*)(pti_view_kind)>);
static_assert(kSameType<decltype(&ptiFlushAllViews), pti_result (*)()>);
static_assert(kSameType<decltype(&ptiViewGetNextRecord),
                        pti_result (*)(uint8_t*, size_t, pti_view_record_base**)>);
static_assert(kSameType<decltype(&ptiViewPushExternalCorrelationId),
                        pti_result (*)(pti_view_external_kind, uint64_t)>);
static_assert(kSameType<decltype(&ptiViewPopExternalCorrelationId),
                        pti_result (*)(pti_view_external_kind, uint64_t*)>);
static_assert(kSameType<decltype(&ptiViewGetTimestamp), uint64_t (*)()>);
static_assert(
    kSameType<decltype(&ptiViewSetTimestampCallback), pti_result (*)(pti_fptr_get_timestamp)>);
static_assert(kSameType<decltype(&ptiViewGetApiIdName),
                        pti_result (*)(pti_api_group_id, uint32_t, const char**)>);
static_assert(kSameType<decltype(&ptiViewEnableRuntimeApiClass),
                        pti_result (*)(uint32_t, pti_api_class, pti_api_group_id)>);
static_assert(kSameType<decltype(&ptiVersion), pti_version (*)()>);
static_assert(kSameType<decltype(&ptiVersionString), const char* (*)()>);
static_assert(kSameType<decltype(&ptiResultTypeToString), const char* (*)(pti_result)>);

TEST(PtiSdkAbi, DeclaredVersionIsOnePointZeroOrLater) {
  EXPECT_GE(PTI_VERSION_MAJOR, 1);
#if !NODESCOPE_XPU_REAL_SDK
  EXPECT_STREQ(PTI_VERSION_STRING, "1.0.0");
#endif
}

// The largest record a buffer must hold (PTI refuses a first buffer smaller than it): the v2 P2P
// copy in PTI 1.0 (view_record_info.h's table).
TEST(PtiSdkAbi, LargestRecordIsTheP2pCopyV2) {
  EXPECT_EQ(sizeof(pti_view_record_memory_copy_p2p_v2), 192u);
  EXPECT_GT(sizeof(pti_view_record_memory_copy_p2p_v2), sizeof(pti_view_record_kernel_v2));
}

}  // namespace
