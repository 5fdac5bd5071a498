// Which CUDA API calls create or change a graph exec, decided by name (every version suffix and
// per-thread variant included). The callbacks themselves need a GPU: tests/gpu (gpu_attribution).
#include "backends/cupti/graph_callbacks.h"

#include <gtest/gtest.h>

namespace nodescope::cupti {
namespace {

TEST(ClassifyGraphApi, InstantiateCreatesAnExec) {
  for (const char* name : {"cudaGraphInstantiate", "cudaGraphInstantiateWithFlags_v11040",
                           "cudaGraphInstantiateWithParams_ptsz_v12000", "cuGraphInstantiate_v2",
                           "cuGraphInstantiateWithParams"}) {
    EXPECT_EQ(ClassifyGraphApi(name), GraphApiKind::kCreatesExec) << name;
  }
}

TEST(ClassifyGraphApi, InPlaceChangesChangeAnExec) {
  for (const char* name :
       {"cudaGraphExecUpdate_v12000", "cuGraphExecUpdate_v2", "cudaGraphExecKernelNodeSetParams",
        "cuGraphExecKernelNodeSetParams_v2", "cudaGraphExecMemcpyNodeSetParams1D",
        "cuGraphExecMemsetNodeSetParams", "cudaGraphExecChildGraphNodeSetParams",
        "cudaGraphExecEventRecordNodeSetEvent", "cudaGraphNodeSetEnabled", "cuGraphNodeSetEnabled",
        "cudaGraphExecNodeSetParams"}) {
    EXPECT_EQ(ClassifyGraphApi(name), GraphApiKind::kChangesExec) << name;
  }
}

TEST(ClassifyGraphApi, EverythingElseIsNotOurs) {
  for (const char* name :
       {"cudaGraphLaunch", "cuGraphLaunch_ptsz", "cudaGraphExecDestroy", "cudaGraphAddKernelNode",
        "cudaGraphKernelNodeSetParams", "cudaLaunchKernel_v7000", "cudaStreamBeginCapture",
        "cuGraphExecGetFlags", ""}) {
    EXPECT_EQ(ClassifyGraphApi(name), GraphApiKind::kNone) << name;
  }
}

}  // namespace
}  // namespace nodescope::cupti
