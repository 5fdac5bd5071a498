// Walking a window's document: top-level keys, "traceEvents", the fields of each event.
#include "analysis/reader/window_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "analysis/reader/json_text.h"

namespace nodescope::analysis {
namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

// `*event = TraceEvent{}`, member by member. GCC zeroes the whole struct with `rep stos`, whose
// start-up cost was a sixth of the time per event; and it copies a temporary (`a = b = {}`) with a
// 16-byte load of two 8-byte stores just made, which stalls (no store forwarding).
void Clear(TraceId* id) {
  id->kind = TraceId::Kind::kAbsent;
  id->number = 0;
  id->text = std::string_view();
}
void Clear(TraceEvent* event) {
  event->ph = std::string_view();
  event->cat = std::string_view();
  event->name = std::string_view();
  Clear(&event->pid);
  Clear(&event->tid);
  event->ts_us.reset();
  event->dur_us.reset();
  event->graph_id.reset();
  event->graph_node_id.reset();
  event->correlation.reset();
  event->external_id.reset();
  event->scope.reset();
}

// `"key"`, as a message names a key. Appended piece by piece: g++ 12 at -O3 misreads
// `"\"" + std::string(key)` (a one-character literal prepended to a temporary) as an overlapping
// memcpy (-Wrestrict, GCC bug 105329).
std::string Quoted(std::string_view key) {
  std::string s;
  s.reserve(key.size() + 2);
  s += '"';
  s += key;
  s += '"';
  return s;
}

}  // namespace

bool WindowReader::Failed(error_code error) {
  simdjson::simdjson_result<const char*> at = doc_->current_location();
  if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || at.error() != simdjson::SUCCESS ||
      Offset(at.value_unsafe()) >= End()) {
    return Fail(DataLossError(std::string(name_) + ": byte " + std::to_string(End()) +
                              " (end of file): " + Describe(simdjson::INCOMPLETE_ARRAY_OR_OBJECT)),
                /*retry=*/true);
  }
  // simdjson places an error met past the last token at that token (or the one before).
  const uint64_t offset = Offset(at.value_unsafe());
  return Fail(DataLossError(std::string(name_) + ": byte " + std::to_string(offset) + ": " +
                            Describe(error)),
              /*retry=*/offset >= w_.tail);
}

bool WindowReader::GetUint(od::value& v, std::string_view key, std::optional<uint64_t>* out) {
  int64_t plain;
  if (ParsePlainInt(v.raw_json_token().data(), false, &plain)) [[likely]] {
    *out = static_cast<uint64_t>(plain);
    return true;
  }
  uint64_t value;
  if (v.get_uint64().get(value) != simdjson::SUCCESS) {
    return NotA(v, key, "an unsigned 64-bit integer", "an unsigned integer");
  }
  *out = value;
  return true;
}

bool WindowReader::GetInt(od::value& v, std::string_view key, std::optional<int64_t>* out) {
  int64_t value;
  if (ParsePlainInt(v.raw_json_token().data(), true, &value)) [[likely]] {
    *out = value;
    return true;
  }
  if (v.get_int64().get(value) != simdjson::SUCCESS) {
    return NotA(v, key, "a 64-bit integer", "an integer");
  }
  *out = value;
  return true;
}

bool WindowReader::GetDouble(od::value& v, std::string_view key, std::optional<double>* out) {
  double value;
  if (ParsePlainDouble(v.raw_json_token().data(), &value)) [[likely]] {
    *out = value;
    return true;
  }
  if (v.get_double().get(value) != simdjson::SUCCESS) return NotA(v, key, "a number", "a number");
  *out = value;
  return true;
}

bool WindowReader::WrongType(od::value& v, std::string_view key, const char* expected) {
  const char* at = v.raw_json_token().data();
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  // type() looks at the first byte only: "tru" is not a boolean.
  std::string_view token = v.raw_json_token();
  token = token.substr(0, token.find_first_of(" \t\r\n"));
  if ((type == od::json_type::boolean && token != "true" && token != "false") ||
      (type == od::json_type::null && token != "null")) {
    return ErrorAt(at, Describe(simdjson::TAPE_ERROR));
  }
  return ErrorAt(at, Quoted(key) + " is " + TypeName(type) + ", expected " + expected);
}

bool WindowReader::BadNumber(od::value& v, std::string_view key, const char* expected) {
  std::string_view token = v.raw_json_token();
  size_t end = token.find_first_of(" \t\r\n");
  std::string_view number = token.substr(0, std::min<size_t>(end, 40));
  return ErrorAt(token.data(),
                 Quoted(key) + " is " + std::string(number) + ", expected " + expected);
}

bool WindowReader::NotA(od::value& v, std::string_view key, const char* expected_number,
                        const char* expected_type) {
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type != od::json_type::number) return WrongType(v, key, expected_type);
  return BadNumber(v, key, expected_number);
}

bool WindowReader::GetString(od::value& v, std::string_view key, std::string_view* out) {
  // get_raw_json_string() leaves a value of another type unread, for the message; a string it
  // reads (consumes: left unread, a string followed by ':' would be skipped as if a key).
  od::raw_json_string raw;
  if (v.get_raw_json_string().get(raw) != simdjson::SUCCESS) return WrongType(v, key, "a string");
  // Without escapes, a string is its bytes in the window: no copy. Stage 1 has checked that it
  // is closed, valid UTF-8 and free of control characters.
  const char* begin = raw.raw();
  const char* window_end = w_.bytes + w_.size;
  const void* quote = std::memchr(begin, '"', static_cast<size_t>(window_end - begin));
  if (quote != nullptr) [[likely]] {
    const size_t size = static_cast<size_t>(static_cast<const char*>(quote) - begin);
    if (std::memchr(begin, '\\', size) == nullptr) {
      *out = std::string_view(begin, size);
      return true;
    }
  }
  return Unescape(raw, key, out);
}

bool WindowReader::Unescape(od::raw_json_string raw, std::string_view key, std::string_view* out) {
  if (parser_.unescape(raw, strings_).get(*out) == simdjson::SUCCESS) [[likely]] {
    return true;
  }
  // simdjson refuses a \u escape of a lone surrogate, which JSON allows (and leaves strings_
  // as it was): ours reads it as U+FFFD, and refuses what simdjson does otherwise.
  const auto* begin = reinterpret_cast<const uint8_t*>(raw.raw());
  uint8_t* end = UnescapeJsonString(begin, strings_);
  if (end == nullptr) {
    return ErrorAt(raw.raw() - 1, Quoted(key) + ": " + Describe(simdjson::STRING_ERROR));
  }
  *out = std::string_view(reinterpret_cast<const char*>(strings_),
                          static_cast<size_t>(end - strings_));
  strings_ = end;
  return true;
}

bool WindowReader::GetId(od::value& v, std::string_view key, TraceId* out) {
  int64_t value;
  if (ParsePlainInt(v.raw_json_token().data(), true, &value)) [[likely]] {
    out->kind = TraceId::Kind::kNumber;
    out->number = value;
    return true;
  }
  od::json_type type;
  if (error_code e = v.type().get(type)) return Failed(e);
  if (type == od::json_type::string) {
    out->kind = TraceId::Kind::kString;
    return GetString(v, key, &out->text);
  }
  if (type != od::json_type::number) return WrongType(v, key, "an integer or a string");
  if (v.get_int64().get(value) == simdjson::SUCCESS) {
    out->kind = TraceId::Kind::kNumber;
    out->number = value;
    return true;
  }
  uint64_t big;
  if (v.get_uint64().get(big) != simdjson::SUCCESS) {
    return BadNumber(v, key, "an integer or a string");
  }
  out->kind = TraceId::Kind::kNumber;
  out->number = static_cast<int64_t>(big);  // keeps the bits
  return true;
}

bool WindowReader::GetObject(od::value& v, std::string_view key, od::object* out) {
  error_code e = v.get_object().get(*out);
  if (e == simdjson::SUCCESS) [[likely]]
    return true;
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, key, "an object");
  return Failed(e);
}

bool WindowReader::ReadArgs(od::value& v, TraceEvent* event) {
  od::object args;
  if (!GetObject(v, "args", &args)) return false;
  for (auto field_or : args) {
    if (error_code e = field_or.error()) return Failed(e);
    od::field& field = field_or.value_unsafe();  // see ReadEvent()
    const char* key = field.key().raw();
    od::value& value = field.value();
    bool ok = true;
    switch (key[0]) {
      case 'g':
        if (KeyIs(key, "graph id")) {
          ok = GetUint(value, "graph id", &event->graph_id);
        } else if (KeyIs(key, "graph node id")) {
          ok = GetUint(value, "graph node id", &event->graph_node_id);
        }
        break;
      case 'c':
        if (KeyIs(key, "correlation")) ok = GetInt(value, "correlation", &event->correlation);
        break;
      case 'E':
        if (KeyIs(key, "External id")) ok = GetInt(value, "External id", &event->external_id);
        break;
      case 's':
        if (KeyIs(key, "scope")) {
          std::string_view scope;
          ok = GetString(value, "scope", &scope);
          event->scope = scope;
        }
        break;
      default:
        break;
    }
    if (!ok) return false;
  }
  return true;
}

bool WindowReader::ReadEvent(od::value& v, TraceEvent* event) {
  const char* at = v.raw_json_token().data();
  event->offset = Offset(at);
  pending_start_ = event->offset;
  od::object object;
  error_code e = v.get_object().get(object);
  if (e != simdjson::SUCCESS) [[unlikely]] {
    if (e != simdjson::INCORRECT_TYPE) return Failed(e);
    od::json_type type;
    if (error_code e2 = v.type().get(type)) return Failed(e2);
    return ErrorAt(at, std::string("an element of \"traceEvents\" is ") + TypeName(type) +
                           ", expected an object");
  }
  if (raw_events_) {
    event->raw_pid = event->raw_ts = event->raw_id = std::string_view();
  }
  for (auto field_or : object) {
    // Used in place: get(field) would copy it, and GCC copies it with one 16-byte load of two
    // fields just stored, a store-forwarding stall that took a third of the time of this loop.
    if (error_code e2 = field_or.error()) return Failed(e2);
    od::field& field = field_or.value_unsafe();
    const char* key = field.key().raw();
    od::value& value = field.value();
    bool ok = true;
    switch (key[0]) {
      case 'p':
        if (KeyIs(key, "ph")) {
          ok = GetString(value, "ph", &event->ph);
        } else if (KeyIs(key, "pid")) {
          if (raw_events_) event->raw_pid = TrimJsonSpace(value.raw_json_token());
          ok = GetId(value, "pid", &event->pid);
        }
        break;
      case 'c':
        if (KeyIs(key, "cat")) ok = GetString(value, "cat", &event->cat);
        break;
      case 'n':
        if (KeyIs(key, "name")) ok = GetString(value, "name", &event->name);
        break;
      case 't':
        if (KeyIs(key, "ts")) {
          if (raw_events_) event->raw_ts = TrimJsonSpace(value.raw_json_token());
          ok = GetDouble(value, "ts", &event->ts_us);
        } else if (KeyIs(key, "tid")) {
          ok = GetId(value, "tid", &event->tid);
        }
        break;
      case 'd':
        if (KeyIs(key, "dur")) ok = GetDouble(value, "dur", &event->dur_us);
        break;
      case 'a':
        if (KeyIs(key, "args")) ok = ReadArgs(value, event);
        break;
      case 'i':
        if (raw_events_ && KeyIs(key, "id")) {
          event->raw_id = TrimJsonSpace(value.raw_json_token());
          TraceId any;  // checked: merge renumbers flow ids
          ok = GetId(value, "id", &any);
        }
        break;
      default:
        break;
    }
    if (!ok) return false;
  }
  return !raw_events_ || RawEvent(at, event);
}

bool WindowReader::RawEvent(const char* at, TraceEvent* event) {
  // The iterator stands at the token after the event's '}' (',' or ']'), or at the window's end
  // when the window was cut right after it.
  simdjson::simdjson_result<const char*> next = doc_->current_location();
  const char* end = next.error() == simdjson::SUCCESS ? next.value_unsafe() : w_.bytes + w_.size;
  std::string_view text(at, static_cast<size_t>(end - at));
  while (!text.empty() && IsJsonSpace(text.back())) text.remove_suffix(1);
  if (text.empty() || text.back() != '}') {
    return ErrorAt(at, "could not find the end of this event");
  }
  event->raw = text;
  return true;
}

bool WindowReader::ReadEvents(od::array& events, const TraceEventVisitor& visit,
                              TraceMetadata* meta) {
  TraceEvent event;
  event.source = name_;  // the same for every event: Clear() leaves it
  event.metadata = meta;
  for (auto value_or : events) {
    if (error_code e = value_or.error()) return Failed(e);
    od::value& value = value_or.value_unsafe();
    if (skip_first_) {  // visited by the window before; not in a later "traceEvents" array
      skip_first_ = false;
      continue;
    }
    Clear(&event);
    if (!ReadEvent(value, &event)) return false;
    ++meta->events;
    ++completed_;
    last_start_ = event.offset;
    Status status = visit(event);
    if (!status.ok()) return Fail(std::move(status));
  }
  return true;
}

bool WindowReader::Read(od::document& doc, const TraceEventVisitor& visit, TraceMetadata* meta) {
  // The root is taken as a value, not with doc.get_object(): that one first checks that the
  // document's last token closes it, which a window cut inside the events never does. Running
  // into the end is noticed all the same, by the zeroed padding after it (see Failed()).
  doc_ = &doc;
  od::json_type type;
  if (error_code e = doc.type().get(type)) return Failed(e);
  if (type == od::json_type::array) {
    // Chrome's "JSON Array Format": the events without the enclosing object.
    array_format_ = true;
    od::value root;
    od::array events;
    if (error_code e = doc.get_value().get(root)) return Failed(e);
    if (error_code e = root.get_array().get(events)) return Failed(e);
    if (!ReadEvents(events, visit, meta)) return false;
    if (!w_.last) return false;  // what follows may be cut: the last window reads it
  } else if (type == od::json_type::object) {
    od::value root;
    od::object top;
    if (error_code e = doc.get_value().get(root)) return Failed(e);
    if (error_code e = root.get_object().get(top)) return Failed(e);
    bool saw_events = false;  // (a resumed window's prefix holds the file's first one)
    // In a window that is not the last, after "traceEvents" ended: the rest, which the window
    // may cut, is only looked through for a second "traceEvents"; the last window reads it.
    bool after_events = false;
    for (auto field_or : top) {
      od::field field;
      if (error_code e = std::move(field_or).get(field)) {
        return after_events ? false : Failed(e);
      }
      od::raw_json_string key = field.key();
      // JSON.parse, which Perfetto and chrome://tracing read traces with, keeps the last value
      // of a repeated key. The reader hands each event to the visitor as it reads it, so it
      // cannot take the first array's events back; nor hold them all, or read the file twice
      // (a pipe), to wait for a second array. So such a trace is refused, at the second key,
      // rather than read as no viewer reads it.
      if (saw_events && key == "traceEvents") {
        return ErrorAt(key.raw() - 1,
                       "a second \"traceEvents\": a trace with two is refused (JSON.parse, "
                       "as Perfetto and chrome://tracing read it, keeps only the last)");
      }
      if (after_events) continue;
      pending_start_ = Offset(key.raw() - 1);
      if (key == "traceEvents") {
        od::array events;
        error_code e = field.value().get_array().get(events);
        if (e == simdjson::INCORRECT_TYPE)
          return WrongType(field.value(), "traceEvents", "an array");
        if (e) return Failed(e);
        saw_events = true;
        if (!ReadEvents(events, visit, meta)) return false;
        after_events = !w_.last;
      } else if (key == "nodescope") {
        if (!ReadNodescope(field.value(), meta)) return false;
      } else if (key == "baseTimeNanoseconds") {
        if (!GetUint(field.value(), "baseTimeNanoseconds", &meta->base_time_ns)) return false;
      } else if (key == "distributedInfo") {
        if (!ReadDistributedInfo(field.value(), meta)) return false;
      } else if (key == "nodescopeGraphs") {
        if (!ReadGraphDags(field.value(), meta)) return false;
      }
    }
    if (after_events) return false;
    if (!saw_events) {
      return Fail(DataLossError(
          std::string(name_) +
          ": no \"traceEvents\" array in the top-level object (not a Chrome trace?)"));
    }
  } else {
    return ErrorAt(w_.bytes, std::string("the trace is ") + TypeName(type) +
                                 ", expected a JSON object with \"traceEvents\"");
  }
  simdjson::simdjson_result<const char*> rest = doc.current_location();
  if (rest.error() == simdjson::SUCCESS) {
    return ErrorAt(rest.value_unsafe(), "unexpected content after the end of the trace");
  }
  return true;
}

}  // namespace nodescope::analysis
