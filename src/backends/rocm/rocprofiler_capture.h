// Capture-time ranges on rocprofiler-sdk, which gives graph nodes no ids: reconstructed from the
// HIP runtime API callbacks on the application's threads. While a stream captures
// (hipStreamBeginCapture ... hipStreamEndCapture), each hipLaunchKernel on it is a node, and the
// user range open on the launching thread is its scope; at hipStreamEndCapture those ranges, in
// launch order, belong to the graph returned. An exec instantiated from (or updated to) that graph
// runs them as its dispatch ordinals 0, 1, ... (ReconstructingStage::ExecScopes).
//
// Captures forked to other streams (an event recorded on a capturing stream and waited on by
// another, which then captures into the same graph until the capture ends) are followed through
// hipEventRecord / hipStreamWaitEvent. Their exec does not run the nodes in capture order (HIP's
// CLR walks the graph breadth first), and nothing the SDK reports says which node a captured
// launch became: no HIP API callback argument names a node, and dispatch records carry no node.
// So a forked capture's ranges go by kernel instead: a kernel all of whose captured launches had
// one range has that range on whatever node it became (its name from the host kernel symbol the
// SDK reports for the launch's function address, HOST_KERNEL_SYMBOL_REGISTER); a kernel captured
// under two ranges, or one whose name is unknown, gets none and is counted (unscoped_launches).
//
// Assumed, and where it fails:
//  * A single-stream capture is a chain, so the exec runs its nodes in capture order. Node kinds
//    not followed (hipModuleLaunchKernel, hipExtLaunchKernel, copies, memsets) are invisible:
//    the launch then makes more dispatches than launches seen here, and the stage gives no scope
//    (never a wrong one), for forked captures too. What this cannot see: an unfollowed node
//    replacing a followed one for one.
//  * Graphs built node by node with hipGraphAddKernelNode are followed only as a chain (each node's
//    only dependency the node added before it; the first none): a graph built any other way, or
//    a captured graph a node is added to, is forgotten (no scope). Nodes added by calls not
//    followed (copies, empty or event nodes) end the chain where they are a dependency, and
//    otherwise show in the dispatch count as above. Cloned graphs are not followed.
//  * Graph handles: a destroyed graph's ranges are forgotten as hipGraphDestroy enters (HIP may
//    hand the address out again).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nodescope::rocprofiler {

class CaptureTracker {
 public:
  // Each as the HIP call returns with success, on the calling thread.
  void BeginCapture(uint64_t stream);
  // A kernel (`function`: its host stub) launched on `stream` while `range` (0: none) was the
  // innermost open user range.
  void KernelLaunched(uint64_t stream, uint64_t range, uint64_t function = 0) {
    if (capturing_.load(std::memory_order_acquire) == 0) [[likely]]
      return;
    KernelLaunchedSlow(stream, range, function);
  }
  // hipEventRecord / hipStreamWaitEvent: forks and joins of a capture.
  void EventRecorded(uint64_t event, uint64_t stream) {
    if (capturing_.load(std::memory_order_acquire) == 0) [[likely]]
      return;
    EventRecordedSlow(event, stream);
  }
  void StreamWaited(uint64_t stream, uint64_t event);
  // hipGraphAddKernelNode added `node` to `graph` depending on `deps[0..n)` while `range` was open.
  void KernelNodeAdded(uint64_t graph, uint64_t node, const uint64_t* deps, size_t n,
                       uint64_t range);
  // Returns with `graph` (0: the capture failed) given the stream's ranges.
  void EndCapture(uint64_t stream, uint64_t graph);
  void GraphDestroyed(uint64_t graph);
  // The SDK's host kernel symbol: the kernel a launch of `function` runs.
  void HostKernel(uint64_t function, const char* name);

  // The ranges of a followed graph's nodes in launch order; empty when not a followed chain.
  std::vector<uint64_t> RangesOf(uint64_t graph);
  // A forked capture's ranges by kernel name, and how many launches it followed (0: not one).
  std::vector<std::pair<std::string, uint64_t>> KernelRangesOf(uint64_t graph, uint32_t* launches);
  // Launches under a range in forked captures that no range could be given to (their kernel was
  // captured under two ranges, or its name is unknown).
  uint64_t unscoped_launches() const { return unscoped_.load(std::memory_order_relaxed); }

 private:
  struct Capture {
    std::vector<uint64_t> ranges;     // by launch, in launch order
    std::vector<uint64_t> functions;  // the same launches' host functions
    bool forked = false;
  };
  void KernelLaunchedSlow(uint64_t stream, uint64_t range, uint64_t function);
  void EventRecordedSlow(uint64_t event, uint64_t stream);

  std::mutex mu_;
  std::atomic<uint32_t> capturing_{0};  // streams capturing now (forked ones too)
  std::atomic<uint64_t> unscoped_{0};
  struct Graph {
    std::vector<uint64_t> ranges;  // by node, in the order the exec runs them
    uint64_t last_node = 0;        // built node by node: the chain's end
    bool captured = false;
    bool broken = false;                                      // not a chain we followed: forgotten
    std::vector<std::pair<std::string, uint64_t>> by_kernel;  // forked capture
    uint32_t launches = 0;                                    // forked capture: launches followed
  };
  std::unordered_map<uint64_t, std::shared_ptr<Capture>> streams_;  // capturing streams
  std::unordered_map<uint64_t, std::shared_ptr<Capture>> events_;   // recorded while capturing
  std::unordered_map<uint64_t, std::string> host_kernels_;          // function -> kernel name
  std::unordered_map<uint64_t, Graph> graphs_;
};

}  // namespace nodescope::rocprofiler
