// Which CUDA API calls create or change a graph exec, decided by name (every version suffix and
// per-thread variant included); and the sampling window opened around sampled launches only, once
// per outermost call. The graph callbacks themselves need a GPU: tests/gpu (gpu_attribution,
// gpu_sampling).
#include "backends/cuda/graph_callbacks.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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
        "cudaGraphExecNodeSetParams", "cudaGraphExecHostNodeSetParams"}) {
    EXPECT_EQ(ClassifyGraphApi(name), GraphApiKind::kChangesWork) << name;
  }
  // What nodes run stays: their conditional bodies' records keep their keys.
  for (const char* name :
       {"cudaGraphExecEventRecordNodeSetEvent", "cuGraphExecEventWaitNodeSetEvent",
        "cudaGraphNodeSetEnabled", "cuGraphNodeSetEnabled"}) {
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

TEST(ClassifyLaunchApi, CallsThatPutWorkOnTheDevice) {
  for (const char* name : {"cudaGraphLaunch", "cudaGraphLaunch_ptsz_v10000", "cuGraphLaunch"}) {
    EXPECT_EQ(ClassifyLaunchApi(name), GraphApiKind::kGraphLaunch) << name;
  }
  for (const char* name :
       {"cudaLaunchKernel_v7000", "cudaLaunchKernelExC_v11060", "cudaLaunchCooperativeKernel",
        "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchGrid", "cudaMemcpyAsync_v3020",
        "cudaMemcpy2DAsync", "cuMemcpyHtoDAsync_v2", "cudaMemsetAsync", "cuMemsetD32Async"}) {
    EXPECT_EQ(ClassifyLaunchApi(name), GraphApiKind::kPlainLaunch) << name;
  }
  for (const char* name : {"cudaLaunchHostFunc", "cuLaunchHostFunc", "cudaGraphInstantiate",
                           "cudaGraphExecMemcpyNodeSetParams", "cudaMalloc",
                           "cudaStreamSynchronize", "cudaGraphAddMemcpyNode", ""}) {
    EXPECT_EQ(ClassifyLaunchApi(name), GraphApiKind::kNone) << name;
  }
}

struct CountingWindow final : LaunchWindow {
  void Begin() override { ++begins; }
  void End() override { ++ends; }
  bool IsOpen() const override { return begins > ends || held_by_another; }
  bool held_by_another = false;
  int begins = 0;
  int ends = 0;
};

constexpr CUpti_CallbackId kRuntimeLaunch = 211, kDriverLaunch = 307, kRuntimeMalloc = 20;

void Call(GraphCallbacks& cb, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
          CUpti_ApiCallbackSite site, uint64_t correlation) {
  CUpti_CallbackData d{};
  d.callbackSite = site;
  d.correlationId = static_cast<uint32_t>(correlation);
  cb.OnApi(domain, cbid, d);
}

// A runtime launch reaches the driver's entry point inside it: one window, opened at the
// runtime call's entry and closed at its exit, and only for the launches the sampler picks.
TEST(GraphCallbacksSampling, OneWindowPerSampledOutermostLaunch) {
  std::unique_ptr<AttributionStage> stage = MakeNativeIdStage(true);
  LaunchSampler sampler(3, 11);
  CountingWindow window;  // nothing else holds it open: no launch joins
  GraphCallbacks cb(stage.get(), &sampler, &window, nullptr);
  cb.ListenTo(CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, GraphApiKind::kPlainLaunch);
  cb.ListenTo(CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunch, GraphApiKind::kPlainLaunch);
  cb.ListenTo(CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeMalloc, GraphApiKind::kNone);
  for (int i = 0; i < 3000; ++i) {
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_ENTER, i);
    Call(cb, CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunch, CUPTI_API_ENTER, i);
    Call(cb, CUPTI_CB_DOMAIN_DRIVER_API, kDriverLaunch, CUPTI_API_EXIT, i);
    EXPECT_LE(window.begins - window.ends, 1) << "the driver's exit closed nothing";
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_EXIT, i);
    ASSERT_EQ(window.begins, window.ends) << "launch " << i << " left its window open";
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeMalloc, CUPTI_API_ENTER, i);
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeMalloc, CUPTI_API_EXIT, i);
  }
  LaunchSampler::Counts c = sampler.counts();
  EXPECT_EQ(c.plain_launches, 3000u) << "the nested driver call was counted as a launch";
  EXPECT_EQ(static_cast<uint64_t>(window.begins), c.plain_launches_kept);
  EXPECT_NEAR(window.begins, 1000, 200);
}

// Another thread holds the window open: a launch not picked is instrumented anyway, so it holds
// the window too (Begin/End), but its correlation id is not kept; a picked one's is.
TEST(GraphCallbacksSampling, LaunchesDuringAnOpenWindowHoldItAndAreNotKept) {
  std::unique_ptr<AttributionStage> stage = MakeNativeIdStage(true);
  LaunchSampler sampler(1000000000, 5);  // picks (almost) nothing
  CountingWindow window;
  window.held_by_another = true;
  CorrelationSet kept;
  GraphCallbacks cb(stage.get(), &sampler, &window, &kept);
  cb.ListenTo(CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, GraphApiKind::kPlainLaunch);
  for (int i = 1; i <= 10; ++i) {
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_ENTER, i);
    Call(cb, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_EXIT, i);
    EXPECT_FALSE(kept.Contains(i));
  }
  EXPECT_EQ(window.begins, 10);
  EXPECT_EQ(window.ends, 10);
  EXPECT_EQ(sampler.counts().plain_overlaps, 10u);
  LaunchSampler all(2, 9);
  GraphCallbacks picked(stage.get(), &all, &window, &kept);
  picked.ListenTo(CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, GraphApiKind::kPlainLaunch);
  int kept_ids = 0;
  for (int i = 100; i < 200; ++i) {
    Call(picked, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_ENTER, i);
    Call(picked, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeLaunch, CUPTI_API_EXIT, i);
    kept_ids += kept.Contains(i) ? 1 : 0;
  }
  EXPECT_EQ(static_cast<uint64_t>(kept_ids), all.counts().plain_launches_kept);
  EXPECT_GT(kept_ids, 20);
}

// ---- Device-launched graphs: what the callbacks see of them ----

TEST(ClassifyGraphApi, UploadsAreTheirOwnKind) {
  for (const char* name : {"cudaGraphUpload_v10000", "cudaGraphUpload_ptsz_v10000", "cuGraphUpload",
                           "cuGraphUpload_ptsz"}) {
    EXPECT_EQ(ClassifyGraphApi(name), GraphApiKind::kUploadsExec) << name;
  }
}

TEST(InstantiateFlags, PlaceByNameAndVersion) {
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphInstantiate_v12000"), InstantiateFlagsAt::kThirdParam);
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphInstantiate_ptsz_v12000"),
            InstantiateFlagsAt::kThirdParam);
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphInstantiate_v10000"), InstantiateFlagsAt::kNone);
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphInstantiateWithFlags_v11040"),
            InstantiateFlagsAt::kThirdParam);
  EXPECT_EQ(InstantiateFlagsPlace("cuGraphInstantiateWithFlags"), InstantiateFlagsAt::kThirdParam);
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphInstantiateWithParams_ptsz_v12000"),
            InstantiateFlagsAt::kParamsStruct);
  EXPECT_EQ(InstantiateFlagsPlace("cuGraphInstantiateWithParams"),
            InstantiateFlagsAt::kParamsStruct);
  EXPECT_EQ(InstantiateFlagsPlace("cuGraphInstantiate_v2"), InstantiateFlagsAt::kNone);
  EXPECT_EQ(InstantiateFlagsPlace("cudaGraphLaunch_v10000"), InstantiateFlagsAt::kNone);
}

TEST(InstantiateFlags, ReadFromTheCallsParams) {
  cudaGraphInstantiate_v12000_params rt{};
  rt.flags = cudaGraphInstantiateFlagDeviceLaunch;
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kThirdParam, &rt), 4u);
  cuGraphInstantiateWithFlags_params drv{};
  drv.flags = CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kThirdParam, &drv), 6u);
  cudaGraphInstantiateParams ip{};
  ip.flags = cudaGraphInstantiateFlagDeviceLaunch;
  cudaGraphInstantiateWithParams_v12000_params with{};
  with.instantiateParams = &ip;
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kParamsStruct, &with), 4u);
  with.instantiateParams = nullptr;
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kParamsStruct, &with), 0u);
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kNone, &rt), 0u);
  EXPECT_EQ(InstantiateFlags(InstantiateFlagsAt::kThirdParam, nullptr), 0u);
}

int64_t CounterOf(const Trace& t, const std::string& name) {
  for (const auto& [n, v] : t.counters) {
    if (n == name) return v;
  }
  return -1;
}

TEST(GraphCallbacksDeviceLaunch, ExecsAndTheirUploadsAreCounted) {
  std::unique_ptr<AttributionStage> stage = MakeNativeIdStage(true);
  GraphCallbacks cb(stage.get());
  cb.NoteInstantiated(3, 0);  // host-launched
  cb.NoteInstantiated(4, cudaGraphInstantiateFlagDeviceLaunch);
  cb.NoteInstantiated(5, cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUpload);
  cb.NoteUploaded(3);  // not a device-launch exec
  cb.NoteUploaded(4);
  cb.NoteUploaded(4);
  Trace t;
  cb.AddCounters(&t);
  EXPECT_EQ(CounterOf(t, "device_launch_execs_created"), 2);
  EXPECT_EQ(CounterOf(t, "device_launch_exec_uploads"), 3);  // two calls, one instantiate flag
}

}  // namespace
}  // namespace nodescope::cupti
