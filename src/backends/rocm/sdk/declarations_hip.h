// Part of nodescope's own rocprofiler-sdk declarations (declarations.h, which includes it): the
// HIP runtime API operation ids and call arguments, with `void*` for HIP's handle types.
#pragma once

#if !defined(NODESCOPE_ROCPROFILER_OWN_DECLARATIONS)
#error "include backends/rocm/sdk/rocprofiler_sdk.h instead"
#endif

#include <stddef.h>
#include <stdint.h>

extern "C" {

// ---- hip/runtime_api_id.h, hip/api_args.h -----------------------------------------------------

// Ids below hipGraphInstantiateWithParams (438) do not depend on the HIP headers' table version.
typedef enum rocprofiler_hip_runtime_api_id_t {
  ROCPROFILER_HIP_RUNTIME_API_ID_NONE = -1,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize = 66,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate = 76,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord = 81,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode = 124,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode1D = 128,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemsetNode = 131,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphCreate = 134,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy = 136,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy = 143,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams = 147,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate = 153,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate = 159,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags = 160,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch = 166,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel = 214,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy = 259,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync = 268,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice = 327,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture = 333,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate = 334,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy = 337,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture = 338,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize = 346,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent = 348,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch_spt = 420,
  ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams = 438,
} rocprofiler_hip_runtime_api_id_t;

// The arguments of the calls above; `void*` where HIP has a handle type (all pointers). The union
// is padded to the SDK's size with HIP 6.3 headers (88 bytes: its largest member).
typedef union rocprofiler_hip_api_args_t {
  struct {
    void* graphExec;  // hipGraphExec_t
    void* stream;     // hipStream_t
  } hipGraphLaunch, hipGraphLaunch_spt;
  struct {
    void* graphExec;
  } hipGraphExecDestroy;
  struct {
    void* hGraphExec;
    void* node;               // hipGraphNode_t
    const void* pNodeParams;  // const hipKernelNodeParams*
  } hipGraphExecKernelNodeSetParams;
  struct {
    void* hGraphExec;
    void* hGraph;            // hipGraph_t
    void** hErrorNode_out;   // hipGraphNode_t*
    void* updateResult_out;  // hipGraphExecUpdateResult*
  } hipGraphExecUpdate;
  struct {
    void** pGraphExec;  // out: valid on EXIT only
    void* graph;
    void** pErrorNode;
    void* pLogBuffer;
    size_t bufferSize;
  } hipGraphInstantiate;
  struct {
    void** pGraphExec;  // out: valid on EXIT only
    void* graph;
    unsigned long long flags;
  } hipGraphInstantiateWithFlags;
  struct {
    void** pGraphExec;  // out: valid on EXIT only
    void* graph;
    void* instantiateParams;  // hipGraphInstantiateParams*
  } hipGraphInstantiateWithParams;
  struct {
    void* graph;
  } hipGraphDestroy;
  struct {
    void** pGraphNode;  // out: valid on EXIT only
    void* graph;
    void* const* pDependencies;  // const hipGraphNode_t*
    size_t numDependencies;
    const void* pNodeParams;  // const hipKernelNodeParams*
  } hipGraphAddKernelNode;
  struct {
    void** pGraphNode;  // out: valid on EXIT only
    void* graph;
    void* const* pDependencies;
    size_t numDependencies;
    void* dst;
    const void* src;
    size_t count;
    int kind;  // hipMemcpyKind
  } hipGraphAddMemcpyNode1D;
  struct {
    void** pGraphNode;  // out: valid on EXIT only
    void* graph;
    void* const* pDependencies;
    size_t numDependencies;
    const void* pMemsetParams;  // const hipMemsetParams*
  } hipGraphAddMemsetNode;
  struct {
    const void* function_address;
    rocprofiler_dim3_t numBlocks;
    rocprofiler_dim3_t dimBlocks;
    void** args;
    size_t sharedMemBytes;
    void* stream;
  } hipLaunchKernel;
  struct {
    void* dst;
    const void* src;
    size_t sizeBytes;
    int kind;  // hipMemcpyKind
  } hipMemcpy;
  struct {
    void* dst;
    const void* src;
    size_t sizeBytes;
    int kind;  // hipMemcpyKind
    void* stream;
  } hipMemcpyAsync;
  struct {
    void* stream;
    int mode;  // hipStreamCaptureMode
  } hipStreamBeginCapture;
  struct {
    void* stream;
    void** pGraph;  // out: valid on EXIT only
  } hipStreamEndCapture;
  struct {
    void** stream;  // hipStream_t*, out
  } hipStreamCreate;
  struct {
    void* stream;
  } hipStreamDestroy, hipStreamSynchronize;
  struct {
    int deviceId;
  } hipSetDevice;
  struct {
    void** event;  // hipEvent_t*, out
  } hipEventCreate;
  struct {
    void* event;   // hipEvent_t
    void* stream;  // hipStream_t
  } hipEventRecord;
  struct {
    void* stream;
    void* event;
    unsigned int flags;
  } hipStreamWaitEvent;
  uint64_t reserved_size_[11];
} rocprofiler_hip_api_args_t;

typedef union rocprofiler_hip_api_retval_t {
  uint64_t uint64_t_retval;
  int int_retval;
  const char* const_charp_retval;
  int hipError_t_retval;       // hipError_t
  uint8_t reserved_size_[24];  // hipChannelFormatDesc_retval, the largest member
} rocprofiler_hip_api_retval_t;

}  // extern "C"
