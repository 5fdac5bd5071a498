// The few CUDA driver entry points nodescope calls, resolved with dlopen() so that
// libnodescope.so and the CLI load on machines without a driver (like CUPTI itself does).
#pragma once

#include <cuda.h>

#include <string>

namespace nodescope::cupti {

struct CudaDriver {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  // Reading a graph's shape (exec_dag.h); null when the driver lacks them (then no DAG is
  // recorded, the rest works).
  CUresult (*cuGraphGetNodes)(CUgraph, CUgraphNode*, size_t*) = nullptr;
  CUresult (*cuGraphGetEdges)(CUgraph, CUgraphNode*, CUgraphNode*, CUgraphEdgeData*,
                              size_t*) = nullptr;
  CUresult (*cuGraphNodeGetType)(CUgraphNode, CUgraphNodeType*) = nullptr;
  CUresult (*cuGraphChildGraphNodeGetGraph)(CUgraphNode, CUgraph*) = nullptr;
  // Why the driver could not be loaded (a copy of dlerror()'s text, which the next dl call
  // overwrites); empty when it was.
  std::string load_error;

  bool ok() const { return load_error.empty(); }
  bool can_read_graphs() const {
    return cuGraphGetNodes != nullptr && cuGraphGetEdges != nullptr &&
           cuGraphNodeGetType != nullptr && cuGraphChildGraphNodeGetGraph != nullptr;
  }
};

// Loaded once, on first use; thread-safe.
const CudaDriver& Driver();

}  // namespace nodescope::cupti
