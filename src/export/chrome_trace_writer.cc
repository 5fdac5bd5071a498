// Chrome-trace JSON writer in kineto's schema: header, metadata, API calls, user ranges, GPU work,
// ac2g flows, user ranges on the device timeline.
#include "export/chrome_trace_writer.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribution/annotations.h"
#include "base/atomic_file.h"
#include "export/graph_dag_json.h"
#include "export/trace_header.h"

namespace nodescope {
namespace {

// pid_max is at most 2^22, so this sorts GPU lanes after every CPU process, as kineto does.
constexpr int64_t kGpuSortIndexBase = 1 << 22;

const char* DirectionName(CopyDirection d) {
  static constexpr const char* kNames[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                           "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  static_assert(std::size(kNames) == static_cast<size_t>(CopyDirection::kCount));
  auto i = static_cast<size_t>(d);
  return i < std::size(kNames) ? kNames[i] : "Unknown";
}

const char* MemoryKindName(MemoryKind k) {
  static constexpr const char* kNames[] = {"Unknown",       "Pageable",      "Pinned",
                                           "Device",        "Array",         "Managed",
                                           "Device Static", "Managed Static"};
  static_assert(std::size(kNames) == static_cast<size_t>(MemoryKind::kCount));
  auto i = static_cast<size_t>(k);
  return i < std::size(kNames) ? kNames[i] : "Unknown";
}

// Only "_Z..." is a mangled function name; __cxa_demangle would also turn "f" into "float".
std::string Demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  int status = 0;
  char* out = abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && out != nullptr) ? std::string(out) : std::string(name);
  std::free(out);
  return result;
}

__extension__ using Uint128 = unsigned __int128;

uint64_t Saturate(Uint128 v) { return v > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(v); }

uint64_t Product3(const int32_t dims[3]) {
  Uint128 p = 1;
  for (int i = 0; i < 3; ++i) p *= static_cast<uint64_t>(std::max<int32_t>(dims[i], 0));
  return Saturate(p);
}

class Writer {
 public:
  Writer(const Trace& trace, JsonOutput& out) : t_(trace), out_(out), links_(trace) {}

  Status Write() {
    pads_ = DeviceSpanPads(t_.device_spans);
    Scan();
    WriteTraceHeader(t_, base_ns_, out_);
    WriteGraphDags(t_.graph_dags, graph_ids_, out_);
    out_.Raw("  \"traceEvents\": [\n  ");
    WriteMetadata();  // always writes at least one event, so every later one starts with ","
    t_.api.ForEach([this](const ApiCall& a) { WriteApiCall(a); });
    t_.ranges.ForEach([this](const UserRange& r) { WriteRange(r); });
    BuildCorrelationIndex();
    t_.gpu.ForEach([this](const GpuActivity& a) { WriteGpu(a); });
    for (size_t i = 0; i < t_.device_spans.size(); ++i)
      WriteDeviceSpan(t_.device_spans[i], pads_[i]);
    out_.StringField("\n  ],\n  \"traceName\": ", t_.trace_name);
    out_.Raw("\n}\n");
    return out_.Flush();
  }

 private:
  // One pass over the GPU records: base time, devices and streams for the metadata.
  void Scan() {
    uint64_t earliest = UINT64_MAX;
    uint64_t last_key = UINT64_MAX;
    std::unordered_set<uint64_t> keys;
    std::unordered_set<uint64_t> graphs;
    uint64_t last_graph = 0;
    t_.gpu.ForEach([&](const GpuActivity& a) {
      if (a.start_ns != 0) earliest = std::min(earliest, a.start_ns);
      if (a.graph_id != 0 && a.graph_id != last_graph)
        graphs.insert(a.graph_id), last_graph = a.graph_id;
      uint64_t key = (uint64_t{a.device} << 32) | a.stream;
      if (key != last_key) keys.insert(key), last_key = key;
    });
    std::unordered_set<uint64_t> threads;
    last_key = UINT64_MAX;
    auto add_thread = [&](uint64_t pid, uint64_t tid) {
      const uint64_t key = (pid << 32) | tid;
      if (key != last_key) threads.insert(key), last_key = key;
    };
    t_.api.ForEach([&](const ApiCall& a) {
      if (a.start_ns != 0) earliest = std::min(earliest, a.start_ns);
      add_thread(a.pid, a.tid);
    });
    t_.ranges.ForEach([&](const UserRange& r) {
      if (r.start_ns != 0) earliest = std::min(earliest, r.start_ns);
      add_thread(r.pid, r.tid);
    });
    for (const auto& [tid, name] : t_.thread_names) add_thread(t_.pid, tid);
    if (!t_.graph_dags.empty()) {
      graph_ids_.assign(graphs.begin(), graphs.end());
      std::sort(graph_ids_.begin(), graph_ids_.end());
    }
    threads_.assign(threads.begin(), threads.end());
    std::sort(threads_.begin(), threads_.end());
    for (size_t i = 0; i < t_.device_spans.size(); ++i) {  // widened: they start before their work
      const uint64_t start = t_.device_spans[i].start_ns;
      if (start > pads_[i]) earliest = std::min(earliest, start - pads_[i]);
    }
    base_ns_ = t_.start_ns != 0 ? t_.start_ns : (earliest == UINT64_MAX ? 0 : earliest);
    streams_.assign(keys.begin(), keys.end());
    std::sort(streams_.begin(), streams_.end());
    for (uint64_t k : streams_) device_ids_.push_back(static_cast<uint32_t>(k >> 32));
    for (const DeviceProperties& d : t_.devices) device_ids_.push_back(d.id);
    std::sort(device_ids_.begin(), device_ids_.end());
    device_ids_.erase(std::unique(device_ids_.begin(), device_ids_.end()), device_ids_.end());
  }

  // {"name":"<what>","ph":"M","pid":P,"tid":T,"args":{"<key>":
  void MetadataHead(std::string_view what, uint64_t pid, uint64_t tid, std::string_view key) {
    out_.Raw("{\"name\":\"");
    out_.Raw(what);
    out_.Field("\",\"ph\":\"M\",\"pid\":", pid);
    out_.Field(",\"tid\":", tid);
    out_.Raw(",\"args\":{\"");
    out_.Raw(key);
    out_.Raw("\":");
  }

  void SortIndex(std::string_view what, uint64_t pid, uint64_t tid, int64_t index) {
    out_.Raw(",\n  ");
    MetadataHead(what, pid, tid, "sort_index");
    out_.Int(index);
    out_.Raw("}}");
  }

  // Names and sort indices as kineto writes them: the CPU process (sorted by its pid) before the
  // GPUs (kGpuSortIndexBase + device id), each GPU's streams by stream id, CPU threads by tid.
  void WriteMetadata() {
    MetadataHead("process_name", t_.pid, 0, "name");
    out_.String(t_.process_name);
    out_.Raw("}}");
    SortIndex("process_sort_index", t_.pid, 0, t_.pid);
    for (uint32_t id : device_ids_) {
      out_.Raw(",\n  ");
      MetadataHead("process_name", id, 0, "name");
      out_.Field("\"GPU ", id);
      out_.Raw("\"}}");
      const DeviceProperties* dev = FindDevice(id);
      if (dev != nullptr && !dev->name.empty()) {
        out_.Raw(",\n  ");
        MetadataHead("process_labels", id, 0, "labels");
        out_.String(dev->name);
        out_.Raw("}}");
      }
      SortIndex("process_sort_index", id, 0, kGpuSortIndexBase + id);
    }
    for (uint64_t key : streams_) {
      out_.Raw(",\n  ");
      MetadataHead("thread_name", key >> 32, key & 0xFFFFFFFFu, "name");
      out_.Field("\"stream ", key & 0xFFFFFFFFu);
      out_.Raw("\"}}");
      SortIndex("thread_sort_index", key >> 32, key & 0xFFFFFFFFu, key & 0xFFFFFFFFu);
    }
    for (const auto& [tid, name] : t_.thread_names) {
      out_.Raw(",\n  ");
      MetadataHead("thread_name", t_.pid, tid, "name");
      out_.String(name);
      out_.Raw("}}");
    }
    for (uint64_t key : threads_) {
      SortIndex("thread_sort_index", key >> 32, key & 0xFFFFFFFFu, key & 0xFFFFFFFFu);
    }
  }

  const DeviceProperties* FindDevice(uint32_t id) const {
    for (const DeviceProperties& d : t_.devices) {
      if (d.id == id) return &d;
    }
    return nullptr;
  }

  // Multiprocessor count of a device, 0 when unknown. Cached: kernels come in runs per device.
  uint64_t SmsOf(uint32_t device) {
    if (device != sms_device_) {
      const DeviceProperties* d = FindDevice(device);
      sms_device_ = device;
      sms_ = d != nullptr && d->num_sms > 0 ? static_cast<uint64_t>(d->num_sms) : 0;
    }
    return sms_;
  }

  void Time(uint64_t start_ns, uint64_t end_ns) {
    out_.Raw(",\"ts\":");
    out_.MicrosFromNs(static_cast<int64_t>(start_ns - base_ns_));
    out_.Raw(",\"dur\":");
    out_.MicrosFromNs(end_ns > start_ns ? static_cast<int64_t>(end_ns - start_ns) : 0);
  }

  // `,\n  {"ph":"X","cat":"<cat>","name":"<escaped name>"` for one (name, domain), built once.
  const std::string& ApiPrefix(const ApiCall& a) {
    size_t domain = std::min<size_t>(static_cast<size_t>(a.domain), kApiDomainCat.size() - 1);
    StringId name = a.name < t_.strings.size() ? a.name : kNoString;
    size_t slot = size_t{name} * kApiDomainCat.size() + domain;
    if (slot >= api_prefix_.size()) api_prefix_.resize(t_.strings.size() * kApiDomainCat.size());
    std::string& s = api_prefix_[slot];
    if (s.empty()) {
      s = ",\n  {\"ph\":\"X\",\"cat\":\"";
      s += kApiDomainCat[domain];
      s += "\",\"name\":";
      JsonOutput::AppendEscaped(t_.strings.Get(name), s);
    }
    return s;
  }

  void WriteApiCall(const ApiCall& a) {
    out_.Raw(ApiPrefix(a));
    out_.Field(",\"pid\":", a.pid);
    out_.Field(",\"tid\":", a.tid);
    Time(a.start_ns, a.end_ns);
    out_.Field(",\"args\":{\"cbid\":", a.cbid);
    out_.Field(",\"correlation\":", a.correlation_id);
    out_.Raw("}}");
  }

  std::string_view StringOf(StringId id) const {
    return id < t_.strings.size() ? t_.strings.Get(id) : std::string_view();
  }

  // A user range on the thread that opened it, linked to its device spans by "External id".
  void WriteRange(const UserRange& r) {
    out_.StringField(",\n  {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":", StringOf(r.name));
    out_.Field(",\"pid\":", r.pid);
    out_.Field(",\"tid\":", r.tid);
    Time(r.start_ns, r.end_ns);
    out_.Field(",\"args\":{\"External id\":", r.id);
    if ((r.flags & kRangeOpenAtEnd) != 0) out_.Raw(",\"open at end\":true");
    if ((r.flags & kRangeThreadExited) != 0) out_.Raw(",\"ended at thread exit\":true");
    if ((r.flags & kRangeCrossThread) != 0) {
      out_.Field(",\"end tid\":", r.end_tid);
    }
    if (r.domain != kNoString) {
      out_.StringField(",\"domain\":", StringOf(r.domain));
    }
    out_.Raw("}}");
  }

  // The extent of the range's work on one stream widened by `pad_ns` on each side, so that every
  // viewer nests it around what it contains (DeviceSpanPads says how much and why); "widened
  // (ns)" says by how much, so a reader can take the exact extent back.
  void WriteDeviceSpan(const DeviceSpan& s, uint32_t pad_ns) {
    out_.StringField(",\n  {\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":",
                     StringOf(s.name));
    out_.Field(",\"pid\":", s.device);
    out_.Field(",\"tid\":", s.stream);
    const int64_t start = static_cast<int64_t>(s.start_ns - base_ns_) - pad_ns;
    const int64_t end = static_cast<int64_t>(std::max(s.end_ns, s.start_ns) - base_ns_) + pad_ns;
    const int64_t ts = std::max<int64_t>(start, 0);
    out_.Raw(",\"ts\":");
    out_.MicrosFromNs(ts);
    out_.Raw(",\"dur\":");
    out_.MicrosFromNs(end > ts ? end - ts : 0);
    out_.Field(",\"args\":{\"External id\":", s.range_id);
    out_.Field(",\"widened (ns)\":", pad_ns);
    if (s.replay_correlation != 0) {
      out_.Field(",\"replay correlation\":", s.replay_correlation);
    }
    out_.Raw("}}");
  }

  // `,"scope":"<outer/inner>"` for a capture-time range, built once per range; "" when the id is
  // not in the trace.
  const std::string& ScopeArg(uint64_t capture_range_id) {
    const auto next = static_cast<uint32_t>(scope_args_.size());
    const uint32_t i = scope_index_.FindOrInsert(capture_range_id, next);
    if (i == next) {
      std::string arg;
      if (links_.IndexOf(capture_range_id) != RangeLinks::kNone) {
        arg = ",\"scope\":";
        JsonOutput::AppendEscaped(RangePath(t_, links_, capture_range_id), arg);
      }
      scope_args_.push_back(std::move(arg));
    }
    return scope_args_[i];
  }

  void BuildCorrelationIndex() {
    api_by_correlation_.reserve(t_.api.size());
    t_.api.ForEach([this](const ApiCall& a) {
      if (a.correlation_id == 0) return;
      auto [it, inserted] = api_by_correlation_.try_emplace(a.correlation_id, &a);
      if (!inserted && it->second->domain != ApiDomain::kRuntime &&
          a.domain == ApiDomain::kRuntime) {
        it->second = &a;
      }
    });
  }

  // `,\n  {"ph":"X","cat":"kernel","name":"<demangled, escaped>"`, built once per name.
  const std::string& KernelPrefix(StringId name) {
    if (name >= t_.strings.size()) name = kNoString;
    if (name >= kernel_prefix_.size()) kernel_prefix_.resize(t_.strings.size());
    std::string& s = kernel_prefix_[name];
    if (s.empty()) {
      s = ",\n  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":";
      JsonOutput::AppendEscaped(Demangle(t_.strings.Get(name)), s);
    }
    return s;
  }

  void WriteGpu(const GpuActivity& a) {
    if (a.kind >= ActivityKind::kCount) return;  // not a kind we know how to write
    switch (a.kind) {
      case ActivityKind::kKernel:
        out_.Raw(KernelPrefix(a.kernel.name));
        break;
      case ActivityKind::kMemcpy:
        out_.Raw(",\n  {\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy ");
        out_.Raw(DirectionName(a.copy.direction));
        out_.Raw(" (");
        out_.Raw(MemoryKindName(a.copy.src_kind));
        out_.Raw(" -> ");
        out_.Raw(MemoryKindName(a.copy.dst_kind));
        out_.Raw(")\"");
        break;
      case ActivityKind::kMemset:
        out_.Raw(",\n  {\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (");
        out_.Raw(MemoryKindName(a.fill.memory_kind));
        out_.Raw(")\"");
        break;
      case ActivityKind::kCount:
        return;
    }
    out_.Field(",\"pid\":", a.device);
    out_.Field(",\"tid\":", a.stream);
    Time(a.start_ns, a.end_ns);
    out_.Raw(a.kind == ActivityKind::kKernel ? ",\"args\":{\"queued\":0,\"device\":"
                                             : ",\"args\":{\"device\":");
    out_.Uint(a.device);
    out_.Field(",\"context\":", a.context);
    out_.Field(",\"stream\":", a.stream);
    out_.Field(",\"correlation\":", a.correlation_id);
    if (a.kind == ActivityKind::kKernel) {
      WriteKernelArgs(a);
    } else {
      uint64_t bytes = a.kind == ActivityKind::kMemcpy ? a.copy.bytes : a.fill.bytes;
      out_.Field(",\"bytes\":", bytes);
      out_.Raw(",\"memory bandwidth (GB/s)\":");  // bytes per ns is GB/s
      out_.Ratio(bytes, a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0);
    }
    if (a.graph_id != 0) {
      out_.Field(",\"graph id\":", a.graph_id);
      out_.Field(",\"graph node id\":", a.graph_node_id);
    }
    if (a.capture_range_id != 0) out_.Raw(ScopeArg(a.capture_range_id));
    if (a.device_launched != 0) out_.Raw(",\"device launched\":1");
    if (a.correlation_id != 0 && links_.has_runtime_links()) {
      // kineto links device work to its CPU op this way; here the op is the innermost range.
      const uint32_t r = links_.RuntimeRangeOf(a.correlation_id);
      if (r < RangeLinks::kUnresolved) {
        out_.Field(",\"External id\":", links_.range(r).id);
      }
    }
    out_.Raw("}}");
    WriteFlow(a);
  }

  void WriteKernelArgs(const GpuActivity& a) {
    const KernelDetails& k = a.kernel;
    out_.Field(",\"registers per thread\":", k.registers_per_thread);
    out_.Field(",\"shared memory\":", uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    if (uint64_t sms = SmsOf(a.device); sms != 0) {
      uint64_t blocks = Product3(k.grid);
      uint64_t warps_per_block = (Product3(k.block) + 31) / 32;
      out_.Raw(",\"blocks per SM\":");
      out_.Ratio(blocks, sms);
      out_.Raw(",\"warps per SM\":");
      out_.Ratio(Saturate(Uint128{blocks} * warps_per_block), sms);
    }
    out_.Raw(",\"grid\":[");
    out_.Int(k.grid[0]);
    out_.Char(',');
    out_.Int(k.grid[1]);
    out_.Char(',');
    out_.Int(k.grid[2]);
    out_.Raw("],\"block\":[");
    out_.Int(k.block[0]);
    out_.Char(',');
    out_.Int(k.block[1]);
    out_.Char(',');
    out_.Int(k.block[2]);
    out_.Char(']');
  }

  // One s/f pair per GPU activity, each with its own id: a viewer binds one "s" to one "f", so a
  // graph launch gets one arrow to each of its nodes.
  void WriteFlow(const GpuActivity& a) {
    if (a.correlation_id == 0) return;
    auto it = api_by_correlation_.find(a.correlation_id);
    if (it == api_by_correlation_.end()) return;
    const ApiCall& api = *it->second;
    const uint64_t id = ++flow_id_;
    out_.Field(",\n  {\"ph\":\"s\",\"id\":", id);
    out_.Field(",\"pid\":", api.pid);
    out_.Field(",\"tid\":", api.tid);
    out_.Raw(",\"ts\":");
    out_.MicrosFromNs(static_cast<int64_t>(api.start_ns - base_ns_));
    out_.Raw(",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    out_.Field(",\n  {\"ph\":\"f\",\"id\":", id);
    out_.Field(",\"pid\":", a.device);
    out_.Field(",\"tid\":", a.stream);
    out_.Raw(",\"ts\":");
    out_.MicrosFromNs(static_cast<int64_t>(a.start_ns - base_ns_));
    out_.Raw(",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
  }

  const Trace& t_;
  JsonOutput& out_;
  uint64_t base_ns_ = 0;
  std::vector<uint32_t> pads_;       // per device span, DeviceSpanPads
  std::vector<uint64_t> streams_;    // (device << 32) | stream, sorted
  std::vector<uint64_t> graph_ids_;  // graph ids the GPU records carry, sorted (when DAGs are held)
  std::vector<uint32_t> device_ids_;
  std::vector<uint64_t> threads_;           // CPU (pid << 32) | tid with records or a name, sorted
  std::vector<std::string> kernel_prefix_;  // by StringId, "" until first use
  std::vector<std::string> api_prefix_;     // by StringId * domains + domain
  std::unordered_map<uint32_t, const ApiCall*> api_by_correlation_;
  RangeLinks links_;
  FlatIndexMap<uint64_t> scope_index_;  // capture range id -> index in scope_args_
  std::vector<std::string> scope_args_;
  uint32_t sms_device_ = UINT32_MAX;
  uint64_t sms_ = 0;
  uint64_t flow_id_ = 0;
};

}  // namespace

std::string GpuRecordName(const Trace& trace, const GpuActivity& a) {
  switch (a.kind) {
    case ActivityKind::kKernel: {
      const StringId name = a.kernel.name < trace.strings.size() ? a.kernel.name : kNoString;
      return Demangle(trace.strings.Get(name));
    }
    case ActivityKind::kMemcpy:
      return std::string("Memcpy ") + DirectionName(a.copy.direction) + " (" +
             MemoryKindName(a.copy.src_kind) + " -> " + MemoryKindName(a.copy.dst_kind) + ")";
    case ActivityKind::kMemset:
      return std::string("Memset (") + MemoryKindName(a.fill.memory_kind) + ")";
    case ActivityKind::kCount:
      break;
  }
  return std::string();
}

Status WriteChromeTrace(const Trace& trace, JsonOutput& out) { return Writer(trace, out).Write(); }

StatusOr<std::string> WriteChromeTraceFileAs(const Trace& trace, const std::string& path,
                                             const FileIdentity* before) {
  StatusOr<AtomicFile> file = AtomicFile::Create(path, before);
  if (!file.ok()) return file.status();
  Status status;
  {
    FdJsonOutput out(file->fd(), file->name());
    status = WriteChromeTrace(trace, out);
  }
  if (!status.ok()) return status;  // the AtomicFile removes its temporary file
  RETURN_IF_ERROR(file->Commit());
  return file->path();
}

Status WriteChromeTraceFile(const Trace& trace, const std::string& path) {
  return WriteChromeTraceFileAs(trace, path, nullptr).status();
}

}  // namespace nodescope
