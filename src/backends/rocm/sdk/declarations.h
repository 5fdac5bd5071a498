// nodescope's own declarations of the rocprofiler-sdk 1.0 subset the AMD backend uses, written
// from the documented API (../shared/docs/SDK-ABI.md, ROCM-PTI-FACTS.md); not the SDK's headers.
// Included only through rocprofiler_sdk.h, and only when CMake did not find the real SDK. Names,
// values and layouts are the SDK's so that code compiles unchanged against either;
// declarations_test.cc pins every size, offset and constant. What is left out on purpose:
//   - enumerators the backend does not use (each enum keeps its name and 4-byte size; the values
//     declared are the SDK's, explicit, so a gap cannot shift them);
//   - HIP's own types: the HIP API arguments are declared with `void*` handles (`hipGraphExec_t`,
//     `hipStream_t` ... are pointers in HIP), so no HIP header is needed or clashed with;
//   - counters, PC sampling, and every domain other than HIP runtime, code objects, kernel
//     dispatch, memory copy and HIP streams (agents: declarations_agent.h; HIP:
//     declarations_hip.h).
#pragma once

#include <stddef.h>
#include <stdint.h>

// Says that these declarations, not the SDK's headers, are in use.
#define NODESCOPE_ROCPROFILER_OWN_DECLARATIONS 1

#define ROCPROFILER_VERSION_MAJOR 1
#define ROCPROFILER_VERSION_MINOR 0
#define ROCPROFILER_VERSION_PATCH 0
#define ROCPROFILER_VERSION 10000  // major * 10000 + minor * 100 + patch, as the SDK computes it

extern "C" {

// ---- fwd.h: status, kinds, operations ---------------------------------------------------------

typedef enum rocprofiler_status_t {
  ROCPROFILER_STATUS_SUCCESS = 0,
  ROCPROFILER_STATUS_ERROR = 1,
  ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND = 2,
  ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND = 3,
  ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND = 4,
  ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND = 5,
  ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND = 6,
  ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID = 10,
  ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED = 11,
  ROCPROFILER_STATUS_ERROR_BUFFER_BUSY = 14,
  ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED = 15,
  ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED = 16,
  ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED = 17,
  ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI = 18,
  ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT = 19,
  ROCPROFILER_STATUS_ERROR_FINALIZED = 21,
} rocprofiler_status_t;

typedef enum rocprofiler_buffer_category_t {
  ROCPROFILER_BUFFER_CATEGORY_NONE = 0,
  ROCPROFILER_BUFFER_CATEGORY_TRACING = 1,
} rocprofiler_buffer_category_t;

typedef enum rocprofiler_callback_phase_t {
  ROCPROFILER_CALLBACK_PHASE_NONE = 0,
  ROCPROFILER_CALLBACK_PHASE_ENTER = 1,
  ROCPROFILER_CALLBACK_PHASE_LOAD = 1,  // code objects: LOAD is ENTER
  ROCPROFILER_CALLBACK_PHASE_EXIT = 2,
  ROCPROFILER_CALLBACK_PHASE_UNLOAD = 2,  // and UNLOAD is EXIT
} rocprofiler_callback_phase_t;

typedef enum rocprofiler_callback_tracing_kind_t {
  ROCPROFILER_CALLBACK_TRACING_NONE = 0,
  ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API = 5,
  ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API = 7,  // declarations_marker.h
  ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT = 10,
  ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH = 12,
  ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY = 13,
  ROCPROFILER_CALLBACK_TRACING_HIP_STREAM = 20,
} rocprofiler_callback_tracing_kind_t;

typedef enum rocprofiler_buffer_tracing_kind_t {
  ROCPROFILER_BUFFER_TRACING_NONE = 0,
  ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API = 5,
  ROCPROFILER_BUFFER_TRACING_MEMORY_COPY = 10,
  ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH = 11,
  ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT = 13,
} rocprofiler_buffer_tracing_kind_t;

typedef enum rocprofiler_code_object_operation_t {
  ROCPROFILER_CODE_OBJECT_NONE = 0,
  ROCPROFILER_CODE_OBJECT_LOAD = 1,
  ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER = 2,
  ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER = 3,
} rocprofiler_code_object_operation_t;

typedef enum rocprofiler_hip_stream_operation_t {
  ROCPROFILER_HIP_STREAM_NONE = 0,
  ROCPROFILER_HIP_STREAM_CREATE = 1,
  ROCPROFILER_HIP_STREAM_DESTROY = 2,
  ROCPROFILER_HIP_STREAM_SET = 3,  // ENTER/EXIT around every HIP call taking a stream
} rocprofiler_hip_stream_operation_t;

typedef enum rocprofiler_memory_copy_operation_t {
  ROCPROFILER_MEMORY_COPY_NONE = 0,
  ROCPROFILER_MEMORY_COPY_HOST_TO_HOST = 1,
  ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE = 2,
  ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST = 3,
  ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE = 4,
} rocprofiler_memory_copy_operation_t;

typedef enum rocprofiler_kernel_dispatch_operation_t {
  ROCPROFILER_KERNEL_DISPATCH_NONE = 0,
  ROCPROFILER_KERNEL_DISPATCH_ENQUEUE = 1,
  ROCPROFILER_KERNEL_DISPATCH_COMPLETE = 2,  // the only operation buffer tracing reports
} rocprofiler_kernel_dispatch_operation_t;

typedef enum rocprofiler_buffer_policy_t {
  ROCPROFILER_BUFFER_POLICY_NONE = 0,
  ROCPROFILER_BUFFER_POLICY_DISCARD = 1,   // drop records when the buffer is full
  ROCPROFILER_BUFFER_POLICY_LOSSLESS = 2,  // block the producer until there is room
} rocprofiler_buffer_policy_t;

// ---- fwd.h: scalar ids, handles, correlation ids ----------------------------------------------

typedef uint64_t rocprofiler_timestamp_t;  // ns, CLOCK_BOOTTIME
typedef uint64_t rocprofiler_thread_id_t;  // gettid()
typedef int32_t rocprofiler_tracing_operation_t;
typedef uint64_t rocprofiler_kernel_id_t;
typedef uint64_t rocprofiler_dispatch_id_t;

typedef union rocprofiler_user_data_t {
  uint64_t value;
  void* ptr;
} rocprofiler_user_data_t;

typedef union rocprofiler_address_t {
  uint64_t handle;
  uint64_t value;
  const void* ptr;
} rocprofiler_address_t;

typedef struct rocprofiler_context_id_t {
  uint64_t handle;
} rocprofiler_context_id_t;
typedef struct rocprofiler_queue_id_t {
  uint64_t handle;
} rocprofiler_queue_id_t;
typedef struct rocprofiler_stream_id_t {
  uint64_t handle;
} rocprofiler_stream_id_t;
typedef struct rocprofiler_buffer_id_t {
  uint64_t handle;
} rocprofiler_buffer_id_t;
typedef struct rocprofiler_agent_id_t {
  uint64_t handle;
} rocprofiler_agent_id_t;

typedef struct rocprofiler_dim3_t {
  uint32_t x;
  uint32_t y;
  uint32_t z;
} rocprofiler_dim3_t;

// API calls: `internal` is the SDK's id; `external` what the tool supplied (pushed or requested).
typedef struct rocprofiler_correlation_id_t {
  uint64_t internal;
  rocprofiler_user_data_t external;
  uint64_t ancestor;
} rocprofiler_correlation_id_t;

// Asynchronous records (dispatches, copies): the ids of the call that enqueued them.
typedef struct rocprofiler_async_correlation_id_t {
  uint64_t internal;
  rocprofiler_user_data_t external;
} rocprofiler_async_correlation_id_t;

#define ROCPROFILER_CORRELATION_ID_INTERNAL_NONE UINT64_C(0)
#define ROCPROFILER_CONTEXT_NONE (rocprofiler_context_id_t{0})

typedef struct rocprofiler_callback_tracing_record_t {
  rocprofiler_context_id_t context_id;
  rocprofiler_thread_id_t thread_id;
  rocprofiler_correlation_id_t correlation_id;
  rocprofiler_callback_tracing_kind_t kind;
  rocprofiler_tracing_operation_t operation;
  rocprofiler_callback_phase_t phase;
  void* payload;
} rocprofiler_callback_tracing_record_t;

typedef struct rocprofiler_record_header_t {
  union {
    __extension__ struct {
      uint32_t category;  // rocprofiler_buffer_category_t
      uint32_t kind;      // rocprofiler_buffer_tracing_kind_t for the tracing category
    };
    uint64_t hash;  // category | kind << 32
  };
  void* payload;
} rocprofiler_record_header_t;

typedef struct rocprofiler_kernel_dispatch_info_t {
  uint64_t size;
  rocprofiler_agent_id_t agent_id;
  rocprofiler_queue_id_t queue_id;  // the hardware queue, not the HIP stream
  rocprofiler_kernel_id_t kernel_id;
  rocprofiler_dispatch_id_t dispatch_id;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  rocprofiler_dim3_t workgroup_size;
  rocprofiler_dim3_t grid_size;
  uint8_t reserved_padding[56];
} rocprofiler_kernel_dispatch_info_t;

// ---- registration.h ---------------------------------------------------------------------------

typedef struct rocprofiler_client_id_t {
  size_t size;
  const char* name;       // the tool may set it
  const uint32_t handle;  // set by the SDK
} rocprofiler_client_id_t;

typedef void (*rocprofiler_client_finalize_t)(rocprofiler_client_id_t);
typedef int (*rocprofiler_tool_initialize_t)(rocprofiler_client_finalize_t finalize_func,
                                             void* tool_data);
typedef void (*rocprofiler_tool_finalize_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_result_t {
  size_t size;
  rocprofiler_tool_initialize_t initialize;
  rocprofiler_tool_finalize_t finalize;
  void* tool_data;
} rocprofiler_tool_configure_result_t;

typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_func_t)(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_t* client_id);

// Defined by the tool, called by the SDK (found in ROCP_TOOL_LIBRARIES or the process).
__attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t version, const char* runtime_version, uint32_t priority,
    rocprofiler_client_id_t* client_id);

rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func);
rocprofiler_status_t rocprofiler_is_initialized(int* status);
rocprofiler_status_t rocprofiler_is_finalized(int* status);

// ---- rocprofiler.h, context.h -----------------------------------------------------------------

rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch);
rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts);
rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid);
const char* rocprofiler_get_status_string(rocprofiler_status_t status);

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id);
rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id);
rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id);
rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id,
                                                   int* status);

// ---- buffer.h, buffer_tracing.h ---------------------------------------------------------------

typedef void (*rocprofiler_buffer_tracing_cb_t)(rocprofiler_context_id_t context,
                                                rocprofiler_buffer_id_t buffer_id,
                                                rocprofiler_record_header_t** headers,
                                                size_t num_headers, void* data,
                                                uint64_t drop_count);

rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size,
                                               size_t watermark, rocprofiler_buffer_policy_t policy,
                                               rocprofiler_buffer_tracing_cb_t callback,
                                               void* callback_data,
                                               rocprofiler_buffer_id_t* buffer_id);
rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id);
rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id);

rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_buffer_id_t buffer_id);

typedef struct rocprofiler_buffer_tracing_hip_api_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_tracing_operation_t operation;  // rocprofiler_hip_runtime_api_id_t
  rocprofiler_correlation_id_t correlation_id;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_thread_id_t thread_id;
} rocprofiler_buffer_tracing_hip_api_record_t;

typedef struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_kernel_dispatch_operation_t operation;
  rocprofiler_async_correlation_id_t correlation_id;
  rocprofiler_thread_id_t thread_id;  // the thread that wrote the packet
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_buffer_tracing_kernel_dispatch_record_t;

typedef struct rocprofiler_buffer_tracing_memory_copy_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_memory_copy_operation_t operation;
  rocprofiler_async_correlation_id_t correlation_id;
  rocprofiler_thread_id_t thread_id;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_agent_id_t dst_agent_id;
  rocprofiler_agent_id_t src_agent_id;
  uint64_t bytes;
  rocprofiler_address_t dst_address;
  rocprofiler_address_t src_address;
} rocprofiler_buffer_tracing_memory_copy_record_t;

typedef struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
  uint64_t size;
  rocprofiler_buffer_tracing_kind_t kind;
  rocprofiler_timestamp_t timestamp;
  uint64_t internal_correlation_id;
} rocprofiler_buffer_tracing_correlation_id_retirement_record_t;

}  // extern "C"

#include "backends/rocm/sdk/declarations_agent.h"
#include "backends/rocm/sdk/declarations_hip.h"
#include "backends/rocm/sdk/declarations_marker.h"

extern "C" {

// ---- callback_tracing.h -----------------------------------------------------------------------

typedef struct rocprofiler_callback_tracing_hip_api_data_t {
  uint64_t size;
  rocprofiler_hip_api_args_t args;
  rocprofiler_hip_api_retval_t retval;
} rocprofiler_callback_tracing_hip_api_data_t;

typedef enum rocprofiler_code_object_storage_type_t {
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE = 0,
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE = 1,
  ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY = 2,
} rocprofiler_code_object_storage_type_t;

typedef struct rocprofiler_callback_tracing_code_object_load_data_t {
  uint64_t size;
  uint64_t code_object_id;
  union {
    rocprofiler_agent_id_t rocp_agent;  // the SDK's deprecated name
    rocprofiler_agent_id_t agent_id;
  };
  uint64_t hsa_agent_handle_;  // the SDK's `hsa_agent_t hsa_agent` (deprecated), not declared
  const char* uri;
  uint64_t load_base;
  uint64_t load_size;
  int64_t load_delta;
  rocprofiler_code_object_storage_type_t storage_type;
  union {
    __extension__ struct { int storage_file; };
    __extension__ struct {
      uint64_t memory_base;
      uint64_t memory_size;
    };
  };
} rocprofiler_callback_tracing_code_object_load_data_t;

typedef struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
  uint64_t size;
  uint64_t kernel_id;  // what dispatch_info.kernel_id refers to
  uint64_t code_object_id;
  const char* kernel_name;
  uint64_t kernel_object;
  uint32_t kernarg_segment_size;
  uint32_t kernarg_segment_alignment;
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  uint32_t sgpr_count;
  uint32_t arch_vgpr_count;
  uint32_t accum_vgpr_count;
  int64_t kernel_code_entry_byte_offset;
  rocprofiler_address_t kernel_address;
} rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

// The host stub of a kernel (what hipLaunchKernel's function_address is) and its device name.
typedef struct rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t {
  uint64_t size;
  uint64_t host_function_id;
  uint64_t kernel_id;
  uint64_t code_object_id;
  rocprofiler_address_t host_function;
  rocprofiler_address_t modules;
  const char* device_function;
  uint32_t thread_limit;
  rocprofiler_dim3_t thread_ids;
  rocprofiler_dim3_t block_ids;
  rocprofiler_dim3_t block_dims;
  rocprofiler_dim3_t grid_dims;
  uint64_t workgroup_size;
} rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t;

typedef struct rocprofiler_callback_tracing_kernel_dispatch_data_t {
  uint64_t size;
  rocprofiler_timestamp_t start_timestamp;
  rocprofiler_timestamp_t end_timestamp;
  rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_callback_tracing_kernel_dispatch_data_t;

typedef struct rocprofiler_callback_tracing_hip_stream_data_t {
  uint64_t size;
  rocprofiler_stream_id_t stream_id;
  rocprofiler_address_t stream_value;
} rocprofiler_callback_tracing_hip_stream_data_t;

typedef void (*rocprofiler_callback_tracing_cb_t)(rocprofiler_callback_tracing_record_t record,
                                                  rocprofiler_user_data_t* user_data,
                                                  void* callback_data);

rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args);

// ---- external_correlation.h (the request service is marked experimental in the SDK) -----------

typedef enum rocprofiler_external_correlation_id_request_kind_t {
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_NONE = 0,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API = 5,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY = 10,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH = 11,
  ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_ALLOCATION = 15,
} rocprofiler_external_correlation_id_request_kind_t;

// Return 0 when *external_corr_id_value was set; anything else means "use the pushed value".
typedef int (*rocprofiler_external_correlation_id_request_cb_t)(
    rocprofiler_thread_id_t thread_id, rocprofiler_context_id_t context_id,
    rocprofiler_external_correlation_id_request_kind_t kind,
    rocprofiler_tracing_operation_t operation, uint64_t internal_corr_id_value,
    rocprofiler_user_data_t* external_corr_id_value, void* data);

rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id,
    const rocprofiler_external_correlation_id_request_kind_t* kinds, size_t kinds_count,
    rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args);

rocprofiler_status_t rocprofiler_push_external_correlation_id(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t external_correlation_id);
rocprofiler_status_t rocprofiler_pop_external_correlation_id(
    rocprofiler_context_id_t context, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t* external_correlation_id);

}  // extern "C"
