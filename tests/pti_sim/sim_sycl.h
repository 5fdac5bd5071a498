// The simulated PTI's "SYCL / Level Zero runtime": what a test program calls to make GPU work that
// the simulated PTI (sim_view.cc) then reports, as a SYCL program over Level Zero would under the
// real PTI. Each call is one Unified Runtime call as PTI sees it (its name in the comment). GPU
// work runs on a modeled device clock; a queue's records are produced when the queue is waited on
// (PTI reports a GPU operation when it processes its completed event at a synchronization).
#pragma once

#include <cstdint>

namespace simsycl {

struct Queue;
struct Graph;
struct Exec;

enum class Copy { kHostToDevice, kDeviceToHost, kDeviceToDevice };

int DeviceCount();               // SIM_DEVICE_COUNT, default 2
Queue* CreateQueue(int device);  // urQueueCreate
int QueueDevice(const Queue* queue);
const void* QueueHandle(const Queue* queue);  // the Level Zero queue PTI reports for it
uint64_t QueueSyclId(const Queue* queue);     // its SYCL queue id

// urEnqueueKernelLaunch: `line` is the submission's source line (with the name, what the SYCL
// runtime's trace event for the kernel is made of: PTI's _sycl_node_id).
void Launch(Queue* queue, const char* kernel, uint64_t duration_ns, uint32_t line);
// urEnqueueUSMMemcpy; `peer` is the other device of a device-to-device copy (-1: the same).
void Memcpy(Queue* queue, Copy direction, uint64_t bytes, int peer = -1);
void Fill(Queue* queue, uint64_t bytes, uint8_t value);  // urEnqueueUSMFill
void Wait(Queue* queue);                                 // urQueueFinish

// A SYCL graph of kernel nodes (sycl_ext_oneapi_graph), finalized into a command buffer on a
// device (urCommandBufferAppendKernelLaunchExp per node, urCommandBufferFinalizeExp) and
// submitted (urEnqueueCommandBufferExp, or urEnqueueGraphExp when SIM_SYCL_GRAPH_API=graph).
Graph* CreateGraph(int device);
void AddKernel(Graph* graph, const char* kernel, uint64_t duration_ns, uint32_t line);
Exec* Finalize(Graph* graph);
void Submit(Queue* queue, Exec* exec);

// Ground truth: GPU operations the program issued, and those the simulator reported or lost.
struct Truth {
  uint64_t kernels_issued, copies_issued, fills_issued;
  uint64_t gpu_records, api_records, external_records;
  uint64_t records_dropped;  // a buffer refused (null / too small): PTI only logs these
};
Truth GetTruth();

}  // namespace simsycl
