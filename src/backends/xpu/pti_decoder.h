// PTI view records -> neutral records (model/records.h). The layout of kernel, copy, P2P copy and
// fill records is chosen once from ptiVersion() (v2 from 0.18 / 1.0 on, docs/pti-notes.md); the
// tracer walks each buffer with ptiViewGetNextRecord and hands every record here. Devices are
// numbered in the order their PCI address (else UUID) is first seen; streams are the Level Zero
// queue handles, numbered from 1 in the order first seen. One decoding thread at a time (PTI's
// delivery thread, or a flush), under the tracer's lock; no allocation or lock per record
// (names, devices and queues are taken in once each). The decoder never attributes: it stores
// each kernel's command id, submit time and recording thread provisionally for the attribution
// stage (attribution/stage.h, SubmissionMatchingStage) and reports graph submission and append
// calls to it as their API records are decoded; without a stage kernels carry no graph fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "attribution/stage.h"
#include "backends/xpu/sdk/pti_sdk.h"
#include "model/trace.h"

namespace nodescope::pti {

// True when records of this PTI version are laid out as v2 (major >= 1 or minor > 17).
bool UsesV2Layout(const pti_version& v);

class PtiDecoder {
 public:
  // `api_name`: PTI's ptiViewGetApiIdName, or null (tests): API calls are then named
  // "<group>_api_<id>".
  using ApiNameFn = pti_result (*)(pti_api_group_id, uint32_t, const char**);
  PtiDecoder(Trace* trace, uint64_t max_events, bool v2, ApiNameFn api_name,
             SubmissionMatchingStage* stage = nullptr);

  void Decode(const pti_view_record_base* record);

  bool v2() const { return v2_; }

 private:
  bool Room();
  uint32_t DeviceOf(const char* pci, const uint8_t* uuid);
  uint32_t StreamOf(const void* queue);
  StringId NameOf(const char* name);
  StringId ApiName(pti_api_group_id group, uint32_t id);
  template <typename R>
  void DecodeKernel(const R& r, const void* device_handle);
  template <typename R>
  void DecodeCopy(const R& r);
  template <typename R>
  void DecodeP2p(const R& r);
  template <typename R>
  void DecodeFill(const R& r);
  void DecodeApi(const pti_view_record_api& r, ApiDomain domain);

  Trace* trace_;
  const uint64_t max_events_;
  const bool v2_;
  ApiNameFn api_name_;
  SubmissionMatchingStage* stage_;
  uint32_t pid_;
  struct Device {
    uint8_t key[PTI_MAX_PCI_ADDRESS_SIZE + PTI_MAX_DEVICE_UUID_SIZE];
  };
  std::vector<Device> devices_;
  std::vector<std::pair<const void*, uint32_t>> queues_;
  size_t last_queue_ = 0;
  static constexpr size_t kNameCache = 256;  // direct-mapped by pointer
  std::pair<const char*, StringId> names_[kNameCache] = {};
  static constexpr uint32_t kApiIds = 1024;
  std::vector<StringId> api_names_[2];  // [runtime, driver] by API id, kNoString until seen
  StringId unknown_name_;
};

}  // namespace nodescope::pti
