// Versions, devices and names for a CUPTI trace.
#include "backends/cuda/environment.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <cupti.h>

#include "backends/cuda/cuda_driver.h"

namespace nodescope::cupti {
namespace {

std::string ReadFirstLine(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return {};
  char buf[256] = {};
  std::string line;
  if (std::fgets(buf, sizeof(buf), f) != nullptr) line = buf;
  std::fclose(f);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

void CollectEnvironment(Trace* trace) {
  uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) {
    trace->versions.emplace_back("cupti_version", cupti_version);
  }
  // The runtime may be linked statically (nvcc's default): only ask it when it is exported.
  using RuntimeVersionFn = int (*)(int*);
  if (auto fn = reinterpret_cast<RuntimeVersionFn>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
    int v = 0;
    if (fn(&v) == 0) trace->versions.emplace_back("cuda_runtime_version", v);
  }
  const CudaDriver& cu = Driver();
  int driver_version = 0;
  if (cu.ok() && cu.cuDriverGetVersion(&driver_version) == CUDA_SUCCESS) {
    trace->versions.emplace_back("cuda_driver_version", driver_version);
  }
  int count = 0;
  if (cu.ok() && cu.cuDeviceGetCount(&count) == CUDA_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      CUdevice dev;
      if (cu.cuDeviceGet(&dev, i) != CUDA_SUCCESS) continue;
      DeviceProperties p;
      p.id = static_cast<uint32_t>(i);
      char name[256] = {};
      if (cu.cuDeviceGetName(name, sizeof(name), dev) == CUDA_SUCCESS) p.name = name;
      size_t mem = 0;
      if (cu.cuDeviceTotalMem(&mem, dev) == CUDA_SUCCESS) p.total_global_mem = mem;
      auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        return cu.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
      };
      p.compute_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
      p.compute_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
      p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      p.max_threads_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
      p.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
      p.regs_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
      p.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
      p.shared_mem_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
      p.shared_mem_per_multiprocessor =
          attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
      p.shared_mem_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
      p.num_sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
      trace->devices.push_back(std::move(p));
    }
  }
  trace->pid = static_cast<uint32_t>(getpid());
  trace->process_name = ReadFirstLine("/proc/self/comm");
  std::vector<uint32_t> tids;
  trace->api.ForEach([&](const ApiCall& c) {
    if (tids.empty() || tids.back() != c.tid) tids.push_back(c.tid);
  });
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  for (uint32_t tid : tids) {
    std::string comm = ReadFirstLine("/proc/self/task/" + std::to_string(tid) + "/comm");
    trace->thread_names.emplace_back(
        tid, comm.empty() ? "thread " + std::to_string(tid)
                          : "thread " + std::to_string(tid) + " (" + comm + ")");
  }
}

}  // namespace nodescope::cupti
