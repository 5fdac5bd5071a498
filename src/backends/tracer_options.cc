// The options every backend shares, from the environment or an options string: one parser.
#include <array>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "base/env.h"

namespace nodescope {
namespace {

// Every variable an options string may name, by its key: "NODESCOPE_" + the key in upper case.
// NODESCOPE_DEBUG_GRAPH_CALLBACKS is not one: the CUDA backend reads it from the environment.
constexpr std::array<std::string_view, 10> kStringKeys = {"buffer_size_mb",
                                                          "max_buffers",
                                                          "max_events",
                                                          "sample",
                                                          "sample_burst",
                                                          "disable_graph_attribution",
                                                          "disable_device_graphs",
                                                          "ring",
                                                          "stream",
                                                          "capture_every"};
constexpr std::string_view kVarPrefix = "NODESCOPE_";

std::string_view Env(const char* var) {
  const char* v = std::getenv(var);
  return v != nullptr ? std::string_view(v) : std::string_view();
}

// NODESCOPE_RING, NODESCOPE_STREAM, NODESCOPE_CAPTURE_EVERY (ring_window.h).
Status ReadWindowOptions(const OptionLookup& lookup, TracerOptions* o) {
  if (OptionValue v = lookup("NODESCOPE_RING"); !v.value.empty()) {
    StatusOr<WindowPolicy> ring = ParseWindowPolicy(v.value, v.name);
    if (!ring.ok()) return ring.status();
    o->ring = *ring;
  }
  if (OptionValue v = lookup("NODESCOPE_STREAM"); !v.value.empty()) {
    StatusOr<uint64_t> records = ParseRecordCount(v.value, v.name);
    if (!records.ok()) return records.status();
    if (o->ring.enabled()) {
      std::string message = v.name;
      message += " and ";
      message += lookup("NODESCOPE_RING").name;
      message += " cannot be used together";
      return InvalidArgumentError(message);
    }
    o->stream_records = *records;
  }
  if (OptionValue v = lookup("NODESCOPE_CAPTURE_EVERY"); !v.value.empty()) {
    StatusOr<uint64_t> ns = ParseDurationNs(v.value, v.name);
    if (!ns.ok()) return ns.status();
    o->capture_every_ns = *ns;
  }
  // The window bounds memory: the store cap applies only when asked for.
  if ((o->ring.enabled() || o->stream_records != 0) &&
      lookup("NODESCOPE_MAX_EVENTS").value.empty()) {
    o->max_events = kMaxEvents;
  }
  return OkStatus();
}

Status ReadDecimal(const OptionLookup& lookup, const char* var, uint64_t min, uint64_t max,
                   uint64_t* out) {
  OptionValue v = lookup(var);
  return ReadDecimalValue(v.name, v.value, min, max, out);
}

Status ReadFlag(const OptionLookup& lookup, const char* var, bool* out) {
  OptionValue v = lookup(var);
  return ReadFlagValue(v.name, v.value, out);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string KeyError(std::string_view key, const char* why) {
  std::string message = "option ";
  message += QuoteValue(key);
  message += why;
  return message;
}

}  // namespace

StatusOr<TracerOptions> TracerOptionsFrom(const OptionLookup& lookup) {
  TracerOptions o;
  uint64_t mb = o.buffer_bytes >> 20, buffers = o.max_buffers, events = o.max_events;
  RETURN_IF_ERROR(ReadDecimal(lookup, "NODESCOPE_BUFFER_SIZE_MB", 1, kMaxBufferSizeMb, &mb));
  RETURN_IF_ERROR(ReadDecimal(lookup, "NODESCOPE_MAX_BUFFERS", 2, kMaxBuffers, &buffers));
  RETURN_IF_ERROR(ReadDecimal(lookup, "NODESCOPE_MAX_EVENTS", 1, kMaxEvents, &events));
  o.buffer_bytes = static_cast<size_t>(mb) << 20;
  o.max_buffers = static_cast<size_t>(buffers);
  o.max_events = events;
  uint64_t every = o.sample_every;
  RETURN_IF_ERROR(ReadDecimal(lookup, "NODESCOPE_SAMPLE", 1, kMaxSampleEvery, &every));
  o.sample_every = static_cast<uint32_t>(every);
  uint64_t burst = o.sample_burst;
  RETURN_IF_ERROR(ReadDecimal(lookup, "NODESCOPE_SAMPLE_BURST", 1, kMaxSampleBurst, &burst));
  o.sample_burst = static_cast<uint32_t>(burst);
  bool disable = false;
  RETURN_IF_ERROR(ReadFlag(lookup, "NODESCOPE_DISABLE_GRAPH_ATTRIBUTION", &disable));
  o.graph_attribution = !disable;
  bool no_device_graphs = false;
  RETURN_IF_ERROR(ReadFlag(lookup, "NODESCOPE_DISABLE_DEVICE_GRAPHS", &no_device_graphs));
  o.device_graphs = !no_device_graphs;
  // Read by the CUDA backend where it is used; checked here so that a bad value is refused
  // before the program starts, as every other variable is.
  bool debug_graph_callbacks = false;
  RETURN_IF_ERROR(ReadFlag(lookup, "NODESCOPE_DEBUG_GRAPH_CALLBACKS", &debug_graph_callbacks));
  RETURN_IF_ERROR(ReadWindowOptions(lookup, &o));
  return o;
}

StatusOr<TracerOptions> TracerOptionsFromEnv() {
  return TracerOptionsFrom([](const char* var) { return OptionValue{Env(var), var}; });
}

StatusOr<SessionOptions> SessionOptionsFromString(std::string_view text) {
  SessionOptions out;
  std::vector<std::pair<std::string_view, std::string_view>> pairs;  // key -> value
  // The session's own keys (not the backend's): backend, output, metrics, metrics_series.
  constexpr std::array<std::string_view, 4> kSessionKeys = {"backend", "output", "metrics",
                                                            "metrics_series"};
  std::array<std::string_view, 4> session_values{};
  std::array<bool, 4> session_given{};
  while (!text.empty()) {
    const size_t end = text.find_first_of(";\n");
    const std::string_view pair = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError(KeyError(pair, " has no '=': expected key=value"));
    }
    const std::string_view key = Trim(pair.substr(0, eq));
    const std::string_view value = Trim(pair.substr(eq + 1));
    if (value.empty()) return InvalidArgumentError(KeyError(key, " has an empty value"));
    size_t session_key = kSessionKeys.size();
    for (size_t i = 0; i < kSessionKeys.size(); ++i) {
      if (kSessionKeys[i] == key) session_key = i;
    }
    bool known = session_key < kSessionKeys.size();
    for (std::string_view k : kStringKeys) known = known || k == key;
    if (!known) {
      std::string message =
          KeyError(key, " is not one of backend, output, metrics, metrics_series");
      for (std::string_view k : kStringKeys) {
        message += ", ";
        message += k;
      }
      return InvalidArgumentError(message);
    }
    bool twice = session_key < kSessionKeys.size() && session_given[session_key];
    for (const auto& [k, v] : pairs) twice = twice || k == key;
    if (twice) return InvalidArgumentError(KeyError(key, " is given twice"));
    if (session_key < kSessionKeys.size()) {
      session_values[session_key] = value;
      session_given[session_key] = true;
      continue;
    }
    pairs.emplace_back(key, value);
  }
  out.backend = std::string(session_values[0]);
  out.output = std::string(session_given[1] ? session_values[1] : Env("NODESCOPE_OUTPUT"));
  out.metrics = std::string(session_given[2] ? session_values[2] : Env("NODESCOPE_METRICS"));
  const std::string_view series =
      session_given[3] ? session_values[3] : Env("NODESCOPE_METRICS_SERIES");
  if (!series.empty()) {
    RETURN_IF_ERROR(
        ReadDecimalValue(session_given[3] ? "metrics_series" : "NODESCOPE_METRICS_SERIES", series,
                         1, 1000000, &out.metrics_series));
  }
  StatusOr<TracerOptions> tracer = TracerOptionsFrom([&pairs](const char* var) {
    std::string key_of_var(std::string_view(var).substr(kVarPrefix.size()));
    for (char& c : key_of_var) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    for (const auto& [key, value] : pairs) {
      if (key == key_of_var) return OptionValue{value, key_of_var};
    }
    return OptionValue{Env(var), var};
  });
  if (!tracer.ok()) return tracer.status();
  out.tracer = *tracer;
  return out;
}

}  // namespace nodescope
