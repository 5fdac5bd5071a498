// The trace's header; its shape is pinned by the golden files in testdata/.
#include "export/trace_header.h"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "base/version.h"

namespace nodescope {
namespace {

// `"key":value` pairs after an opening `{"first":v` written by the caller.
void UintFields(std::initializer_list<std::pair<std::string_view, uint64_t>> fields,
                JsonOutput& out) {
  for (const auto& [key, value] : fields) {
    out.Raw(",\"");
    out.Raw(key);
    out.Field("\":", value);
  }
}

void WriteDevices(const Trace& t, JsonOutput& out) {
  out.Raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  const char* sep = "\n    ";
  for (const DeviceProperties& d : t.devices) {
    out.Raw(sep);
    sep = ",\n    ";
    out.Field("{\"id\":", d.id);
    out.StringField(",\"name\":", d.name);
    out.Field(",\"totalGlobalMem\":", d.total_global_mem);
    const std::pair<std::string_view, int> ints[] = {
        {"computeMajor", d.compute_major},
        {"computeMinor", d.compute_minor},
        {"maxThreadsPerBlock", d.max_threads_per_block},
        {"maxThreadsPerMultiprocessor", d.max_threads_per_multiprocessor},
        {"regsPerBlock", d.regs_per_block},
        {"regsPerMultiprocessor", d.regs_per_multiprocessor},
        {"warpSize", d.warp_size},
        {"sharedMemPerBlock", d.shared_mem_per_block},
        {"sharedMemPerMultiprocessor", d.shared_mem_per_multiprocessor},
        {"numSms", d.num_sms},
        {"sharedMemPerBlockOptin", d.shared_mem_per_block_optin},
    };
    for (const auto& [key, value] : ints) {
      out.Raw(",\"");
      out.Raw(key);
      out.Raw("\":");
      out.Int(value);
    }
    out.Char('}');
  }
  out.Raw(t.devices.empty() ? "],\n" : "\n  ],\n");
}

// ,"job":{...}: which rank of which job on which host, and the clock anchor (model/trace.h).
void WriteJob(const JobInfo& job, JsonOutput& out) {
  if (!job.known()) return;
  out.Raw(",\"job\":{");
  if (job.rank >= 0) {
    out.Raw("\"rank\":");
    out.Int(job.rank);
    out.StringField(",\"rank_variable\":", job.rank_variable);
    out.Char(',');
  }
  if (job.local_rank >= 0) {
    out.Raw("\"local_rank\":");
    out.Int(job.local_rank);
    out.Char(',');
  }
  if (job.world_size >= 0) {
    out.Raw("\"world_size\":");
    out.Int(job.world_size);
    out.Char(',');
  }
  out.StringField("\"host\":", job.host);
  out.Field(",\"clock\":{\"realtime_ns\":", job.realtime_ns);
  UintFields({{"monotonic_ns", job.monotonic_ns}, {"boottime_ns", job.boottime_ns}}, out);
  out.Raw("}}");
}

// ,"sampling":{...}: a sampled trace says how it was sampled and how many launches it holds.
void WriteSampling(const SamplingInfo& s, JsonOutput& out) {
  if (s.every <= 1) return;
  out.Field(",\"sampling\":{\"unit\":\"launch\",\"every\":", s.every);
  if (s.burst > 1) out.Field(",\"burst\":", s.burst);  // kept launches in a row per pick
  UintFields({{"graph_launches", s.graph_launches},
              {"graph_launches_traced", s.graph_launches_traced},
              {"plain_launches", s.plain_launches},
              {"plain_launches_traced", s.plain_launches_traced},
              {"graph_launches_discarded", s.graph_launches_discarded},
              {"plain_launches_discarded", s.plain_launches_discarded}},
             out);
  out.Char('}');
}

// "nodescope": what was lost, what the ranges and the attribution engine counted.
void WriteNodescopeObject(const Trace& t, JsonOutput& out) {
  const DropCounters& d = t.drops;
  out.Raw("  \"nodescope\": {\"version\":\"" NODESCOPE_VERSION_STRING
          "\",\"dropped_records\":{\"vendor_dropped\":");
  out.Uint(d.vendor_dropped);
  UintFields({{"buffers_refused", d.buffers_refused},
              {"store_full", d.store_full},
              {"unknown_records", d.unknown_records},
              {"total", d.Total()}},
             out);
  const RangeCounters& r = t.range_counters;
  out.Field("},\"ranges\":{\"recorded\":", t.ranges.held());
  UintFields({{"unbalanced_pops", r.unbalanced_pops},
              {"open_at_end", r.open_at_end},
              {"ended_on_other_thread", r.ended_on_other_thread},
              {"ended_at_thread_exit", r.ended_at_thread_exit},
              {"unknown_ends", r.unknown_ends},
              {"dropped", r.dropped},
              {"device_spans", t.device_spans.size()}},
             out);
  if (t.window.policy.starts_with("ring:")) {  // range logs bounded by the ring too
    UintFields({{"ring_released", r.ring_released}, {"ring_unnamed", r.ring_unnamed}}, out);
  } else if (t.window.policy.starts_with("stream:")) {  // and by rings sized from the part
    UintFields({{"ring_released", r.ring_released},
                {"ring_unnamed", r.ring_unnamed},
                {"unwritten", r.unwritten}},
               out);
  }
  out.Char('}');
  for (const auto& [name, value] : t.counters) {
    out.Char(',');
    out.String(name);
    out.Char(':');
    out.Int(value);
  }
  if (!t.attribution.mode.empty()) {
    out.StringField(",\"attribution\":{\"mode\":", t.attribution.mode);
    out.Field(",\"new_node_ids\":", t.attribution.new_node_ids);
    out.Field(",\"graph_ids_past_limit\":", t.attribution.graph_ids_past_limit);
    out.Raw(",\"withheld\":{");
    const char* sep = "";
    for (const auto& [reason, count] : t.attribution.withheld) {
      out.Raw(sep);
      sep = ",";
      out.String(reason);
      out.Char(':');
      out.Uint(count);
    }
    out.Raw("}}");
  }
  WriteSampling(t.sampling, out);
  if (!t.window.policy.empty()) {  // bounded memory: which window of the run this holds
    out.StringField(",\"window\":{\"policy\":", t.window.policy);
    UintFields({{"ring_released", t.window.ring_released},
                {"streamed", t.window.streamed},
                {"capture", t.window.capture},
                {"part", t.window.part}},
               out);
    if (t.window.parts_failed != 0) {
      UintFields({{"parts_failed", t.window.parts_failed},
                  {"records_in_failed_parts", t.window.records_in_failed_parts}},
                 out);
    }
    out.Char('}');
  }
  WriteJob(t.job, out);
  out.Raw("},\n");
}

}  // namespace

void WriteTraceHeader(const Trace& t, uint64_t base_ns, JsonOutput& out) {
  WriteDevices(t, out);
  for (const auto& [name, value] : t.versions) {
    out.StringField("  ", name);
    out.Raw(": ");
    out.Int(value);
    out.Raw(",\n");
  }
  if (t.job.rank >= 0) {  // what torch.profiler writes, read by Holistic Trace Analysis
    out.Raw("  \"distributedInfo\": {\"rank\": ");
    out.Int(t.job.rank);
    if (t.job.world_size >= 0) {
      out.Raw(", \"world_size\": ");
      out.Int(t.job.world_size);
    }
    out.Raw("},\n");
  }
  WriteNodescopeObject(t, out);
  out.Field("  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ", base_ns);
  out.Raw(",\n");
}

}  // namespace nodescope
