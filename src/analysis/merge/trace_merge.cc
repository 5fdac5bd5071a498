// Merging the traces of a job's processes (trace_merge.h).
#include "analysis/merge/trace_merge.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "analysis/reader/trace_reader.h"
#include "base/version.h"
#include "export/graph_dag_json.h"

namespace nodescope::analysis {
namespace {

using analysis::TraceEvent;
using analysis::TraceId;
using analysis::TraceMetadata;

constexpr int64_t kStepThresholdNs = 1000000;  // 1 ms: more is a step of the realtime clock
constexpr uint64_t kMaxExactJson = uint64_t{1} << 53;

// The header of a trace: what precedes its events, or, when "baseTimeNanoseconds" comes after
// them (torch.profiler writes it last), the whole trace's metadata.
StatusOr<TraceMetadata> ReadHeader(const std::string& path) {
  const Status kStop(StatusCode::kFailedPrecondition, "merge: header read");
  std::optional<TraceMetadata> header;
  StatusOr<TraceMetadata> read = analysis::ReadTraceFile(path, [&](const TraceEvent& e) {
    if (e.metadata != nullptr) header = *e.metadata;
    return kStop;
  });
  if (read.ok()) return read;  // no events at all
  if (!header.has_value() || read.status().message() != kStop.message()) return read.status();
  if (header->base_time_ns.has_value()) return *header;
  return analysis::ReadTraceFile(path, [](const TraceEvent&) { return OkStatus(); });
}

std::string Label(const MergedInput& in) {
  return in.rank >= 0 ? "rank " + std::to_string(in.rank) : "trace " + std::to_string(in.slot);
}

// Writes one input's events with pids, flow ids and times renumbered.
class EventWriter {
 public:
  EventWriter(MergedInput& input, uint32_t inputs, JsonOutput& out)
      : in_(input), inputs_(inputs), out_(out), label_(Label(input)) {}

  Status Write(const TraceEvent& e) {
    ++in_.events;
    // The replaced tokens in the order they appear in the event's text.
    std::pair<std::string_view, int> tokens[3];
    int n = 0;
    for (auto [token, which] : {std::pair{e.raw_pid, 0}, {e.raw_ts, 1}, {e.raw_id, 2}}) {
      if (!token.empty()) tokens[n++] = {token, which};
    }
    for (int i = 1; i < n; ++i) {  // by place; at most three
      for (int j = i; j > 0 && tokens[j].first.data() < tokens[j - 1].first.data(); --j) {
        std::swap(tokens[j], tokens[j - 1]);
      }
    }
    const char* at = e.raw.data();
    for (int i = 0; i < n; ++i) {
      const auto& [token, which] = tokens[i];
      out_.Raw(std::string_view(at, static_cast<size_t>(token.data() - at)));
      at = token.data() + token.size();
      Status s = which == 0 ? Pid(e, token) : which == 1 ? Ts(e, token) : Id(e, token);
      if (!s.ok()) return s;
    }
    out_.Raw(std::string_view(at, static_cast<size_t>(e.raw.data() + e.raw.size() - at)));
    return OkStatus();
  }

  // Names each process of this input after its rank, for viewers.
  void WriteLabels(const char** sep) {
    for (uint64_t pid : pids_) {
      out_.Raw(*sep);
      *sep = ",\n";
      out_.Field("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":", pid);
      out_.StringField(",\"tid\":0,\"args\":{\"labels\":", label_);
      out_.Field("}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", pid);
      out_.Field(",\"tid\":0,\"args\":{\"sort_index\":", pid);
      out_.Raw("}}");
    }
  }

 private:
  Status Error(const TraceEvent& e, const std::string& what) {
    return DataLossError(std::string(e.source) + ": byte " + std::to_string(e.offset) + ": " +
                         what);
  }

  // A string value as "rank R: text": the text's escapes are kept.
  void Prefixed(std::string_view token) {
    out_.Char('"');
    out_.Raw(label_);
    out_.Raw(": ");
    out_.Raw(token.substr(1));
  }

  Status Pid(const TraceEvent& e, std::string_view token) {
    if (e.pid.kind == TraceId::Kind::kString) {
      Prefixed(token);
      return OkStatus();
    }
    if (e.pid.number < 0 || e.pid.number >= (int64_t{1} << analysis::kMergePidBits)) {
      return Error(e, "\"pid\" " + std::to_string(e.pid.number) +
                          " cannot be renumbered for a merged trace (0 to 4194303)");
    }
    const uint64_t pid =
        (uint64_t{in_.slot} << analysis::kMergePidBits) | static_cast<uint64_t>(e.pid.number);
    out_.Uint(pid);
    if (pids_.size() < 4096) pids_.insert(pid);
    return OkStatus();
  }

  Status Ts(const TraceEvent& e, std::string_view token) {
    if (in_.shift_ns == 0 || !e.ts_us.has_value()) {
      out_.Raw(token);
      return OkStatus();
    }
    char text[64];
    const double ts = *e.ts_us + static_cast<double>(in_.shift_ns) / 1000.0;
    const int len = std::snprintf(text, sizeof(text), "%.3f", ts);
    out_.Raw(std::string_view(text, static_cast<size_t>(len)));
    return OkStatus();
  }

  Status Id(const TraceEvent& e, std::string_view token) {
    if (token.front() == '"') {
      Prefixed(token);
      return OkStatus();
    }
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), id);
    if (ec != std::errc() || end != token.data() + token.size() ||
        id >= (kMaxExactJson - in_.slot) / inputs_) {
      return Error(e, "flow \"id\" " + std::string(token.substr(0, 40)) +
                          " cannot be renumbered for a merged trace (a whole number below 2^53 / " +
                          std::to_string(inputs_) + " inputs)");
    }
    out_.Uint(id * inputs_ + in_.slot);
    return OkStatus();
  }

  MergedInput& in_;
  uint32_t inputs_;
  JsonOutput& out_;
  std::string label_;
  std::set<uint64_t> pids_;  // the numeric pids written (at most 4096 labelled)
};

// Times of each input relative to the earliest base, with realtime steps on one host undone.
void Align(MergeResult* result, const std::vector<TraceMetadata>& headers) {
  std::map<std::string, int64_t> host_offset;  // host -> realtime - boottime of its first trace
  std::set<std::string> hosts;
  for (MergedInput& in : result->inputs) {
    const TraceMetadata& h = headers[in.slot];
    hosts.insert(in.host);
    if (h.clock_realtime_ns && h.clock_boottime_ns && !in.host.empty()) {
      const int64_t offset = static_cast<int64_t>(*h.clock_realtime_ns - *h.clock_boottime_ns);
      auto [it, first] = host_offset.emplace(in.host, offset);
      const int64_t step = offset - it->second;
      if (!first && (step > kStepThresholdNs || step < -kStepThresholdNs)) {
        in.clock_step_ns = -step;
        result->notes.push_back(Label(in) + ": the realtime clock of " + in.host + " moved by " +
                                std::to_string(step / 1000) +
                                " us between the processes' starts; its times are corrected by "
                                "the boottime anchor");
      }
    }
  }
  int64_t earliest = INT64_MAX;
  for (const MergedInput& in : result->inputs) {
    earliest = std::min(earliest, static_cast<int64_t>(in.base_time_ns) + in.clock_step_ns);
  }
  result->base_time_ns = result->inputs.empty() ? 0 : static_cast<uint64_t>(earliest);
  for (MergedInput& in : result->inputs) {
    in.shift_ns = static_cast<int64_t>(in.base_time_ns) + in.clock_step_ns - earliest;
  }
  if (hosts.size() > 1) {
    result->notes.push_back(std::to_string(hosts.size()) +
                            " hosts: their traces are aligned by CLOCK_REALTIME, as exact as the "
                            "hosts' clock synchronisation (NTP/PTP), which merge cannot check");
  }
}

void WriteHeader(const MergeResult& r, const std::vector<TraceMetadata>& headers, JsonOutput& out) {
  uint64_t dropped = 0;
  std::map<std::string, uint64_t> withheld;
  for (const MergedInput& in : r.inputs) {
    dropped += in.dropped;
    for (const auto& [reason, count] : headers[in.slot].withheld) withheld[reason] += count;
  }
  out.Raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n");
  out.Raw("  \"nodescope\": {\"version\":\"" NODESCOPE_VERSION_STRING "\",");
  out.Field("\"dropped_records\":{\"total\":", dropped);
  out.Raw("},\"attribution\":{\"withheld\":{");
  const char* sep = "";
  for (const auto& [reason, count] : withheld) {
    out.Raw(sep);
    sep = ",";
    out.String(reason);
    out.Char(':');
    out.Uint(count);
  }
  out.Raw("}},\"merged\":[");
  sep = "\n    ";
  for (const MergedInput& in : r.inputs) {
    out.Raw(sep);
    sep = ",\n    ";
    out.Field("{\"slot\":", in.slot);
    if (in.rank >= 0) {
      out.Raw(",\"rank\":");
      out.Int(in.rank);
    }
    if (in.world_size >= 0) {
      out.Raw(",\"world_size\":");
      out.Int(in.world_size);
    }
    out.StringField(",\"host\":", in.host);
    out.StringField(",\"source\":", in.path);
    out.Field(",\"pid_base\":", uint64_t{in.slot} << analysis::kMergePidBits);
    out.Field(",\"base_time_ns\":", in.base_time_ns);
    out.Raw(",\"clock_step_ns\":");
    out.Int(in.clock_step_ns);
    out.Raw(",\"shift_ns\":");
    out.Int(in.shift_ns);
    out.Field(",\"dropped_records\":", in.dropped);
    out.Char('}');
  }
  out.Raw("]},\n  \"displayTimeUnit\": \"ms\",\n");
  out.Field("  \"baseTimeNanoseconds\": ", r.base_time_ns);
  // Each input's exec DAGs, named by its process slot (docs/TRACE-DAG.md).
  bool any_dag = false;
  for (const MergedInput& in : r.inputs) {
    for (GraphDag dag : headers[in.slot].graph_dags) {
      dag.process = in.slot;
      out.Raw(any_dag ? ",\n    " : ",\n  \"nodescopeGraphs\": [\n    ");
      any_dag = true;
      WriteGraphDag(dag, out);
    }
  }
  if (any_dag) out.Raw("\n  ]");
  out.Raw(",\n  \"traceEvents\": [\n");
}

}  // namespace

StatusOr<MergeResult> MergeTraces(const std::vector<std::string>& paths, JsonOutput& out) {
  MergeResult result;
  std::vector<TraceMetadata> by_argument;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(TraceMetadata h, ReadHeader(path));
    MergedInput in;
    in.path = path;
    in.rank = h.rank.value_or(-1);
    in.world_size = h.world_size.value_or(-1);
    in.host = h.host;
    in.base_time_ns = h.base_time_ns.value_or(0);
    in.dropped = h.dropped_total.value_or(0);
    if (!h.merged_ranks.empty()) {
      return InvalidArgumentError(path +
                                  ": is a merged trace already (merge the traces it came "
                                  "from instead)");
    }
    result.inputs.push_back(std::move(in));
    by_argument.push_back(std::move(h));
  }
  // Slots by rank; traces without one after them, in argument order.
  std::vector<size_t> order(paths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int64_t ra = result.inputs[a].rank, rb = result.inputs[b].rank;
    return (ra >= 0 && rb >= 0) ? ra < rb : (ra >= 0 && rb < 0);
  });
  std::vector<MergedInput> inputs;
  std::vector<TraceMetadata> headers;
  std::set<int64_t> ranks;
  for (size_t i : order) {
    MergedInput in = std::move(result.inputs[i]);
    in.slot = static_cast<uint32_t>(inputs.size());
    if (in.rank >= 0 && !ranks.insert(in.rank).second) {
      result.notes.push_back("rank " + std::to_string(in.rank) +
                             " appears in more than one "
                             "trace (" +
                             in.path + " is another run, or another process of it)");
    }
    inputs.push_back(std::move(in));
    headers.push_back(std::move(by_argument[i]));
  }
  if (inputs.size() >= (size_t{1} << (31 - analysis::kMergePidBits))) {
    return InvalidArgumentError("merge takes at most 511 traces");
  }
  result.inputs = std::move(inputs);
  Align(&result, headers);
  WriteHeader(result, headers, out);

  const char* sep = "";
  analysis::TraceReadOptions options;
  options.raw_events = true;
  for (MergedInput& in : result.inputs) {
    EventWriter writer(in, static_cast<uint32_t>(result.inputs.size()), out);
    StatusOr<TraceMetadata> read = analysis::ReadTraceFile(
        in.path,
        [&](const TraceEvent& e) {
          out.Raw(sep);
          sep = ",\n";
          return writer.Write(e);
        },
        options);
    if (!read.ok()) return read.status();
    writer.WriteLabels(&sep);
    result.events += in.events;
  }
  out.Raw("\n  ]\n}\n");
  Status flushed = out.Flush();
  if (!flushed.ok()) return flushed;
  return result;
}

}  // namespace nodescope::analysis
