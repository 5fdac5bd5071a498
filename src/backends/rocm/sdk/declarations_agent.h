// Part of nodescope's own rocprofiler-sdk declarations (declarations.h, which includes it): the
// agents (devices) and their query, rocprofiler-sdk 1.0's agent.h. The three HSA thunk types in
// the struct (HSA_ENGINE_VERSION, HSA_ENGINE_ID, HSA_CAPABILITY: 32-bit unions of bit fields) are
// declared as uint32_t, and the memory-bank, cache and IO-link arrays as pointers to incomplete
// types, so no hsakmt header is needed.
#pragma once

#if !defined(NODESCOPE_ROCPROFILER_OWN_DECLARATIONS)
#error "include backends/rocm/sdk/rocprofiler_sdk.h instead"
#endif

#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef enum rocprofiler_agent_type_t {
  ROCPROFILER_AGENT_TYPE_NONE = 0,
  ROCPROFILER_AGENT_TYPE_CPU = 1,
  ROCPROFILER_AGENT_TYPE_GPU = 2,
} rocprofiler_agent_type_t;

typedef enum rocprofiler_agent_version_t {
  ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
  ROCPROFILER_AGENT_INFO_VERSION_0 = 1,
} rocprofiler_agent_version_t;

typedef struct rocprofiler_uuid_t {
  uint8_t bytes[16];
} rocprofiler_uuid_t;

typedef struct rocprofiler_agent_runtime_visiblity_t {  // sic: the SDK's spelling
  uint32_t hsa : 1;
  uint32_t hip : 1;
  uint32_t rccl : 1;
  uint32_t rocdecode : 1;
  uint32_t reserved : 28;
} rocprofiler_agent_runtime_visiblity_t;

struct rocprofiler_agent_mem_bank_t;
struct rocprofiler_agent_cache_t;
struct rocprofiler_agent_io_link_t;

typedef struct rocprofiler_agent_v0_t {
  uint64_t size;
  rocprofiler_agent_id_t id;
  rocprofiler_agent_type_t type;
  uint32_t cpu_cores_count;
  uint32_t simd_count;
  uint32_t mem_banks_count;
  uint32_t caches_count;
  uint32_t io_links_count;
  uint32_t cpu_core_id_base;
  uint32_t simd_id_base;
  uint32_t max_waves_per_simd;
  uint32_t lds_size_in_kb;
  uint32_t gds_size_in_kb;
  uint32_t num_gws;
  uint32_t wave_front_size;
  uint32_t num_xcc;
  uint32_t cu_count;
  uint32_t array_count;
  uint32_t num_shader_banks;
  uint32_t simd_arrays_per_engine;
  uint32_t cu_per_simd_array;
  uint32_t simd_per_cu;
  uint32_t max_slots_scratch_cu;
  uint32_t gfx_target_version;  // major * 10000 + minor * 100 + stepping, e.g. 90500 (gfx950)
  uint16_t vendor_id;
  uint16_t device_id;
  uint32_t location_id;  // PCI bus/device/function
  uint32_t domain;       // PCI domain
  uint32_t drm_render_minor;
  uint32_t num_sdma_engines;
  uint32_t num_sdma_xgmi_engines;
  uint32_t num_sdma_queues_per_engine;
  uint32_t num_cp_queues;
  uint32_t max_engine_clk_ccompute;
  uint32_t max_engine_clk_fcompute;
  uint32_t sdma_fw_version;  // HSA_ENGINE_VERSION
  uint32_t fw_version;       // HSA_ENGINE_ID
  uint32_t capability;       // HSA_CAPABILITY
  uint32_t cu_per_engine;
  uint32_t max_waves_per_cu;
  uint32_t family_id;
  uint32_t workgroup_max_size;
  uint32_t grid_max_size;
  uint64_t local_mem_size;
  uint64_t hive_id;
  uint64_t gpu_id;
  rocprofiler_dim3_t workgroup_max_dim;
  rocprofiler_dim3_t grid_max_dim;
  const struct rocprofiler_agent_mem_bank_t* mem_banks;
  const struct rocprofiler_agent_cache_t* caches;
  const struct rocprofiler_agent_io_link_t* io_links;
  const char* name;  // e.g. "gfx950"
  const char* vendor_name;
  const char* product_name;  // marketing name
  const char* model_name;
  uint32_t node_id;
  int32_t logical_node_id;
  int32_t logical_node_type_id;  // 0.. among agents of its type: the HIP device index
  rocprofiler_agent_runtime_visiblity_t runtime_visibility;
  rocprofiler_uuid_t uuid;
} rocprofiler_agent_v0_t;

typedef rocprofiler_agent_v0_t rocprofiler_agent_t;

// `agents` is an array of num_agents pointers to agents of the requested version.
typedef rocprofiler_status_t (*rocprofiler_query_available_agents_cb_t)(
    rocprofiler_agent_version_t version, const void** agents, size_t num_agents, void* user_data);

rocprofiler_status_t rocprofiler_query_available_agents(
    rocprofiler_agent_version_t version, rocprofiler_query_available_agents_cb_t callback,
    size_t agent_size, void* user_data);

}  // extern "C"
