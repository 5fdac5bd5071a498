// Capture-time ranges on rocprofiler-sdk, which gives graph nodes no ids: reconstructed from the
// HIP runtime API callbacks on the application's threads. While a stream captures
// (hipStreamBeginCapture ... hipStreamEndCapture), each hipLaunchKernel on it is a node, and the
// user range open on the launching thread is its scope; at hipStreamEndCapture those ranges, in
// launch order, belong to the graph returned. An exec instantiated from (or updated to) that graph
// runs them as its dispatch ordinals 0, 1, ... (ReconstructingStage::ExecScopes).
//
// Assumed, and where it fails:
//  * A single-stream capture is a chain, so the exec runs its nodes in capture order. Work forked
//    to another stream (an event recorded on the capturing stream and waited on by another) joins
//    the graph through calls not followed here; node kinds not followed (hipModuleLaunchKernel,
//    hipExtLaunchKernel, copies, memsets) are invisible too. Either way the launch makes more
//    dispatches than launches seen here, and the stage then gives no scope (never a wrong one).
//    What this cannot see: an unfollowed node replacing a followed one for one.
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
#include <mutex>
#include <unordered_map>
#include <vector>

namespace nodescope::rocprofiler {

class CaptureTracker {
 public:
  // Each as the HIP call returns with success, on the calling thread.
  void BeginCapture(uint64_t stream);
  // A kernel launched on `stream` while `range` (0: none) was the innermost open user range.
  void KernelLaunched(uint64_t stream, uint64_t range) {
    if (capturing_.load(std::memory_order_acquire) == 0) [[likely]]
      return;
    KernelLaunchedSlow(stream, range);
  }
  // hipGraphAddKernelNode added `node` to `graph` depending on `deps[0..n)` while `range` was open.
  void KernelNodeAdded(uint64_t graph, uint64_t node, const uint64_t* deps, size_t n,
                       uint64_t range);
  // Returns with `graph` (0: the capture failed) given the stream's ranges.
  void EndCapture(uint64_t stream, uint64_t graph);
  void GraphDestroyed(uint64_t graph);
  // The ranges of a captured graph's nodes in launch order; empty when not a followed capture.
  std::vector<uint64_t> RangesOf(uint64_t graph);

 private:
  void KernelLaunchedSlow(uint64_t stream, uint64_t range);

  std::mutex mu_;
  std::atomic<uint32_t> capturing_{0};  // streams capturing now
  struct Graph {
    std::vector<uint64_t> ranges;  // by node, in the order the exec runs them
    uint64_t last_node = 0;        // built node by node: the chain's end
    bool captured = false;
    bool broken = false;  // not a chain we followed: forgotten
  };
  std::unordered_map<uint64_t, std::vector<uint64_t>> streams_;  // capturing: ranges by node
  std::unordered_map<uint64_t, Graph> graphs_;
};

}  // namespace nodescope::rocprofiler
