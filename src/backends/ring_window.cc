// The ring window: parsing, trimming, and the copy a capture writes.
#include "backends/ring_window.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "attribution/stage.h"
#include "base/env.h"

namespace nodescope {
namespace {

constexpr uint64_t kMaxRecords = 1'000'000'000'000;

Status Bad(std::string_view what, std::string_view text, std::string_view expected) {
  return InvalidArgumentError(std::string(what) + "=" + QuoteValue(text) + " is not " +
                              std::string(expected));
}

// Splits "256MB" into 256 and "MB".
bool SplitNumber(std::string_view text, uint64_t* number, std::string_view* unit) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 13) return false;
  StatusOr<uint64_t> n = ParseDecimal(text.substr(0, digits), 1, kMaxRecords);
  if (!n.ok()) return false;
  *number = *n;
  *unit = text.substr(digits);
  return true;
}

template <typename V>
bool ReleaseFrontChunk(V& v) {
  const size_t next = (v.first_index() / V::kChunkSize + 1) * V::kChunkSize;
  return v.ReleaseBefore(next) != 0;
}

std::string DurationText(uint64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  return std::to_string(ns / 1'000'000) + "ms";
}

}  // namespace

std::string WindowPolicy::Describe() const {
  // Appended piece by piece: g++ 12 at -O3 misreads a literal prepended to a temporary string
  // (`"," + std::string(...)`) as an overlapping memcpy (-Wrestrict, GCC bug 105329).
  std::string s;
  if (max_records != 0) {
    s += "events=";
    s += std::to_string(max_records);
  }
  if (max_age_ns != 0) {
    if (!s.empty()) s += ',';
    s += "time=";
    s += DurationText(max_age_ns);
  }
  return s;
}

StatusOr<uint64_t> ParseRecordCount(std::string_view text, std::string_view what) {
  constexpr std::string_view kExpected =
      "a size: records (1000, 500k, 10M) or bytes (64KB, 256MB, 1GB)";
  uint64_t n = 0;
  std::string_view unit;
  if (!SplitNumber(text, &n, &unit)) return Bad(what, text, kExpected);
  uint64_t records = 0;
  if (unit.empty()) {
    records = n;
  } else if (unit == "k" || unit == "K") {
    records = n * 1000;
  } else if (unit == "M") {
    records = n * 1'000'000;
  } else if (unit == "G") {
    records = n * 1'000'000'000;
  } else if (unit == "KB" || unit == "MB" || unit == "GB") {
    const uint64_t scale = unit == "KB" ? 1u << 10 : unit == "MB" ? 1u << 20 : 1u << 30;
    records = n * scale / sizeof(GpuActivity);
  } else {
    return Bad(what, text, kExpected);
  }
  if (records == 0 || records > kMaxRecords) return Bad(what, text, kExpected);
  return records;
}

StatusOr<uint64_t> ParseDurationNs(std::string_view text, std::string_view what) {
  constexpr std::string_view kExpected = "a duration (500ms, 60s, 5min, 1h)";
  uint64_t n = 0;
  std::string_view unit;
  if (!SplitNumber(text, &n, &unit) || n > 1'000'000'000) return Bad(what, text, kExpected);
  if (unit == "ms") return n * 1'000'000;
  if (unit == "s") return n * 1'000'000'000;
  if (unit == "min") return n * 60'000'000'000;
  if (unit == "h") return n * 3'600'000'000'000;
  return Bad(what, text, kExpected);
}

StatusOr<WindowPolicy> ParseWindowPolicy(std::string_view text, std::string_view what) {
  WindowPolicy p;
  // Sizes end in a digit or k, K, M, G, B; durations in s, min or h.
  if (text.ends_with("s") || text.ends_with("min") || text.ends_with("h")) {
    StatusOr<uint64_t> ns = ParseDurationNs(text, what);
    if (!ns.ok()) return Bad(what, text, "a size (10M records, 256MB) or a duration (60s, 5min)");
    p.max_age_ns = *ns;
  } else {
    StatusOr<uint64_t> records = ParseRecordCount(text, what);
    if (!records.ok()) {
      return Bad(what, text, "a size (10M records, 256MB) or a duration (60s, 5min)");
    }
    p.max_records = *records;
  }
  return p;
}

void TrimWindow(const WindowPolicy& policy, uint64_t now_ns, Trace* trace) {
  if (!policy.enabled()) return;
  ChunkedVector<GpuActivity>& gpu = trace->gpu;
  ChunkedVector<ApiCall>& api = trace->api;
  const size_t gpu_before = gpu.first_index(), api_before = api.first_index();
  if (policy.max_records != 0) {
    while (gpu.held() + api.held() > policy.max_records) {
      const bool gpu_can = gpu.chunks_held() > 1, api_can = api.chunks_held() > 1;
      if (!gpu_can && !api_can) break;
      const bool gpu_older =
          gpu_can && (!api_can || gpu.chunk_front(0).start_ns <= api.chunk_front(0).start_ns);
      if (!(gpu_older ? ReleaseFrontChunk(gpu) : ReleaseFrontChunk(api))) break;
    }
  }
  if (policy.max_age_ns != 0 && now_ns > policy.max_age_ns) {
    const uint64_t cutoff = now_ns - policy.max_age_ns;
    while (gpu.chunks_held() > 1 && gpu.chunk_back(0).end_ns < cutoff) ReleaseFrontChunk(gpu);
    while (api.chunks_held() > 1 && api.chunk_back(0).end_ns < cutoff) ReleaseFrontChunk(api);
  }
  ChunkedVector<ExternalCorrelation>& ext = trace->external;
  const size_t ext_before = ext.first_index();
  while (ext.held() > api.held() + ChunkedVector<ExternalCorrelation>::kChunkSize &&
         ReleaseFrontChunk(ext)) {
  }
  trace->window.ring_released += (gpu.first_index() - gpu_before) +
                                 (api.first_index() - api_before) +
                                 (ext.first_index() - ext_before);
}

uint64_t WindowStartNs(const Trace& t, uint64_t now_ns) {
  // A trace that released nothing starts with the run.
  if (t.gpu.first_index() == 0 && t.api.first_index() == 0 && t.window.streamed == 0) {
    return t.start_ns;
  }
  uint64_t start = now_ns;
  if (!t.gpu.empty()) start = std::min(start, t.gpu.chunk_front(0).start_ns);
  if (!t.api.empty()) start = std::min(start, t.api.chunk_front(0).start_ns);
  return start;
}

namespace {

bool Provisional(const GpuActivity& a) {
  return a.graph_id == ReconstructingStage::kProvisionalGraphId ||
         a.graph_id == SubmissionMatchingStage::kProvisionalGraphId;
}

// What every copy of the window takes besides records: strings, devices, counters, drops,
// sampling, pid, window info, and the window's bounds.
void CopyHeader(const Trace& live, uint64_t now_ns, Trace* out) {
  out->strings.AssignFrom(live.strings);
  out->devices = live.devices;
  out->counters = live.counters;
  out->drops = live.drops;
  out->sampling = live.sampling;
  out->pid = live.pid;
  out->window = live.window;
  out->start_ns = WindowStartNs(live, now_ns);
  out->end_ns = now_ns;
}

// Everything of the window but its GPU records; with `release`, every record is then released.
void CopyAllButGpu(Trace& live, uint64_t now_ns, bool release, Trace* out) {
  CopyHeader(live, now_ns, out);
  out->api.AppendFrom(live.api);
  out->external.AppendFrom(live.external);
  out->versions = live.versions;
  out->process_name = live.process_name;
  out->thread_names = live.thread_names;
  if (release) {
    const uint64_t n = live.gpu.ReleaseAll() + live.api.ReleaseAll() + live.external.ReleaseAll();
    live.window.streamed += n;
  }
}

}  // namespace

void CopyWindow(Trace& live, uint64_t now_ns, bool release, Trace* out) {
  out->gpu.AppendFrom(live.gpu);
  CopyAllButGpu(live, now_ns, release, out);
}

void CopyUnfedGpu(Trace& live, uint64_t now_ns, uint64_t ended_by_ns, size_t* cursor, Trace* out) {
  size_t first_left = SIZE_MAX;  // the first record left for a later copy
  for (size_t i = std::max(*cursor, live.gpu.first_index()); i < live.gpu.size(); ++i) {
    GpuActivity& a = live.gpu[i];
    if (a.metrics_fed != 0) continue;
    if (a.end_ns > ended_by_ns || Provisional(a)) {
      first_left = std::min(first_left, i);
      continue;
    }
    out->gpu.push_back(a);
    a.metrics_fed = 1;
  }
  *cursor = first_left != SIZE_MAX ? first_left : live.gpu.size();
  CopyHeader(live, now_ns, out);
}

void CopyWindowPart(Trace& live, uint64_t now_ns, size_t max_held_back, Trace* out,
                    std::vector<size_t>* moved) {
  moved->clear();
  size_t undecided = 0;
  live.gpu.ForEach([&](const GpuActivity& a) { undecided += Provisional(a) ? 1 : 0; });
  // The newest max_held_back of them stay; older ones are written now (without keys).
  size_t written_anyway = undecided > max_held_back ? undecided - max_held_back : 0;
  std::vector<GpuActivity> kept;
  kept.reserve(undecided - written_anyway);
  size_t i = live.gpu.first_index();
  live.gpu.ForEach([&](const GpuActivity& a) {
    if (!Provisional(a)) {
      out->gpu.push_back(a);
    } else if (written_anyway > 0) {
      --written_anyway;
      out->gpu.push_back(a);
    } else {
      kept.push_back(a);
      moved->push_back(i);
    }
    ++i;
  });
  CopyAllButGpu(live, now_ns, /*release=*/true, out);
  live.window.streamed -= kept.size();  // released, but held again: written later
  for (const GpuActivity& a : kept) live.gpu.push_back(a);
}

void FinishWindowCopy(Trace* out) {
  uint64_t undecided = 0;
  out->gpu.ForEachFrom(0, [&](GpuActivity& a) {
    if (a.graph_id == ReconstructingStage::kProvisionalGraphId) {
      a.graph_id = 0;
      a.graph_node_id = 0;
      ++undecided;
    } else if (a.graph_id == SubmissionMatchingStage::kProvisionalGraphId) {
      a.graph_id = 0;  // and the submit time and recording thread the stage kept with it
      a.graph_node_id = 0;
      a.capture_range_id = 0;
      a.context = 0;
      ++undecided;
    }
  });
  if (undecided != 0) out->attribution.withheld.emplace_back("undecided_at_capture", undecided);
}

}  // namespace nodescope
