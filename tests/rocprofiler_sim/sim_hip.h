// The small "HIP runtime" of the simulated rocprofiler-sdk (librocprofiler-sdk.so built from
// tests/rocprofiler_sim/): what a test program calls instead of HIP. Each call behaves towards
// the tool as the HIP call of the same name does under the real SDK (HIP runtime API callbacks and
// records with its rocprofiler operation id, correlation ids, stream callbacks, dispatch and copy
// records, code-object and kernel-symbol callbacks). Every call returns 0 on success, like
// hipSuccess.
//
// Environment read by the runtime:
//   SIM_DEVICE_COUNT      devices (agents), default 2
//   GPU_MAX_HW_QUEUES     hardware queues per device, default 4 (HIP's name and default)
//   SIM_HAZARD_PERCENT    chance, in percent, that a packet of a graph launch is left pending
//                         for the next thread ringing its queue's doorbell while one other
//                         thread launches on that queue; k others: times k(k+1)/2 (default 1.5,
//                         calibrated: see sim_hip.cc)
//   SIM_SEED              seed of the hazard's random choices (default 1)
//   SIM_ASYNC_PERCENT     chance, in percent per packet processed with more pending, that ROCr's
//                         overflow path leaves the rest of the queue to its async thread (0)
//   SIM_WORKER_PERCENT    chance, in percent, that a plain launch goes to HIP's worker thread (0)
//   AMD_DIRECT_DISPATCH   0: every launch (plain and graph) written by HIP's worker thread
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef struct SimStream* simStream_t;
typedef struct SimGraph* simGraph_t;
typedef struct SimGraphNode* simGraphNode_t;
typedef struct SimGraphExec* simGraphExec_t;
typedef struct SimFunction* simFunction_t;
typedef struct SimEvent* simEvent_t;

enum { simSuccess = 0, simErrorInvalidValue = 1, simErrorGraphExecUpdateFailure = 910 };
enum simMemcpyKind {
  simMemcpyHostToHost = 0,
  simMemcpyHostToDevice = 1,
  simMemcpyDeviceToHost = 2,
  simMemcpyDeviceToDevice = 3,
};

int simhipGetDeviceCount(int* count);
int simhipSetDevice(int device);  // this thread's current device, as in HIP
int simhipDeviceSynchronize(void);

// A stream on the current device. It is given a hardware queue of its device in creation order.
int simhipStreamCreate(simStream_t* stream);
int simhipStreamDestroy(simStream_t stream);
int simhipStreamSynchronize(simStream_t stream);

// Loads one code object holding these kernels on every device (code-object LOAD and one
// DEVICE_KERNEL_SYMBOL_REGISTER callback per kernel and device); functions[i] names kernel i.
int simhipModuleLoad(const char* const* kernel_names, int count, simFunction_t* functions);
int simhipLaunchKernel(simFunction_t function, simStream_t stream);
int simhipMemcpyAsync(void* dst, const void* src, size_t bytes, int kind, simStream_t stream);

int simhipGraphCreate(simGraph_t* graph);
int simhipGraphAddKernelNode(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                             size_t num_deps, simFunction_t function);
// Copy and memset nodes as HIP's CLR runs them (sim_runtime.h, SimNodeOp): a device-to-device
// copy and a memset are dispatches of CLR's blit kernels (__amd_rocclr_copyBuffer,
// __amd_rocclr_fillBufferAligned, grid by size); a copy to or from host memory is an SDMA copy
// (a MEMORY_COPY record) the launching thread submits in its turn. Host to host is refused.
int simhipGraphAddMemcpyNode1D(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                               size_t num_deps, void* dst, const void* src, size_t bytes, int kind);
int simhipGraphAddMemsetNode(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                             size_t num_deps, void* dst, int value, size_t bytes);
int simhipGraphDestroy(simGraph_t graph);
// An exec's address is reused at once by the next instantiation after it is destroyed, as HIP's
// allocator does.
int simhipGraphInstantiate(simGraphExec_t* exec, simGraph_t graph);
int simhipGraphInstantiateWithFlags(simGraphExec_t* exec, simGraph_t graph,
                                    unsigned long long flags);  // flags are ignored
// Same topology required (node count and dependencies), else simErrorGraphExecUpdateFailure.
int simhipGraphExecUpdate(simGraphExec_t exec, simGraph_t graph);
// `node` is the template graph's node, as in HIP.
int simhipGraphExecKernelNodeSetParams(simGraphExec_t exec, simGraphNode_t node,
                                       simFunction_t function);
int simhipGraphExecDestroy(simGraphExec_t exec);
int simhipGraphLaunch(simGraphExec_t exec, simStream_t stream);

// Kernel launches on a capturing stream are recorded as nodes (after the stream's last captured
// node), not run.
int simhipStreamBeginCapture(simStream_t stream);
int simhipStreamEndCapture(simStream_t stream, simGraph_t* graph);

// Events, for forking a capture: an event recorded on a capturing stream and waited on by another
// stream brings that stream into the capture (its kernels become nodes after the recording
// stream's last ones); recorded there and waited on by the first, it joins back. Every stream
// forked into a capture leaves it when the capture ends. Outside capture they do nothing.
int simhipEventCreate(simEvent_t* event);
int simhipEventRecord(simEvent_t event, simStream_t stream);
int simhipStreamWaitEvent(simStream_t stream, simEvent_t event, unsigned int flags);

// ROCTx (roctx.h of rocprofiler-sdk-roctx) as the real SDK's marker library delivers it: each
// call gives the tool MARKER_CORE_API callbacks on the calling thread, ENTER then EXIT, with the
// payload rocprofiler_callback_tracing_marker_api_data_t (the message or the range id in args; the
// result in retval, set before EXIT). Push returns the 0-based level of the range pushed, Pop that
// of the range popped (-1 when none); StartA returns the id (from 1, process-wide) Stop takes.
int simroctxRangePushA(const char* message);
int simroctxRangePop(void);
uint64_t simroctxRangeStartA(const char* message);
void simroctxRangeStop(uint64_t id);
void simroctxMarkA(const char* message);

// What the simulator knows and a real GPU would not tell: how many dispatches were written to a
// hardware queue by a thread other than the one that launched them (the hazard's victims).
uint64_t simhipCrossThreadDispatches(void);
// Of those, how many ROCr's async thread or HIP's worker thread processed (issue 29).
uint64_t simhipRuntimeThreadDispatches(void);

}  // extern "C"
