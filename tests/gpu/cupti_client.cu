// A program that is itself a CUPTI client (as under Nsight Systems or torch.profiler): it
// subscribes before its first CUDA call, so `nodescope run` must say it cannot trace it.
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdio>

static void CUPTIAPI Callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

int main() {
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, &Callback, nullptr);
  std::printf("cupti_client: own cuptiSubscribe returned %d\n", static_cast<int>(r));
  float* d = nullptr;
  if (cudaMalloc(&d, 256) != cudaSuccess) return 1;
  cudaFree(d);
  cudaDeviceSynchronize();
  std::printf("cupti_client: done\n");
  return 0;
}
