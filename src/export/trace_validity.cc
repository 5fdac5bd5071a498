// Strict-viewer checks of a whole Chrome-trace document (see trace_validity.h).
#include "export/trace_validity.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nodescope {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

Status Bad(size_t index, const std::string& what) {
  return InvalidArgumentError("traceEvents[" + std::to_string(index) + "]: " + what);
}

bool IsInteger(const element& e) { return e.is_int64() || e.is_uint64(); }

// An integer member; false when absent or of another type.
bool IntegerField(const object& o, const char* key, int64_t* out) {
  element e;
  if (o[key].get(e) != simdjson::SUCCESS || !IsInteger(e)) return false;
  if (e.is_int64()) {
    *out = e.get_int64().value_unsafe();
  } else {
    *out = static_cast<int64_t>(e.get_uint64().value_unsafe());  // bits kept, for keys only
  }
  return true;
}

// A finite number >= 0; false when absent, of another type, negative or not finite.
bool TimeField(const object& o, const char* key, double* out) {
  element e;
  if (o[key].get(e) != simdjson::SUCCESS || !e.is_number()) return false;
  const double v = e.get_double().value_unsafe();
  if (!std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

bool StringField(const object& o, const char* key, std::string_view* out) {
  return o[key].get(*out) == simdjson::SUCCESS;
}

Status ParseEvents(std::string_view json, simdjson::dom::parser& parser,
                   simdjson::dom::array* events) {
  element doc;
  if (auto err = parser.parse(json.data(), json.size()).get(doc); err != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string("not valid JSON: ") + simdjson::error_message(err));
  }
  object top;
  if (doc.get(top) != simdjson::SUCCESS) return InvalidArgumentError("not a JSON object");
  if (top["traceEvents"].get(*events) != simdjson::SUCCESS) {
    return InvalidArgumentError("no \"traceEvents\" array");
  }
  return OkStatus();
}

Status CheckMetadata(size_t i, const object& o) {
  std::string_view name;
  int64_t pid = 0, tid = 0;
  if (!StringField(o, "name", &name)) return Bad(i, "\"M\" without a string \"name\"");
  if (!IntegerField(o, "pid", &pid) || !IntegerField(o, "tid", &tid)) {
    return Bad(i, "\"M\" without integer \"pid\" and \"tid\"");
  }
  object args;
  if (o["args"].get(args) != simdjson::SUCCESS) return Bad(i, "\"M\" without \"args\" object");
  std::string_view text;
  int64_t index = 0;
  if (name == "process_name" || name == "thread_name") {
    if (!StringField(args, "name", &text)) return Bad(i, std::string(name) + " without a name");
  } else if (name == "process_labels") {
    if (!StringField(args, "labels", &text)) return Bad(i, "process_labels without labels");
  } else if (name == "process_sort_index" || name == "thread_sort_index") {
    if (!IntegerField(args, "sort_index", &index)) {
      return Bad(i, std::string(name) + " without an integer sort_index");
    }
  } else {
    return Bad(i, "unknown metadata \"" + std::string(name) + "\"");
  }
  return OkStatus();
}

}  // namespace

Status CheckTraceForViewers(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  if (Status s = ParseEvents(json, parser, &events); !s.ok()) return s;
  std::map<int64_t, std::pair<int, int>> flows;  // id -> ("s" count, "f" count)
  size_t i = 0;
  for (element e : events) {
    object o;
    std::string_view ph, name;
    int64_t pid = 0, tid = 0, id = 0;
    double ts = 0, dur = 0;
    if (e.get(o) != simdjson::SUCCESS) return Bad(i, "not an object");
    if (!StringField(o, "ph", &ph)) return Bad(i, "no string \"ph\"");
    if (ph == "X") {
      if (!StringField(o, "name", &name)) return Bad(i, "\"X\" without a string \"name\"");
      if (!IntegerField(o, "pid", &pid) || !IntegerField(o, "tid", &tid)) {
        return Bad(i, "\"X\" without integer \"pid\" and \"tid\"");
      }
      if (!TimeField(o, "ts", &ts)) return Bad(i, "\"X\" without a finite \"ts\" >= 0");
      if (!TimeField(o, "dur", &dur)) return Bad(i, "\"X\" without a finite \"dur\" >= 0");
    } else if (ph == "s" || ph == "f") {
      if (!IntegerField(o, "id", &id)) return Bad(i, "flow without an integer \"id\"");
      if (!IntegerField(o, "pid", &pid) || !IntegerField(o, "tid", &tid)) {
        return Bad(i, "flow without integer \"pid\" and \"tid\"");
      }
      if (!TimeField(o, "ts", &ts)) return Bad(i, "flow without a finite \"ts\" >= 0");
      auto& [starts, finishes] = flows[id];
      ++(ph == "s" ? starts : finishes);
    } else if (ph == "M") {
      if (Status s = CheckMetadata(i, o); !s.ok()) return s;
    } else if (ph == "i") {
      if (!TimeField(o, "ts", &ts)) return Bad(i, "\"i\" without a finite \"ts\" >= 0");
    } else {
      return Bad(i, "unexpected \"ph\" \"" + std::string(ph) + "\"");
    }
    ++i;
  }
  for (const auto& [id, counts] : flows) {
    if (counts.first != 1 || counts.second != 1) {
      return InvalidArgumentError("flow id " + std::to_string(id) + " has " +
                                  std::to_string(counts.first) + " \"s\" and " +
                                  std::to_string(counts.second) + " \"f\" (want one each)");
    }
  }
  return OkStatus();
}

Status CheckDeviceSpanNesting(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  if (Status s = ParseEvents(json, parser, &events); !s.ok()) return s;
  struct Event {
    double begin, end;
    bool span;
    size_t index;
  };
  std::map<std::pair<int64_t, int64_t>, std::vector<Event>> lanes;
  std::map<std::pair<int64_t, int64_t>, bool> has_span;
  size_t i = 0;
  for (element e : events) {
    object o;
    std::string_view ph, cat;
    int64_t pid = 0, tid = 0;
    double ts = 0, dur = 0;
    if (e.get(o) == simdjson::SUCCESS && StringField(o, "ph", &ph) && ph == "X" &&
        IntegerField(o, "pid", &pid) && IntegerField(o, "tid", &tid) && TimeField(o, "ts", &ts) &&
        TimeField(o, "dur", &dur)) {
      const bool span = StringField(o, "cat", &cat) && cat == "gpu_user_annotation";
      lanes[{pid, tid}].push_back(Event{ts, ts + dur, span, i});
      has_span[{pid, tid}] |= span;
    }
    ++i;
  }
  for (auto& [lane, list] : lanes) {
    if (!has_span[lane]) continue;
    std::sort(list.begin(), list.end(), [](const Event& a, const Event& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.end != b.end) return a.end > b.end;
      return a.span > b.span;
    });
    std::vector<const Event*> open;  // spans, and the latest work, each inside the one below
    for (const Event& e : list) {
      while (!open.empty()) {
        if (open.back()->end <= e.begin) {
          open.pop_back();
        } else if (!open.back()->span && !e.span) {
          open.pop_back();  // work overlapping work
        } else if (!open.back()->span) {
          return Bad(e.index, "gpu_user_annotation starts inside work traceEvents[" +
                                  std::to_string(open.back()->index) + "]");
        } else {
          break;
        }
      }
      if (!open.empty() && !(open.back()->begin < e.begin && e.end < open.back()->end)) {
        char bounds[160];
        std::snprintf(bounds, sizeof bounds, "[%.17g, %.17g] is not strictly inside [%.17g, %.17g]",
                      e.begin, e.end, open.back()->begin, open.back()->end);
        return Bad(e.index, std::string(bounds) + ", gpu_user_annotation traceEvents[" +
                                std::to_string(open.back()->index) + "] on pid " +
                                std::to_string(lane.first) + " tid " + std::to_string(lane.second));
      }
      open.push_back(&e);
    }
  }
  return OkStatus();
}

}  // namespace nodescope
