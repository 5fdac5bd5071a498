// Reading kineto-schema traces with simdjson On-Demand: the top-level object, then each event.
#include "analysis/trace_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "analysis/padded_file.h"

namespace nodescope::analysis {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

const char* TypeName(od::json_type type) {
  switch (type) {
    case od::json_type::array:
      return "an array";
    case od::json_type::object:
      return "an object";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "a JSON value";
}

// Why simdjson stopped, in words for a person who has the file in front of them.
std::string Describe(error_code error) {
  switch (error) {
    case simdjson::EMPTY:
      return "no JSON value in the file (only whitespace)";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "the JSON ends before its arrays and objects are closed (truncated file?)";
    case simdjson::UNCLOSED_STRING:
      return "a string is never closed (truncated file?)";
    case simdjson::TAPE_ERROR:
      return "not valid JSON here";
    case simdjson::UTF8_ERROR:
      return "invalid UTF-8";
    case simdjson::DEPTH_ERROR:
      return "arrays and objects nested too deeply";
    case simdjson::STRING_ERROR:
      return "invalid string (bad escape or control character)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "not valid JSON here (bad true/false/null)";
    case simdjson::NUMBER_ERROR:
      return "invalid number";
    case simdjson::CAPACITY:
      return "larger than simdjson can read (4 GiB)";
    case simdjson::MEMALLOC:
      return "out of memory";
    default:
      return std::string("not valid JSON (") + simdjson::error_message(error) + ")";
  }
}

// Offset of the first byte that is not valid UTF-8 (simdjson only says that there is one).
size_t FirstInvalidUtf8(const unsigned char* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || (len == 2 && c < 0xC2) || (len == 4 && c > 0xF4) || i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
    }
    if (len == 3) {
      unsigned cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6);
      if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    }
    if (len == 4) {
      unsigned cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12);
      if (cp < 0x10000 || cp > 0x10FFFF) return i;
    }
    i += len;
  }
  return n;
}

class Reader {
 public:
  Reader(std::string_view name, const char* base, size_t size)
      : name_(name), base_(base), size_(size) {}

  StatusOr<TraceMetadata> Read(od::document& doc, const TraceEventVisitor& visit);

 private:
  uint64_t Offset(const char* at) const {
    if (at < base_) return 0;
    return static_cast<uint64_t>(std::min<size_t>(static_cast<size_t>(at - base_), size_));
  }
  Status ErrorAt(const char* at, const std::string& what) const {
    return DataLossError(std::string(name_) + ": byte " + std::to_string(Offset(at)) + ": " + what);
  }
  // An error from simdjson while walking the document: the offset is where its iterator stands.
  // Running into the end of the file, wherever simdjson notices it, means the file is cut short.
  Status Failed(error_code error) {
    simdjson::simdjson_result<const char*> at = doc_->current_location();
    if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || at.error() != simdjson::SUCCESS ||
        Offset(at.value_unsafe()) >= size_) {
      return DataLossError(std::string(name_) + ": byte " + std::to_string(size_) +
                           " (end of file): " + Describe(simdjson::INCOMPLETE_ARRAY_OR_OBJECT));
    }
    return ErrorAt(at.value_unsafe(), Describe(error));
  }
  // `"key" is a string, expected an unsigned integer`.
  Status WrongType(od::value& v, const char* at, std::string_view key, const char* expected) {
    od::json_type type;
    if (error_code e = v.type().get(type)) return Failed(e);
    // type() looks at the first byte only: "tru" is not a boolean.
    std::string_view token = v.raw_json_token();
    token = token.substr(0, token.find_first_of(" \t\r\n"));
    if ((type == od::json_type::boolean && token != "true" && token != "false") ||
        (type == od::json_type::null && token != "null")) {
      return ErrorAt(at, Describe(simdjson::TAPE_ERROR));
    }
    return ErrorAt(at,
                   "\"" + std::string(key) + "\" is " + TypeName(type) + ", expected " + expected);
  }
  // `"key" is -1, expected ...` for numbers of the right type but out of range.
  Status BadNumber(std::string_view token, std::string_view key, const char* expected) {
    size_t end = token.find_first_of(" \t\r\n");
    std::string_view number = token.substr(0, std::min<size_t>(end, 40));
    return ErrorAt(token.data(), "\"" + std::string(key) + "\" is " + std::string(number) +
                                     ", expected " + expected);
  }

  Status GetString(od::value& v, std::string_view key, std::string_view* out);
  Status GetUint(od::value& v, std::string_view key, std::optional<uint64_t>* out);
  Status GetInt(od::value& v, std::string_view key, std::optional<int64_t>* out);
  Status GetDouble(od::value& v, std::string_view key, std::optional<double>* out);
  Status GetId(od::value& v, std::string_view key, TraceId* out);
  Status GetObject(od::value& v, std::string_view key, od::object* out);

  Status ReadEvents(od::array& events, const TraceEventVisitor& visit, TraceMetadata* meta);
  Status ReadEvent(od::value& v, TraceEvent* event);
  Status ReadArgs(od::value& v, TraceEvent* event);
  Status ReadNodescope(od::value& v, TraceMetadata* meta);

  std::string_view name_;
  const char* base_;
  size_t size_;
  od::document* doc_ = nullptr;
};

Status Reader::GetString(od::value& v, std::string_view key, std::string_view* out) {
  const char* at = v.raw_json_token().data();
  error_code e = v.get_string().get(*out);
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, at, key, "a string");
  if (e) return ErrorAt(at, "\"" + std::string(key) + "\": " + Describe(e));
  return OkStatus();
}

Status Reader::GetUint(od::value& v, std::string_view key, std::optional<uint64_t>* out) {
  std::string_view token = v.raw_json_token();
  const char* at = token.data();
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type != od::json_type::number) return WrongType(v, at, key, "an unsigned integer");
  uint64_t value = 0;
  if (v.get_uint64().get(value)) return BadNumber(token, key, "an unsigned 64-bit integer");
  *out = value;
  return OkStatus();
}

Status Reader::GetInt(od::value& v, std::string_view key, std::optional<int64_t>* out) {
  std::string_view token = v.raw_json_token();
  const char* at = token.data();
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type != od::json_type::number) return WrongType(v, at, key, "an integer");
  int64_t value = 0;
  if (v.get_int64().get(value)) return BadNumber(token, key, "a 64-bit integer");
  *out = value;
  return OkStatus();
}

Status Reader::GetDouble(od::value& v, std::string_view key, std::optional<double>* out) {
  std::string_view token = v.raw_json_token();
  const char* at = token.data();
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type != od::json_type::number) return WrongType(v, at, key, "a number");
  double value = 0;
  if (v.get_double().get(value)) return BadNumber(token, key, "a number");
  *out = value;
  return OkStatus();
}

Status Reader::GetId(od::value& v, std::string_view key, TraceId* out) {
  std::string_view token = v.raw_json_token();
  const char* at = token.data();
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type == od::json_type::string) {
    out->kind = TraceId::Kind::kString;
    return GetString(v, key, &out->text);
  }
  if (type != od::json_type::number) return WrongType(v, at, key, "an integer or a string");
  int64_t value = 0;
  if (v.get_int64().get(value)) {
    uint64_t big = 0;
    if (v.get_uint64().get(big)) return BadNumber(token, key, "an integer or a string");
    value = static_cast<int64_t>(big);
  }
  out->kind = TraceId::Kind::kNumber;
  out->number = value;
  return OkStatus();
}

Status Reader::GetObject(od::value& v, std::string_view key, od::object* out) {
  const char* at = v.raw_json_token().data();
  error_code e = v.get_object().get(*out);
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, at, key, "an object");
  if (e) return Failed(e);
  return OkStatus();
}

// Keys are compared as written, not unescaped: nobody escapes "graph id", and unescaping every key
// of every event would copy it into simdjson's string buffer, which only grows within a document.
Status Reader::ReadArgs(od::value& v, TraceEvent* event) {
  od::object args;
  RETURN_IF_ERROR(GetObject(v, "args", &args));
  for (auto field_or : args) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    od::value& value = field.value();
    if (key == "graph id") {
      RETURN_IF_ERROR(GetUint(value, "graph id", &event->graph_id));
    } else if (key == "graph node id") {
      RETURN_IF_ERROR(GetUint(value, "graph node id", &event->graph_node_id));
    } else if (key == "correlation") {
      RETURN_IF_ERROR(GetInt(value, "correlation", &event->correlation));
    } else if (key == "External id") {
      RETURN_IF_ERROR(GetInt(value, "External id", &event->external_id));
    } else if (key == "scope") {
      std::string_view scope;
      RETURN_IF_ERROR(GetString(value, "scope", &scope));
      event->scope = scope;
    }
  }
  return OkStatus();
}

Status Reader::ReadEvent(od::value& v, TraceEvent* event) {
  const char* at = v.raw_json_token().data();
  event->offset = Offset(at);
  od::object object;
  error_code e = v.get_object().get(object);
  if (e == simdjson::INCORRECT_TYPE) {
    od::json_type type;
    if (error_code e2 = v.type().get(type)) return Failed(e2);
    return ErrorAt(at, std::string("an element of \"traceEvents\" is ") + TypeName(type) +
                           ", expected an object");
  }
  if (e) return Failed(e);
  for (auto field_or : object) {
    od::field field;
    if (error_code e2 = std::move(field_or).get(field)) return Failed(e2);
    od::raw_json_string key = field.key();
    od::value& value = field.value();
    if (key == "ph") {
      RETURN_IF_ERROR(GetString(value, "ph", &event->ph));
    } else if (key == "cat") {
      RETURN_IF_ERROR(GetString(value, "cat", &event->cat));
    } else if (key == "name") {
      RETURN_IF_ERROR(GetString(value, "name", &event->name));
    } else if (key == "pid") {
      RETURN_IF_ERROR(GetId(value, "pid", &event->pid));
    } else if (key == "tid") {
      RETURN_IF_ERROR(GetId(value, "tid", &event->tid));
    } else if (key == "ts") {
      RETURN_IF_ERROR(GetDouble(value, "ts", &event->ts_us));
    } else if (key == "dur") {
      RETURN_IF_ERROR(GetDouble(value, "dur", &event->dur_us));
    } else if (key == "args") {
      RETURN_IF_ERROR(ReadArgs(value, event));
    }
  }
  return OkStatus();
}

Status Reader::ReadEvents(od::array& events, const TraceEventVisitor& visit, TraceMetadata* meta) {
  for (auto value_or : events) {
    od::value value;
    if (error_code e = value_or.get(value)) return Failed(e);
    TraceEvent event;
    RETURN_IF_ERROR(ReadEvent(value, &event));
    ++meta->events;
    RETURN_IF_ERROR(visit(event));
  }
  return OkStatus();
}

Status Reader::ReadNodescope(od::value& v, TraceMetadata* meta) {
  meta->has_nodescope = true;
  od::object nodescope;
  RETURN_IF_ERROR(GetObject(v, "nodescope", &nodescope));
  for (auto field_or : nodescope) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    if (key == "dropped_records") {
      od::object dropped;
      RETURN_IF_ERROR(GetObject(field.value(), "dropped_records", &dropped));
      for (auto inner_or : dropped) {
        od::field inner;
        if (error_code e = std::move(inner_or).get(inner)) return Failed(e);
        od::raw_json_string inner_key = inner.key();
        if (inner_key == "total")
          RETURN_IF_ERROR(GetUint(inner.value(), "total", &meta->dropped_total));
      }
    } else if (key == "attribution") {
      od::object attribution;
      RETURN_IF_ERROR(GetObject(field.value(), "attribution", &attribution));
      for (auto inner_or : attribution) {
        od::field inner;
        if (error_code e = std::move(inner_or).get(inner)) return Failed(e);
        od::raw_json_string inner_key = inner.key();
        if (inner_key != "withheld") continue;
        od::object withheld;
        RETURN_IF_ERROR(GetObject(inner.value(), "withheld", &withheld));
        for (auto reason_or : withheld) {
          od::field reason;
          if (error_code e = std::move(reason_or).get(reason)) return Failed(e);
          std::string_view reason_key;
          if (error_code e = reason.unescaped_key().get(reason_key)) return Failed(e);
          std::optional<uint64_t> count;
          RETURN_IF_ERROR(GetUint(reason.value(), reason_key, &count));
          meta->withheld.emplace_back(std::string(reason_key), *count);
        }
      }
    }
  }
  return OkStatus();
}

StatusOr<TraceMetadata> Reader::Read(od::document& doc, const TraceEventVisitor& visit) {
  doc_ = &doc;
  TraceMetadata meta;
  od::json_type type;
  if (error_code e = doc.type().get(type)) return Failed(e);
  if (type == od::json_type::array) {
    // Chrome's "JSON Array Format": the events without the enclosing object.
    od::array events;
    if (error_code e = doc.get_array().get(events)) return Failed(e);
    RETURN_IF_ERROR(ReadEvents(events, visit, &meta));
  } else if (type == od::json_type::object) {
    od::object top;
    if (error_code e = doc.get_object().get(top)) return Failed(e);
    bool saw_events = false;
    for (auto field_or : top) {
      od::field field;
      if (error_code e = std::move(field_or).get(field)) return Failed(e);
      od::raw_json_string key = field.key();
      if (key == "traceEvents") {
        const char* at = field.value().raw_json_token().data();
        od::array events;
        error_code e = field.value().get_array().get(events);
        if (e == simdjson::INCORRECT_TYPE)
          return WrongType(field.value(), at, "traceEvents", "an array");
        if (e) return Failed(e);
        saw_events = true;
        RETURN_IF_ERROR(ReadEvents(events, visit, &meta));
      } else if (key == "nodescope") {
        RETURN_IF_ERROR(ReadNodescope(field.value(), &meta));
      }
    }
    if (!saw_events) {
      return DataLossError(
          std::string(name_) +
          ": no \"traceEvents\" array in the top-level object (not a Chrome trace?)");
    }
  } else {
    return ErrorAt(base_, std::string("the trace is ") + TypeName(type) +
                              ", expected a JSON object with \"traceEvents\"");
  }
  simdjson::simdjson_result<const char*> rest = doc.current_location();
  if (rest.error() == simdjson::SUCCESS) {
    return ErrorAt(rest.value_unsafe(), "unexpected content after the end of the trace");
  }
  return meta;
}

StatusOr<TraceMetadata> ReadPadded(std::string_view name, const char* data, size_t size,
                                   size_t capacity, const TraceEventVisitor& visit) {
  if (size == 0) return DataLossError(std::string(name) + ": the file is empty");
  od::parser parser;
  od::document doc;
  error_code e = parser.iterate(simdjson::padded_string_view(data, size, capacity)).get(doc);
  if (e == simdjson::UTF8_ERROR) {
    size_t at = FirstInvalidUtf8(reinterpret_cast<const unsigned char*>(data), size);
    return DataLossError(std::string(name) + ": byte " + std::to_string(at) + ": invalid UTF-8");
  }
  if (e == simdjson::UNCLOSED_STRING) {
    return DataLossError(std::string(name) + ": byte " + std::to_string(size) +
                         " (end of file): " + Describe(e));
  }
  if (e) return DataLossError(std::string(name) + ": " + Describe(e));
  Reader reader(name, data, size);
  return reader.Read(doc, visit);
}

}  // namespace

StatusOr<TraceMetadata> ReadTraceFile(const std::string& path, const TraceEventVisitor& visit) {
  ASSIGN_OR_RETURN(PaddedFile file, PaddedFile::Open(path, simdjson::SIMDJSON_PADDING));
  return ReadPadded(path, file.data(), file.size(), file.capacity(), visit);
}

StatusOr<TraceMetadata> ReadTraceText(std::string_view name, std::string_view json,
                                      const TraceEventVisitor& visit) {
  std::vector<char> buf(json.size() + simdjson::SIMDJSON_PADDING, '\0');
  if (!json.empty()) std::memcpy(buf.data(), json.data(), json.size());
  return ReadPadded(name, buf.data(), json.size(), buf.size(), visit);
}

}  // namespace nodescope::analysis
